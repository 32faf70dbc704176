// Gatv2Conv — the GATv2 layer of Brody, Alon and Yahav, "How Attentive are Graph Attention
// Networks?", ICLR 2022 (PyTorch Geometric: torch_geometric.nn.GATv2Conv, same option names and
// defaults; input_dropout as in GatConv).
//
// For destination i, head h, over the incoming neighbours j ∈ S(i) (plus i itself when
// add_self_loops):
//
//   x'      = dropout(x, input_dropout)                        N×F
//   x_s     = x'·W_s + b_s                                     N×(H·C)  source side (PyG lin_l)
//   x_d     = x'·W_d + b_d                                     N×(H·C)  destination side (PyG lin_r;
//                                                                       = x_s when share_weights)
//   z_ijh   = x_s,jh + x_d,ih [+ (e_ij · W_e)_h]               C per head (edge term when edge_dim > 0)
//   s_ijh   = a[h]ᵀ LeakyReLU(z_ijh, negative_slope)
//   α_ijh   = softmax_{j ∈ S(i)} s_ijh                         (row max subtracted first)
//   out_ih  = Σ_j dropout(α_ijh, dropout) · x_s,jh             C per head
//   out_i   = concat ? [out_i1 ‖ … ‖ out_iH] : mean_h out_ih    (+ x'·W_res if residual) (+ b)
//
// Unlike GatConv, the nonlinearity sits between the two projections and a, so the ranking of the
// neighbours j can depend on the query i ("dynamic" attention); GAT's is the same for every i.
//
// Shapes: x N×F; out N×(H·C) when concat, else N×C. The graph is the kernel CSR (graph.hpp).
// Parameters (names as PyG's state dict; weights stored input-major, F×out, as in linear.hpp):
//   <name>.lin_l.weight F×(H·C), <name>.lin_l.bias 1×(H·C)      (bias only when bias)
//   <name>.lin_r.weight, <name>.lin_r.bias                       (absent when share_weights)
//   <name>.att H×C, <name>.lin_edge.weight D×(H·C) (no bias), <name>.res.weight F×out_width,
//   <name>.bias 1×out_width.
// As in PyG, `bias` switches all three biases (lin_l, lin_r, output) together; lin_l/lin_r
// biases start uniform in ±1/√F (PyG's Linear), the output bias at 0, weights Glorot.
//
// Cost: O(N·F·H·C) for the projections (O(nnz·H·C) on a sparse input), O(E·H·C) for the edge passes
// (forward, and twice in backward), plus O(E·D·H·C) with edge features. Extra memory O(E·H) for α:
// the LeakyReLU argument z_ijh is per edge *and* channel, so it is never stored (no E×H×C tensor)
// but recomputed edge by edge in backward; so is the edge projection e_ij · W_e (from the E×D
// attributes). Backward adds O(E·H) for the score gradients and fixed-chunk partial sums of the a
// and W_e gradients (at most 256 chunks of H·C·(1 + D) values). Attention dropout keeps O(E·H)
// multipliers from forward to backward.
//
// Edge features (PyG edge_dim): edge_attr is E×D, row = edge id of the graph passed to forward
// (for a GraphBatch, the graphs' edge rows stacked in batch order). With add_self_loops, the
// added loop of node i carries the mean of the attributes of i's incoming edges other than
// self-loops (PyG fill_value = "mean"), zeros when it has none.
//
// A node with no incoming edge (possible only with add_self_loops = false) attends to nothing:
// its attention output is 0, so out_i = bias (+ residual). Never NaN.
//
// Kernels: forward runs in parallel over destination rows. Backward runs over destination rows
// (softmax backward; gradients of x_d, a and W_e), then over source rows of the transposed CSR
// (gradient of x_s through the values and through the scores), writing disjoint rows, without
// atomics. The sums over all edges (a, W_e) go to partials of fixed destination-row chunks cut
// from the graph alone, added in chunk order; dropout masks are counter-based (random.hpp). So
// outputs and gradients are bitwise the same for any number of threads.
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/nn/dropout.hpp"
#include "gatkit/nn/layer_input.hpp"

#include <string>

