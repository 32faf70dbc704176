// Model and checkpoint files (model/model_file.hpp, train/checkpoint.hpp) on arbitrary bytes:
// every loader, each refusing what is not its kind with a gatkit::Error.
#include "fuzz_target.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/checkpoint.hpp"

namespace {

template <class Load>
void attempt(Load load) {
    try {
        load();
    } catch (const gatkit::Error&) {
        // Refused with a gatkit::Error: expected for most inputs; go on with the next loader.
    }
}

}  // namespace

GATKIT_FUZZ_TARGET(model_file) {
    const std::string path = gatkit::fuzz::write("model.safetensors", input);
    attempt([&] { gatkit::model_kind(path); });
    attempt([&] { gatkit::load_model(path); });
    attempt([&] { gatkit::load_model_ensemble(path); });
    attempt([&] { gatkit::load_link_model(path); });
    attempt([&] { gatkit::load_heuristic_model(path); });
    attempt([&] { gatkit::load_fingerprint_model(path); });
    gatkit::load_checkpoint(path);
}
