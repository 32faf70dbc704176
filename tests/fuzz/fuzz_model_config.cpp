// The JSON inside model files: a model's "config" and "info" metadata (model/config.hpp), which
// decide the layers built before any tensor is read. The input is "<config JSON> 0x1E <info JSON>";
// it is wrapped in an otherwise well-formed safetensors header without tensors and loaded as a
// node/graph model and as a link model.
#include "fuzz_target.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/model/model_file.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>

namespace {

std::string safetensors_with(const std::string& model_type, std::string_view config, std::string_view info) {
    nlohmann::json header;
    header["__metadata__"] = {{"format", "gatkit"}, {"format_version", "1"}, {"model_type", model_type},
                              {"config", std::string(config)}, {"info", std::string(info)}};
    std::string text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string bytes(8, '\0');
    std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return bytes + text;
}

}  // namespace

GATKIT_FUZZ_TARGET(model_config) {
    const auto parts = gatkit::fuzz::split_parts(input, 2);
    const std::string gat = gatkit::fuzz::write("gat.safetensors", safetensors_with("gat", parts[0], parts[1]));
    try {
        gatkit::load_model(gat);
    } catch (const gatkit::Error&) {
        // Expected for most inputs (and always in the end: the file has no tensors).
    }
    try {
        gatkit::load_link_model(gat);
    } catch (const gatkit::Error&) {
        // As above.
    }
    const std::string fp = gatkit::fuzz::write("fp.safetensors", safetensors_with("fingerprint", parts[0], parts[1]));
    gatkit::load_fingerprint_model(fp);
}