namespace gatkit {

struct Gatv2ConvOptions {
    Eigen::Index in = 0;          // F, input features
    Eigen::Index out = 0;         // C, channels per head
    Eigen::Index heads = 1;       // H
    bool concat = true;           // concatenate heads, else average them
    double negative_slope = 0.2;  // LeakyReLU slope inside the score
    double dropout = 0.0;         // dropout on the attention coefficients α
    double input_dropout = 0.0;   // dropout on the input features x
    bool add_self_loops = true;   // remove existing self-loops, add one per node
    bool bias = true;             // b_s, b_d and the output bias
    bool residual = false;        // add x'·W_res (no bias), W_res F×out_width
    Eigen::Index edge_dim = 0;    // D, edge feature width; 0 = no edge features
    bool share_weights = false;   // W_d = W_s and b_d = b_s (one lin_l, no lin_r)
};

template <class T>
struct Gatv2ConvCache {
    const Graph* graph = nullptr;  // the graph attention ran on (self-looped when asked)
    LayerInputT<T> input;          // N×F input after input dropout, dense or sparse (layer_input.hpp)
    MatrixT<T> x_src;              // N×(H·C) x'·W_s + b_s
    MatrixT<T> x_dst;              // N×(H·C) x'·W_d + b_d; empty when share_weights (then x_src)
    MatrixT<T> alpha;              // E×H  attention coefficients before attention dropout
    MatrixT<T> attn_mult;          // E×H  with attention dropout: α's multipliers, 1/(1−p) or 0 (dropout.hpp)
    MatrixT<T> edge_attr;          // E×D  attributes of cache.graph's edges (loops: the mean), edge_dim > 0 only
    DropoutCache attn_drop;
};

template <class T>
class Gatv2ConvT {
public:
    Gatv2ConvT(const Gatv2ConvOptions& options, Rng& rng, const std::string& name = "gatv2_conv");

    Eigen::Index out_width() const { return options_.concat ? options_.heads * options_.out : options_.out; }

    // rng is needed only when training with dropout. edge_attr (E×D, E = graph.num_edges()) is
    // required when edge_dim > 0 and must be null otherwise.
    MatrixT<T> forward(const Graph& graph, const MatrixT<T>& x, Gatv2ConvCache<T>& cache, bool training, Rng* rng = nullptr,
                       const MatrixT<T>* edge_attr = nullptr) const;
    // The same on a sparse input (core/sparse.hpp), which must outlive backward: the projections
    // and their weight gradients run over the stored entries, input dropout on them only (the
    // mask the dense form gets). Training with input dropout needs x's column index.
    MatrixT<T> forward(const Graph& graph, const SparseRowsT<T>& x, Gatv2ConvCache<T>& cache, bool training, Rng* rng = nullptr,
                       const MatrixT<T>* edge_attr = nullptr) const;
    // Accumulates parameter gradients (lin_edge too; no gradient for edge_attr); returns dx
    // (empty when need_dx is false).
    MatrixT<T> backward(const MatrixT<T>& dout, const Gatv2ConvCache<T>& cache, bool need_dx = true);

    void parameters(ParameterList<T>& out);
    const Gatv2ConvOptions& options() const { return options_; }
    const std::string& name() const { return name_; }

    // W_s, b_s (PyG lin_l) and W_d, b_d (PyG lin_r). With share_weights the lin_r parameters are
    // empty (0×0) and unused: W_d is lin_l_weight(), b_d is lin_l_bias().
    ParameterT<T>& lin_l_weight() { return lin_l_weight_; }
    ParameterT<T>& lin_l_bias() { return lin_l_bias_; }
    ParameterT<T>& lin_r_weight() { return lin_r_weight_; }
    ParameterT<T>& lin_r_bias() { return lin_r_bias_; }
    ParameterT<T>& att() { return att_; }
    ParameterT<T>& lin_edge() { return lin_edge_; }
    ParameterT<T>& res_weight() { return res_weight_; }
    ParameterT<T>& bias() { return bias_; }

private:
    // forward on the dense input x or the sparse one x_sparse (exactly one non-null).
    MatrixT<T> forward_input(const Graph& graph, const MatrixT<T>* x, const SparseRowsT<T>* x_sparse, Gatv2ConvCache<T>& cache,
                             bool training, Rng* rng, const MatrixT<T>* edge_attr) const;
    // Fills cache.edge_attr with the attributes of g's edges (g is graph or its self-looped version).
    void loop_edge_attr(const Graph& graph, const Graph& g, const MatrixT<T>& edge_attr, Gatv2ConvCache<T>& cache) const;

    Gatv2ConvOptions options_;
    std::string name_;
    ParameterT<T> lin_l_weight_;  // F×(H·C)
    ParameterT<T> lin_l_bias_;    // 1×(H·C) (0×0 without bias)
    ParameterT<T> lin_r_weight_;  // F×(H·C) (0×0 with share_weights)
    ParameterT<T> lin_r_bias_;    // 1×(H·C) (0×0 without bias or with share_weights)
    ParameterT<T> att_;           // H×C
    ParameterT<T> lin_edge_;      // D×(H·C), no bias (0×0 without edge features)
    ParameterT<T> res_weight_;    // F×out_width (0×0 without residual)
    ParameterT<T> bias_;          // 1×out_width (0×0 without bias)
};

using Gatv2Conv = Gatv2ConvT<float>;

}  // namespace gatkit
