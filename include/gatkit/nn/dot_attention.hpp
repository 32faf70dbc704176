// DotAttentionConv — the Transformer form of graph attention: scaled dot-product attention
// masked by the graph. Shi et al., "Masked Label Prediction: Unified Message Passing Model for
// Semi-Supervised Classification", IJCAI 2021 (PyTorch Geometric: torch_geometric.nn.TransformerConv,
// same option names, defaults and parameter names).
//
// For destination i, head h, over S(i) = the incoming neighbours j of i in the graph passed in
// (plus i itself when add_self_loops). The caller builds that graph as the mask: edges, k-hop or
// full (masks.hpp).
//
//   x'      = dropout(x, input_dropout)                          N×F
//   q_i     = x'_i W_q + b_q,  k_j = x'_j W_k + b_k,  v_j = x'_j W_v + b_v      N×(H·C) each,
//             head h in columns h·C .. h·C+C
//   ê_ij    = e_ij W_e                                            H·C, edge_dim > 0 only (no bias)
//   key_ij  = k_j [+ ê_ij],  val_ij = v_j [+ ê_ij]               (PyG adds ê to key and value)
//   s_ijh   = q_ihᵀ key_ijh / √C
//   α_ijh   = softmax_{j ∈ S(i)} s_ijh                            (row max subtracted first)
//   a_ih    = Σ_j dropout(α_ijh, dropout) · val_ijh               C per head
//   a_i     = concat ? [a_i1 ‖ … ‖ a_iH] : mean_h a_ih            width W = H·C or C
//   r_i     = x'_i W_r + b_r                                      W, root_weight only
//   out_i   = a_i + r_i                                           root_weight, no beta
//   out_i   = β_i r_i + (1 − β_i) a_i,  β_i = sigmoid([a_i ‖ r_i ‖ a_i − r_i] · w_β)   root_weight and beta
//   out_i   = a_i                                                 without root_weight
//
// As in PyG, beta acts only together with root_weight (PyG: self.beta = beta and root_weight):
// with root_weight = false the beta option is ignored and lin_beta does not exist.
//
// Shapes: x N×F; edge_attr E×D (row = edge id of the graph passed in; for a GraphBatch the
// graphs' edge rows stacked in batch order); out N×W.
// Parameters (names as PyG's state dict; weights stored input-major, F×out, the transpose of
// torch's): <name>.lin_key.weight F×(H·C) and .bias 1×(H·C), lin_query, lin_value likewise,
// lin_edge.weight D×(H·C), lin_skip.weight F×W and .bias 1×W, lin_beta.weight 3W×1.
// Biases of lin_key/query/value/skip exist when bias = true; they start at zero, weights Glorot.
//
// Cost: O(N·F·H·C) for the projections (O(nnz·H·C) on a sparse input); O(E·H·C) for the edge
// passes. With edge features add O(E·H·D + N·H·D·C): ê_ij is linear in e_ij, so it is never formed
// per edge; scores use e_ij · (W_e,h q_ihᵀ) and outputs (Σ_j α'_ijh e_ij) W_e,h, and backward
// re-runs these sums from the cached E×D attributes instead of caching an E×H×C tensor. Extra
// memory: O(E·H) for α, O(E·D) for the edge attributes, O(N·H·C) node tensors (and O(N·H·D) in
// backward), and with attention dropout O(E·H) for its multipliers.
//
// With add_self_loops, existing self-loops are replaced by one per node, and the added loop of
// node i carries the mean of the attributes of i's incoming non-loop edges (PyG fill_value
// "mean"), zeros when it has none.
//
// A node with no incoming edge (S(i) empty) attends to nothing: its attention output a_i is 0,
// so out_i = r_i with root_weight (with beta too: β_i r_i + (1 − β_i)·0), else 0. Never NaN; its
// α row is empty and it gets no gradient through attention.
//
// Kernels: forward runs in parallel over destination rows. Backward runs over destination rows
// (softmax backward, dq, and per-node sums for the lin_edge gradient), then over source rows of
// the transposed CSR (dk, dv) without atomics. Every reduction runs in a fixed order and dropout
// masks are counter-based (random.hpp), so results are bitwise identical for any thread count.
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/nn/dropout.hpp"
#include "gatkit/nn/layer_input.hpp"

#include <string>

