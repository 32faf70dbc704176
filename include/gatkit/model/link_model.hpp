// The link and edge models: attention layers encode every node of a network, a pair decoder
// scores node pairs.
//
//   h⁰ = x  (node features, structural features, or a learned embedding table E, N×D)
//   hˡ = act(Attn_l(dropout(hˡ⁻¹)))        l = 1..L-1   (heads concatenated)
//   z  = Attn_L(dropout(hᴸ⁻¹))             out_heads averaged, out_channels wide (no activation)
// Attn is config.conv (gat | gatv2 | transformer), optionally in transformer blocks (hidden
// layers), on the config.mask graph of the network (edges | khop:K | full).
//   link:  s_uv = decoder(z_u, z_v)        dot | hadamard-mlp, one logit per pair
//   edge:  y_uv = MLP([z_u ‖ z_v ‖ z_u ⊙ z_v])   K class logits per pair
//
// (The PyTorch reference torch_link_pred.py is L = 2: GatConv(in, 32, heads 4) → ELU →
// GatConv(128, 64, heads 1, mean) → dot.)
//
// After training, the model also keeps what prediction needs without the data: the final node
// vectors z (eval mode) and the known edges of the network, so `gatkit predict` scores pairs and
// recommends non-neighbours from the model file alone.
#pragma once

#include "gatkit/model/config.hpp"
#include "gatkit/nn/decoder.hpp"
#include "gatkit/nn/attention.hpp"
#include "gatkit/nn/masks.hpp"

#include <optional>
#include <vector>

namespace gatkit {

// "features" | "degree" | "lap:K" | "embedding:D", parsed.
struct NodeInputSpec {
    std::string kind = "features";  // features | degree | lap | embedding
    int size = 0;                   // K or D
};
NodeInputSpec parse_node_input(const std::string& text);  // ConfigError on anything else

class LinkModel {
public:
    // config.task is "link" or "edge"; config.in_features is the width of x (D for an embedding input).
    LinkModel(const ModelConfig& config, std::uint64_t seed);

    // Encodes every node: z N×out_channels. x is N×in_features; with an embedding input pass an empty
    // matrix (the table is the input). rng is needed only when training with dropout.
    const Matrix& encode(const Graph& graph, const Matrix& x, bool training, Rng* rng = nullptr);
    // Logits of `pairs` on the last encode's z: P×1 (link) or P×K (edge).
    Matrix decode(const std::vector<NodePair>& pairs, bool training, Rng* rng = nullptr);
    // Gradient of the loss w.r.t. the last decode's logits: accumulates every parameter gradient
    // (decoder, attention layers, embedding table).
    void backward(const Matrix& dlogits);
    // Logits of pairs from given node vectors (prediction from stored vectors; no training state).
    Matrix decode_with(const Matrix& z, const std::vector<NodePair>& pairs) const;

    const Matrix& last_z() const { return z_; }
    ParameterList<float> parameters();
    std::size_t parameter_count();
    const ModelConfig& config() const { return config_; }
    ModelInfo& info() { return info_; }
    const ModelInfo& info() const { return info_; }
    bool has_embedding_table() const { return embedding_.has_value(); }
    std::size_t num_layers() const { return layers_.size(); }
    const AttentionLayer& layer(std::size_t l) const { return *layers_.at(l); }

    // Kept for prediction (saved in the model file).
    Matrix node_vectors;                  // N×out_channels, eval-mode z of the trained model
    std::vector<NodePair> known_edges;    // every edge of the network (undirected: once, u < v)

private:
    ModelConfig config_;
    ModelInfo info_;
    std::optional<Parameter> embedding_;  // "embedding.weight" N×D
    std::vector<std::unique_ptr<AttentionLayer>> layers_;
    std::shared_ptr<const void> mask_of_;  // the graph the cached mask was built for
    AttentionMask mask_;
    std::vector<Matrix> pre_activation_;
    std::optional<PairDecoder> decoder_;
    PairDecoderCache<float> decoder_cache_;
    Matrix z_;
};

}  // namespace gatkit
