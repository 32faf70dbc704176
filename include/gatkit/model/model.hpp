// A node model: a stack of graph-attention layers whose last layer emits class scores, as in
// the GAT paper's transductive model:
//
//   h⁰ = x;  hˡ = act(GatConv_l(dropout(hˡ⁻¹)))  for the hidden layers (heads concatenated)
//   logits = GatConv_L(dropout(hᴸ⁻¹))            (out_heads averaged, K outputs)
//
// forward keeps what backward needs (one cache per layer); backward accumulates the parameter
// gradients of every layer.
#pragma once

#include "gatkit/model/config.hpp"
#include "gatkit/nn/gat_conv.hpp"

#include <vector>

namespace gatkit {

class Model {
public:
    // Builds the layers and initialises their weights from `seed`.
    Model(const ModelConfig& config, std::uint64_t seed);

    // logits N×K. rng is needed only when training (dropout).
    Matrix forward(const Graph& graph, const Matrix& x, bool training, Rng* rng = nullptr);
    // dlogits N×K, the gradient of the loss; accumulates every parameter gradient.
    void backward(const Matrix& dlogits);

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
};

}  // namespace gatkit