namespace gatkit {

struct DotAttentionOptions {
    Eigen::Index in = 0;          // F, input features
    Eigen::Index out = 0;         // C, channels per head
    Eigen::Index heads = 1;       // H
    bool concat = true;           // concatenate heads, else average them
    bool beta = false;            // gated skip connection (needs root_weight, as in PyG)
    double dropout = 0.0;         // dropout on the attention coefficients α
    double input_dropout = 0.0;   // dropout on the input features x (gatkit extra, as GatConvOptions)
    Eigen::Index edge_dim = 0;    // D, edge feature width; 0 = no edge features
    bool bias = true;             // biases of lin_query/key/value/skip
    bool root_weight = true;      // add the skip projection x'·W_r + b_r
    bool add_self_loops = false;  // PyG TransformerConv adds none; remove existing, add one per node
};

template <class T>
struct DotAttentionCache {
    const Graph* graph = nullptr;  // the graph attention ran on (self-looped when asked)
    LayerInputT<T> input;          // N×F input after input dropout, dense or sparse (layer_input.hpp)
    MatrixT<T> query;              // N×(H·C)
    MatrixT<T> key;                // N×(H·C)  without the edge term
    MatrixT<T> value;              // N×(H·C)  without the edge term
    MatrixT<T> alpha;              // E×H  attention coefficients before attention dropout
    MatrixT<T> attn_mult;          // E×H  with attention dropout: α's multipliers, 1/(1−p) or 0 (dropout.hpp)
    MatrixT<T> edge_attr;          // E×D  attributes of cache.graph's edges (loops: the mean), edge_dim > 0 only
    MatrixT<T> attn;               // N×W  attention output a, with beta only
    MatrixT<T> root;               // N×W  r = x'·W_r + b_r, with beta only
    MatrixT<T> beta;               // N×1  β, with beta only
    DropoutCache attn_drop;
};

template <class T>
class DotAttentionConvT {
public:
    DotAttentionConvT(const DotAttentionOptions& options, Rng& rng, const std::string& name = "dot_attention");

    Eigen::Index out_width() const { return options_.concat ? options_.heads * options_.out : options_.out; }
    // beta in effect: beta and root_weight (PyG).
    bool uses_beta() const { return options_.beta && options_.root_weight; }

    // rng is needed only when training with dropout. edge_attr (E×D, E = graph.num_edges()) is
    // required when edge_dim > 0 and must be null otherwise.
    MatrixT<T> forward(const Graph& graph, const MatrixT<T>& x, DotAttentionCache<T>& cache, bool training, Rng* rng = nullptr,
                       const MatrixT<T>* edge_attr = nullptr) const;
    // The same on a sparse input (core/sparse.hpp), which must outlive backward: the projections
    // and their weight gradients run over the stored entries, input dropout on them only (the
    // mask the dense form gets). Training with input dropout needs x's column index.
    MatrixT<T> forward(const Graph& graph, const SparseRowsT<T>& x, DotAttentionCache<T>& cache, bool training, Rng* rng = nullptr,
                       const MatrixT<T>* edge_attr = nullptr) const;
    // Accumulates parameter gradients (lin_edge too; no gradient for edge_attr); returns dx
    // (empty when need_dx is false).
    MatrixT<T> backward(const MatrixT<T>& dout, const DotAttentionCache<T>& cache, bool need_dx = true);

    void parameters(ParameterList<T>& out);
    const DotAttentionOptions& options() const { return options_; }
    const std::string& name() const { return name_; }

    ParameterT<T>& lin_key_weight() { return key_weight_; }
    ParameterT<T>& lin_key_bias() { return key_bias_; }
    ParameterT<T>& lin_query_weight() { return query_weight_; }
    ParameterT<T>& lin_query_bias() { return query_bias_; }
    ParameterT<T>& lin_value_weight() { return value_weight_; }
    ParameterT<T>& lin_value_bias() { return value_bias_; }
    ParameterT<T>& lin_edge_weight() { return edge_weight_; }
    ParameterT<T>& lin_skip_weight() { return skip_weight_; }
    ParameterT<T>& lin_skip_bias() { return skip_bias_; }
    ParameterT<T>& lin_beta_weight() { return beta_weight_; }

private:
    // forward on the dense input x or the sparse one x_sparse (exactly one non-null).
    MatrixT<T> forward_input(const Graph& graph, const MatrixT<T>* x, const SparseRowsT<T>* x_sparse, DotAttentionCache<T>& cache,
                             bool training, Rng* rng, const MatrixT<T>* edge_attr) const;

    DotAttentionOptions options_;
    std::string name_;
    ParameterT<T> key_weight_;    // F×(H·C)
    ParameterT<T> key_bias_;      // 1×(H·C) (0×0 without bias)
    ParameterT<T> query_weight_;  // F×(H·C)
    ParameterT<T> query_bias_;    // 1×(H·C) (0×0 without bias)
    ParameterT<T> value_weight_;  // F×(H·C)
    ParameterT<T> value_bias_;    // 1×(H·C) (0×0 without bias)
    ParameterT<T> edge_weight_;   // D×(H·C), no bias (0×0 without edge features)
    ParameterT<T> skip_weight_;   // F×W (0×0 without root_weight)
    ParameterT<T> skip_bias_;     // 1×W (0×0 without root_weight or bias)
    ParameterT<T> beta_weight_;   // 3W×1 (0×0 unless beta and root_weight)
};

using DotAttentionConv = DotAttentionConvT<float>;

}  // namespace gatkit
