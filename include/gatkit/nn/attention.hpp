// The attention family under one interface (ARCHITECTURE §4): GatConv, Gatv2Conv and
// DotAttentionConv behind one abstract layer, so models choose the kind with `--conv` and run
// it on any mask graph (edges, khop:K, full; masks.hpp).
//
// An AttentionLayer keeps the cache of its last forward itself (one forward, then one backward),
// which is what a model composed of several layers needs; the templated layers underneath keep
// their explicit-cache API for tests in double precision.
//
// A transformer block (block = "transformer") wraps any of them as
//   h  = LayerNorm(P x + Attn(x))             P = identity, or a bias-free Linear when widths differ
//   y  = LayerNorm(h + W2 · dropout(ReLU(W1 · h)))     W1: width → 2·width, W2: 2·width → width
// (attention → residual → LayerNorm → feed-forward of 2 layers → residual → LayerNorm).
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/nn/activation.hpp"

#include <memory>
#include <string>

namespace gatkit {

struct AttentionOptions {
    std::string conv = "gat";     // gat | gatv2 | transformer (dot-product)
    Eigen::Index in = 0, out = 0, heads = 1;
    bool concat = true;
    double negative_slope = 0.2;  // gat, gatv2
    double dropout = 0.0;         // on attention coefficients
    double input_dropout = 0.0;   // on the layer input
    bool add_self_loops = true;   // i attends to itself too
    bool bias = true;
    bool residual = false;        // gat, gatv2: + x W_res
    Eigen::Index edge_dim = 0;
    bool share_weights = false;   // gatv2
    bool root_weight = true;      // transformer: + W_r x_i
    bool beta = false;            // transformer: gated skip
    std::string block = "plain";  // plain | transformer
    double ffn_dropout = 0.0;     // transformer block: dropout inside the feed-forward part
    bool distinct_rows = false;   // gat: input products on the distinct rows (GatConvOptions)
};

// "gat" | "gatv2" | "transformer"; anything else: ConfigError listing them.
void check_conv_name(const std::string& conv);

class AttentionLayer {
public:
    virtual ~AttentionLayer() = default;
    virtual Eigen::Index out_width() const = 0;
    // x N×in on `graph` (the mask: incoming rows = whom each node attends to); edge_attr E×D
    // rows = edge ids of `graph` (null when edge_dim = 0). Keeps what backward needs.
    virtual Matrix forward(const Graph& graph, const Matrix& x, bool training, Rng* rng, const Matrix* edge_attr) = 0;
    // The same on a sparse input (core/sparse.hpp), which must outlive backward. The three
    // convs run it natively (O(nnz) input products and dropout); a transformer block densifies it.
    virtual Matrix forward(const Graph& graph, const SparseRows& x, bool training, Rng* rng, const Matrix* edge_attr) {
        return forward(graph, x.to_dense(), training, rng, edge_attr);
    }
    // Whether the sparse forward runs on the stored entries (true) or densifies (false).
    virtual bool takes_sparse() const { return false; }
    // Inference only: act(forward(graph, x, training = false)), the same bits. A layer that can
    // (gat) keeps nothing for backward then, and backward after it throws; the others run
    // forward and the activation.
    virtual Matrix infer(const Graph& graph, const Matrix& x, const Matrix* edge_attr, Activation act) {
        return activation_forward(act, forward(graph, x, false, nullptr, edge_attr));
    }
    virtual Matrix infer(const Graph& graph, const SparseRows& x, const Matrix* edge_attr, Activation act) {
        return activation_forward(act, forward(graph, x, false, nullptr, edge_attr));
    }
    // Accumulates parameter gradients of the last forward; returns dx (empty when !need_dx).
    virtual Matrix backward(const Matrix& dout, bool need_dx) = 0;
    virtual void parameters(ParameterList<float>& out) = 0;
    // Attention coefficients α (E×H, before attention dropout) of the last forward, on the graph
    // attention actually ran on (self-loops added when asked).
    virtual const Matrix& attention() const = 0;
    virtual const Graph& attention_graph() const = 0;
    // A copy with the same parameters and no forward pass yet (fresh caches).
    virtual std::unique_ptr<AttentionLayer> clone() const = 0;
};

std::unique_ptr<AttentionLayer> make_attention_layer(const AttentionOptions& options, Rng& rng, const std::string& name);

}  // namespace gatkit
