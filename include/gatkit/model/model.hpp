// gatkit's attention models.
//
// Node task (the GAT paper's transductive model):
//   h⁰ = x;  hˡ = act(GatConv_l(dropout(hˡ⁻¹)))  for the hidden layers (heads concatenated)
//   logits = GatConv_L(dropout(hᴸ⁻¹))            (out_heads averaged, K outputs)
//
// Graph task (molecules, TU graphs), on a batch of graphs as one block-diagonal graph:
//   hˡ = act(GatConv_l(dropout(hˡ⁻¹), edge_attr))   for l = 1..L (heads concatenated)
//   g_b = readout_{i ∈ graph b}(hᴸ_i)               (mean | sum | max | attention)
//   out = MLP(g)                                    (B×T logits or values)
//
// forward keeps what backward needs (one cache per layer); backward accumulates the parameter
// gradients of every layer.
#pragma once

#include "gatkit/graph/batch.hpp"
#include "gatkit/model/config.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/nn/mlp.hpp"
#include "gatkit/nn/readout.hpp"

#include <memory>
#include <vector>

namespace gatkit {

class Model {
public:
    // Builds the layers and initialises their weights from `seed`.
    Model(const ModelConfig& config, std::uint64_t seed);

    // Node task: logits N×K. rng is needed only when training (dropout).
    Matrix forward(const Graph& graph, const Matrix& x, bool training, Rng* rng = nullptr);
    // Graph task: B×T outputs for a batch; edge_attr E×edge_dim (nullptr when edge_dim = 0).
    Matrix forward(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, bool training, Rng* rng = nullptr);
    // The gradient of the loss with respect to the last forward's output; accumulates every
    // parameter gradient.
    void backward(const Matrix& dout);

    // Graph task: the pooled graph vectors (B×C) of the last forward (embeddings).
    const Matrix& graph_embeddings() const { return pooled_; }

    ParameterList<float> parameters();
    std::size_t parameter_count();

    const ModelConfig& config() const { return config_; }
    ModelInfo& info() { return info_; }
    const ModelInfo& info() const { return info_; }
    const std::vector<GatConv>& layers() const { return layers_; }
    // Attention coefficients α (E×H) of layer l from the last forward, on that layer's graph.
    const GatConvCache<float>& cache(std::size_t layer) const { return caches_.at(layer); }

private:
    ModelConfig config_;
    ModelInfo info_;
    std::vector<GatConv> layers_;
    std::vector<GatConvCache<float>> caches_;
    std::vector<Matrix> pre_activation_;  // input of each hidden activation
    std::unique_ptr<GraphPoolT<float>> pool_;
    std::unique_ptr<MlpT<float>> head_;
    GraphPoolCache<float> pool_cache_;
    MlpCache<float> head_cache_;
    Matrix pooled_;
    bool last_was_graph_ = false;
};

}  // namespace gatkit
