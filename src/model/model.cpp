#include "gatkit/model/model.hpp"

#include "gatkit/core/error.hpp"

namespace gatkit {

void ModelConfig::validate() const {
    auto fail = [](const std::string& what) { throw ConfigError("model config: " + what); };
    if (task != "node") fail("task '" + task + "' is not supported by this version (supported: node)");
    if (conv != "gat") fail("conv '" + conv + "' is not supported by this version (supported: gat)");
    if (in_features <= 0) fail("in_features must be positive, got " + std::to_string(in_features));
    if (num_classes < 2) fail("need at least 2 classes, got " + std::to_string(num_classes));
    if (layers < 1) fail("layers must be at least 1, got " + std::to_string(layers));
    if (heads < 1) fail("heads must be at least 1, got " + std::to_string(heads));
    if (hidden < 1) fail("hidden must be at least 1, got " + std::to_string(hidden));
    if (out_heads < 1) fail("out_heads must be at least 1, got " + std::to_string(out_heads));
    if (!(dropout >= 0 && dropout < 1)) fail("dropout must be in [0, 1), got " + std::to_string(dropout));
    if (!(attn_dropout >= 0 && attn_dropout < 1)) fail("attn_dropout must be in [0, 1), got " + std::to_string(attn_dropout));
    if (!(negative_slope >= 0)) fail("negative_slope must be >= 0, got " + std::to_string(negative_slope));
}

Model::Model(const ModelConfig& config, std::uint64_t seed) : config_(config) {
    config_.validate();
    Rng rng(seed);
    Eigen::Index in = config_.in_features;
    for (int l = 0; l < config_.layers; ++l) {
        const bool last = l + 1 == config_.layers;
        GatConvOptions o{.in = in,
                         .out = last ? config_.num_classes : config_.hidden,
                         .heads = last ? config_.out_heads : config_.heads,
                         .concat = !last,
                         .negative_slope = config_.negative_slope,
                         .dropout = config_.attn_dropout,
                         .input_dropout = config_.dropout,
                         .add_self_loops = config_.add_self_loops,
                         .bias = true,
                         .residual = config_.residual};
        layers_.emplace_back(o, rng, "layers." + std::to_string(l));
        in = layers_.back().out_width();
    }
    caches_.resize(layers_.size());
    pre_activation_.resize(layers_.size());
}

Matrix Model::forward(const Graph& graph, const Matrix& x, bool training, Rng* rng) {
    Matrix h = x;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        Matrix z = layers_[l].forward(graph, h, caches_[l], training, rng);
        if (l + 1 == layers_.size()) return z;
        h = activation_forward(config_.activation, z);
        pre_activation_[l] = std::move(z);
    }
    return h;
}

void Model::backward(const Matrix& dlogits) {
    Matrix d = dlogits;
    for (std::size_t l = layers_.size(); l-- > 0;) {
        if (l + 1 < layers_.size()) d = activation_backward(config_.activation, pre_activation_[l], d);
        // The first layer's input is data, not a parameter: skip its gradient.
        d = layers_[l].backward(d, caches_[l], /*need_dx=*/l > 0);
    }
}

ParameterList<float> Model::parameters() {
    ParameterList<float> out;
    for (auto& layer : layers_) layer.parameters(out);
    return out;
}

std::size_t Model::parameter_count() { return count_values(parameters()); }

}  // namespace gatkit
