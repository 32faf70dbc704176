#include "gatkit/model/model.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/model/link_model.hpp"

namespace gatkit {

void ModelConfig::validate() const {
    auto fail = [](const std::string& what) { throw ConfigError("model config: " + what); };
    if (task != "node" && task != "graph" && task != "link" && task != "edge")
        fail("task '" + task + "' is not supported by this version (supported: node, graph, link, edge)");
    if (conv != "gat") fail("conv '" + conv + "' is not supported by this version (supported: gat)");
    if (in_features <= 0) fail("in_features must be positive, got " + std::to_string(in_features));
    if ((task == "node" || task == "edge") && num_classes < 2) fail("need at least 2 classes, got " + std::to_string(num_classes));
    if (task == "graph" && num_classes < 1) fail("need at least 1 output, got " + std::to_string(num_classes));
    if (layers < 1) fail("layers must be at least 1, got " + std::to_string(layers));
    if (heads < 1) fail("heads must be at least 1, got " + std::to_string(heads));
    if (hidden < 1) fail("hidden must be at least 1, got " + std::to_string(hidden));
    if (out_heads < 1) fail("out_heads must be at least 1, got " + std::to_string(out_heads));
    if (!(dropout >= 0 && dropout < 1)) fail("dropout must be in [0, 1), got " + std::to_string(dropout));
    if (!(attn_dropout >= 0 && attn_dropout < 1)) fail("attn_dropout must be in [0, 1), got " + std::to_string(attn_dropout));
    if (!(mlp_dropout >= 0 && mlp_dropout < 1)) fail("mlp_dropout must be in [0, 1), got " + std::to_string(mlp_dropout));
    if (!(negative_slope >= 0)) fail("negative_slope must be >= 0, got " + std::to_string(negative_slope));
    if (edge_dim < 0) fail("edge_dim must be >= 0, got " + std::to_string(edge_dim));
    if (task == "link" || task == "edge") {
        parse_node_input(node_input);
        if (task == "link") parse_link_decoder(decoder);
        if (out_channels < 1) fail("out_channels must be at least 1, got " + std::to_string(out_channels));
        if (mlp_hidden < 1) fail("mlp_hidden must be at least 1, got " + std::to_string(mlp_hidden));
    }
    if (task == "graph") {
        parse_readout(readout);
        if (mlp_hidden < 1) fail("mlp_hidden must be at least 1, got " + std::to_string(mlp_hidden));
        if (target_type != "binary" && target_type != "multiclass" && target_type != "regression")
            fail("target_type '" + target_type + "' (expected binary, multiclass or regression)");
    }
}

Model::Model(const ModelConfig& config, std::uint64_t seed) : config_(config) {
    config_.validate();
    if (config_.task != "node" && config_.task != "graph")
        throw ConfigError("model: a " + config_.task + " model is a LinkModel (link_model.hpp), not a Model");
    Rng rng(seed);
    const bool graph_task = config_.task == "graph";
    Eigen::Index in = config_.in_features;
    for (int l = 0; l < config_.layers; ++l) {
        const bool output_layer = !graph_task && l + 1 == config_.layers;
        GatConvOptions o{.in = in,
                         .out = output_layer ? config_.num_classes : config_.hidden,
                         .heads = output_layer ? config_.out_heads : config_.heads,
                         .concat = !output_layer,
                         .negative_slope = config_.negative_slope,
                         .dropout = config_.attn_dropout,
                         .input_dropout = config_.dropout,
                         .add_self_loops = config_.add_self_loops,
                         .bias = true,
                         .residual = config_.residual,
                         .edge_dim = graph_task ? config_.edge_dim : 0};
        layers_.emplace_back(o, rng, "layers." + std::to_string(l));
        in = layers_.back().out_width();
    }
    caches_.resize(layers_.size());
    pre_activation_.resize(layers_.size());
    if (graph_task) {
        pool_ = std::make_unique<GraphPoolT<float>>(parse_readout(config_.readout), in, rng, "pool");
        head_ = std::make_unique<MlpT<float>>(MlpOptions{.in = in, .hidden = config_.mlp_hidden, .out = config_.num_classes,
                                                         .dropout = config_.mlp_dropout},
                                              rng, "head");
    }
}

Matrix Model::forward(const Graph& graph, const Matrix& x, bool training, Rng* rng) {
    if (config_.task != "node") throw ConfigError("model: a " + config_.task + " model needs a batch of graphs, not one node graph");
    last_was_graph_ = false;
    Matrix h = x;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        Matrix z = layers_[l].forward(graph, h, caches_[l], training, rng);
        if (l + 1 == layers_.size()) return z;
        h = activation_forward(config_.activation, z);
        pre_activation_[l] = std::move(z);
    }
    return h;
}

Matrix Model::forward(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, bool training, Rng* rng) {
    if (config_.task != "graph") throw ConfigError("model: a " + config_.task + " model predicts nodes, not graphs");
    last_was_graph_ = true;
    Matrix h = x;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        Matrix z = layers_[l].forward(batch.graph, h, caches_[l], training, rng, config_.edge_dim > 0 ? edge_attr : nullptr);
        h = activation_forward(config_.activation, z);
        pre_activation_[l] = std::move(z);
    }
    pooled_ = pool_->forward(batch.graph_offsets, h, pool_cache_);
    return head_->forward(pooled_, head_cache_, training, rng);
}

void Model::backward(const Matrix& dout) {
    Matrix d = dout;
    if (last_was_graph_) {
        d = head_->backward(d, head_cache_);
        d = pool_->backward(d, pool_cache_);
    }
    for (std::size_t l = layers_.size(); l-- > 0;) {
        if (last_was_graph_ || l + 1 < layers_.size()) d = activation_backward(config_.activation, pre_activation_[l], d);
        // The first layer's input is data, not a parameter: skip its gradient.
        d = layers_[l].backward(d, caches_[l], /*need_dx=*/l > 0);
    }
}

ParameterList<float> Model::parameters() {
    ParameterList<float> out;
    for (auto& layer : layers_) layer.parameters(out);
    if (pool_) pool_->parameters(out);
    if (head_) head_->parameters(out);
    return out;
}

std::size_t Model::parameter_count() { return count_values(parameters()); }

}  // namespace gatkit
