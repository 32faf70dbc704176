#include "gatkit/model/model_file.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gatkit {

using nlohmann::json;

namespace {

json config_to_json(const ModelConfig& c) {
    return {{"task", c.task},         {"conv", c.conv},
            {"in_features", c.in_features}, {"num_classes", c.num_classes},
            {"layers", c.layers},     {"heads", c.heads},
            {"hidden", c.hidden},     {"out_heads", c.out_heads},
            {"dropout", c.dropout},   {"attn_dropout", c.attn_dropout},
            {"negative_slope", c.negative_slope}, {"residual", c.residual},
            {"add_self_loops", c.add_self_loops}, {"activation", to_string(c.activation)}};
}

ModelConfig config_from_json(const json& j) {
    ModelConfig c;
    c.task = j.at("task").get<std::string>();
    c.conv = j.at("conv").get<std::string>();
    c.in_features = j.at("in_features").get<int>();
    c.num_classes = j.at("num_classes").get<int>();
    c.layers = j.at("layers").get<int>();
    c.heads = j.at("heads").get<int>();
    c.hidden = j.at("hidden").get<int>();
    c.out_heads = j.at("out_heads").get<int>();
    c.dropout = j.at("dropout").get<double>();
    c.attn_dropout = j.at("attn_dropout").get<double>();
    c.negative_slope = j.at("negative_slope").get<double>();
    c.residual = j.at("residual").get<bool>();
    c.add_self_loops = j.at("add_self_loops").get<bool>();
    c.activation = parse_activation(j.at("activation").get<std::string>());
    return c;
}

json info_to_json(const ModelInfo& info) {
    return {{"class_names", info.class_names},
            {"feature_normalization", info.feature_normalization},
            {"data_name", info.data_name},
            {"metrics", info.metrics}};
}

ModelInfo info_from_json(const json& j) {
    ModelInfo info;
    info.class_names = j.at("class_names").get<std::vector<std::string>>();
    info.feature_normalization = j.at("feature_normalization").get<std::string>();
    info.data_name = j.value("data_name", std::string());
    info.metrics = j.value("metrics", std::map<std::string, double>());
    return info;
}

}  // namespace

void save_model(const std::string& path, Model& model) {
    json header;
    std::string data;
    for (const auto* p : model.parameters()) {
        const std::size_t bytes = static_cast<std::size_t>(p->value.size()) * sizeof(float);
        header[p->name] = {{"dtype", "F32"},
                           {"shape", {p->value.rows(), p->value.cols()}},
                           {"data_offsets", {data.size(), data.size() + bytes}}};
        // x86-64 and AArch64 Linux are little-endian, which is what safetensors stores.
        data.append(reinterpret_cast<const char*>(p->value.data()), bytes);
    }
    header["__metadata__"] = {{"format", "gatkit"},
                              {"format_version", std::to_string(kModelFormatVersion)},
                              {"config", config_to_json(model.config()).dump()},
                              {"info", info_to_json(model.info()).dump()}};
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string bytes(8, '\0');
    std::uint64_t n = text.size();
    for (int k = 0; k < 8; ++k) bytes[k] = static_cast<char>((n >> (8 * k)) & 0xff);
    bytes += text;
    bytes += data;
    write_file_atomically(path, bytes);
}

Model load_model(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("cannot open model file '" + path + "': " + std::strerror(errno));
    std::ostringstream buf;
    buf << in.rdbuf();
    const std::string bytes = buf.str();
    const auto bad = [&](const std::string& why) { return ParseError("model file '" + path + "': " + why); };
    if (bytes.size() < 8) throw bad("truncated (" + std::to_string(bytes.size()) + " bytes; not a safetensors file)");
    std::uint64_t n = 0;
    for (int k = 0; k < 8; ++k) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[k])) << (8 * k);
    if (n > bytes.size() - 8)
        throw bad("header length " + std::to_string(n) + " exceeds the file size " + std::to_string(bytes.size()) +
                  " (truncated, or not a safetensors file)");
    json header;
    try {
        header = json::parse(bytes.substr(8, n));
    } catch (const json::exception& e) {
        throw bad(std::string("header is not valid JSON: ") + e.what());
    }
    // safetensors metadata values are strings; anything else is shown as its JSON text (json::value
    // would throw a type_error that is not a gatkit::Error).
    const auto text_of = [](const json& object, const char* key) {
        const auto it = object.find(key);
        return it == object.end() ? std::string() : it->is_string() ? it->get<std::string>() : it->dump();
    };
    if (!header.is_object() || !header.contains("__metadata__") || !header["__metadata__"].is_object() ||
        text_of(header["__metadata__"], "format") != "gatkit")
        throw bad("unsupported model file: a safetensors file without gatkit metadata");
    const json& meta = header["__metadata__"];
    const std::string version = text_of(meta, "format_version");
    if (version != std::to_string(kModelFormatVersion))
        throw bad("unsupported model file format version '" + version + "' (this gatkit reads version " +
                  std::to_string(kModelFormatVersion) + ")");
    ModelConfig config;
    ModelInfo info;
    try {
        config = config_from_json(json::parse(meta.at("config").get<std::string>()));
        config.validate();  // here, so a bad value is reported with the file's name
        info = info_from_json(json::parse(meta.at("info").get<std::string>()));
    } catch (const json::exception& e) {
        throw bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const ConfigError& e) {
        throw bad(e.what());
    }
    Model model(config, 0);
    model.info() = info;
    const std::size_t data_start = 8 + n, data_size = bytes.size() - data_start;
    for (auto* p : model.parameters()) {
        if (!header.contains(p->name)) throw bad("tensor '" + p->name + "' is missing");
        const json& t = header[p->name];
        try {
            if (t.at("dtype").get<std::string>() != "F32")
                throw bad("tensor '" + p->name + "' has dtype " + t.at("dtype").get<std::string>() + ", expected F32");
            const auto shape = t.at("shape").get<std::vector<std::int64_t>>();
            if (shape.size() != 2 || shape[0] != p->value.rows() || shape[1] != p->value.cols())
                throw bad("tensor '" + p->name + "' has shape " + t.at("shape").dump() + ", expected [" +
                          std::to_string(p->value.rows()) + "," + std::to_string(p->value.cols()) + "]");
            const auto off = t.at("data_offsets").get<std::vector<std::uint64_t>>();
            const std::size_t want = static_cast<std::size_t>(p->value.size()) * sizeof(float);
            if (off.size() != 2 || off[0] > off[1] || off[1] > data_size || off[1] - off[0] != want)
                throw bad("tensor '" + p->name + "' has data offsets " + t.at("data_offsets").dump() + " outside the " +
                          std::to_string(data_size) + " data bytes (truncated file?)");
            std::memcpy(p->value.data(), bytes.data() + data_start + off[0], want);
        } catch (const json::exception& e) {
            throw bad("tensor '" + p->name + "' entry is malformed: " + e.what());
        }
    }
    return model;
}

}  // namespace gatkit
