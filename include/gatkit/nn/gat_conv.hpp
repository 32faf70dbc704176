// GatConv — graph attention layer of Veličković et al., "Graph Attention Networks", ICLR 2018
// (PyTorch Geometric: torch_geometric.nn.GATConv, same option names and defaults).
//
// For destination i, head h, over the incoming neighbours j ∈ S(i) (plus i itself when
// add_self_loops):
//
//   x'      = dropout(x, input_dropout)                      N×F
//   xw      = x' · W                                         N×(H·C), head h in columns h·C .. h·C+C
//   z_ijh   = a_src[h]ᵀ xw_jh + a_dst[h]ᵀ xw_ih [+ a_edge[h]ᵀ (e_ij · W_e)_h]   (edge term when edge_dim > 0)
//   e_ijh   = LeakyReLU(z_ijh, negative_slope)
//   α_ijh   = softmax_{j ∈ S(i)} e_ijh                       (row max subtracted first)
//   out_ih  = Σ_j dropout(α_ijh, dropout) · xw_jh            C per head
//   out_i   = concat ? [out_i1 ‖ … ‖ out_iH] : mean_h out_ih   (+ x'·W_res if residual) (+ b)
//
// Shapes: x N×F; out N×(H·C) when concat, else N×C. The graph is the kernel CSR (graph.hpp).
// Cost: O(N·F·H·C) for the projection, O(E·H·C) for the edge passes; extra memory O(E·H) for
// α (per-edge scores only, never a per-edge message tensor E×H×C).
//
// Edge features (PyG edge_dim): edge_attr is E×D, row = edge id of the graph passed to forward
// (for a GraphBatch, the graphs' edge rows stacked in batch order). W_e is D×(H·C), a_edge H×C.
// The edge term is linear in e_ij, so it is computed as e_ij · v_h with v_h = W_e,h · a_edge[h]
// (D per head): O(E·D·H) time, E×H scores cached, never the E×H×C projection e_ij · W_e.
// With add_self_loops, the added loop of node i carries the mean of the attributes of i's
// incoming edges other than self-loops (PyG fill_value = "mean"), zeros when it has none.
//
// A node with no incoming edge (possible only with add_self_loops = false) attends to nothing:
// its attention output is 0, so out_i = bias (+ residual). Never NaN.
//
// Kernels: forward runs in parallel over destination rows; backward first runs over
// destination rows (softmax backward), then over source rows of the transposed CSR to scatter
// into dxw without atomics. Dropout masks are counter-based (random.hpp), so results do not
// depend on the number of threads.
#pragma once

#include "gatkit/core/distinct_rows.hpp"
#include "gatkit/core/parameter.hpp"
#include "gatkit/nn/activation.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/nn/dropout.hpp"

#include <string>

namespace gatkit {

struct GatConvOptions {
    Eigen::Index in = 0;          // F, input features
    Eigen::Index out = 0;         // C, channels per head
    Eigen::Index heads = 1;       // H
    bool concat = true;           // concatenate heads, else average them
    double negative_slope = 0.2;  // LeakyReLU slope in the score
    double dropout = 0.0;         // dropout on the attention coefficients α
    double input_dropout = 0.0;   // dropout on the input features x
    bool add_self_loops = true;   // remove existing self-loops, add one per node
    bool bias = true;
    bool residual = false;        // add x'·W_res (no bias), W_res F×out_width
    Eigen::Index edge_dim = 0;    // D, edge feature width; 0 = no edge features
    // float, dense input: the input products run on the input's distinct rows only
    // (core/distinct_rows.hpp; x·W with the same bits, the weight gradient with its sums grouped
    // by distinct row), for inputs whose rows often repeat, as the atoms of a batch of molecules
    // do after the first layer. Costs a hash per row where they do not; off under input dropout.
    bool distinct_rows = false;
};

// GatConv<float> runs its row passes with vector kernels (src/nn/gat_simd.hpp) where the build
// targets AVX-512F (L = 16 lanes) or else AVX2 with FMA (L = 8) and the shape fits (1 ≤ H ≤ L,
// concat or one head, H·C ≤ 256, C a multiple of L, a power of two below L, or one head);
// otherwise, and for double, with portable loops. Both compute the same layer, up to float
// rounding. Switching them off (tests compare the two) is not to be done while a layer runs.
void set_gat_simd_kernels(bool on);
bool gat_simd_kernels_used(const GatConvOptions& options);  // for a float layer with these options
int gat_simd_kernel_lanes();  // 16 (AVX-512), 8 (AVX2) or 0 (this build has no vector kernels)
// Where the vector kernels take each edge's source score from: −1 (the default) by the graph's
// size, 1 always from the gathered row of x·W, 0 always from the stored N×H scores. The same
// numbers either way; tests check that.
void set_gat_simd_source_scores(int mode);

template <class T>
struct GatConvCache {
    const Graph* graph = nullptr;  // the graph attention ran on (self-looped when asked)
    MatrixT<T> x;                  // N×F input after input dropout (dense input)
    const MatrixT<T>* x_in = nullptr;  // infer: the caller's dense input, read in place during the call
    bool for_backward = false;     // the last pass was forward (not infer): backward may follow
    const SparseRowsT<T>* x_sparse = nullptr;  // sparse input (the caller's; must outlive backward)
    SparseRowsT<T> x_kept;         // with input dropout: x_sparse's kept entries (drop_entries)
    MatrixT<T> xw;                 // N×(H·C) projected features
    MatrixT<T> a_src;              // N×H  a_src[h]ᵀ xw_jh
    MatrixT<T> a_dst;              // N×H  a_dst[h]ᵀ xw_ih
    MatrixT<T> alpha;              // E×H  attention coefficients before attention dropout
    MatrixT<T> alpha_used;         // E×H  α' = dropout(α) · (concat ? 1 : 1/H), what weighted the messages;
                                   //      empty when it equals α (no attention dropout, head scale 1)
    MatrixT<T> edge_attr;          // E×D  attributes of cache.graph's edges (loops: the mean), edge_dim > 0 only
    MatrixT<T> edge_score;         // E×H  a_edge[h]ᵀ (e_ij · W_e)_h, edge_dim > 0 only
    DropoutCache input_drop;
    DropoutCache attn_drop;
    DistinctRows distinct;         // options.distinct_rows: the distinct rows of the dense input
    bool distinct_found = false;   // distinct holds those of the last pass's input

    // The dense input of the last pass: the caller's (infer) or the cache's copy.
    const MatrixT<T>& dense_input() const { return x_in ? *x_in : x; }
    // The sparse input of the last pass after input dropout (x_sparse set).
    const SparseRowsT<T>& sparse_input() const { return input_drop.active ? x_kept : *x_sparse; }
};

template <class T>
class GatConvT {
public:
    GatConvT(const GatConvOptions& options, Rng& rng, const std::string& name = "gat_conv");

    Eigen::Index out_width() const { return options_.concat ? options_.heads * options_.out : options_.out; }

    // rng is needed only when training with dropout. edge_attr (E×D, E = graph.num_edges()) is
    // required when edge_dim > 0 and must be null otherwise.
    MatrixT<T> forward(const Graph& graph, const MatrixT<T>& x, GatConvCache<T>& cache, bool training, Rng* rng = nullptr,
                       const MatrixT<T>* edge_attr = nullptr) const;
    // The same layer on a sparse input (core/sparse.hpp): x·W over the stored entries only, input
    // dropout on them only (the same mask as the dense path), dW over the columns of the CSC.
    // x must outlive backward (the cache points to it).
    MatrixT<T> forward(const Graph& graph, const SparseRowsT<T>& x, GatConvCache<T>& cache, bool training, Rng* rng = nullptr,
                       const MatrixT<T>* edge_attr = nullptr) const;
    // Inference only: act(forward(graph, x, cache, training = false)), the same bits, without
    // keeping what backward needs: the dense input is read in place instead of copied, and the
    // bias and the activation are one pass over the output. backward after it throws.
    MatrixT<T> infer(const Graph& graph, const MatrixT<T>& x, GatConvCache<T>& cache, Activation act,
                     const MatrixT<T>* edge_attr = nullptr) const;
    MatrixT<T> infer(const Graph& graph, const SparseRowsT<T>& x, GatConvCache<T>& cache, Activation act,
                     const MatrixT<T>* edge_attr = nullptr) const;
    // Accumulates parameter gradients (lin_edge and att_edge too; no gradient for edge_attr);
    // returns dx (empty when need_dx is false).
    MatrixT<T> backward(const MatrixT<T>& dout, const GatConvCache<T>& cache, bool need_dx = true);

    void parameters(ParameterList<T>& out);
    const GatConvOptions& options() const { return options_; }
    const std::string& name() const { return name_; }

    ParameterT<T>& weight() { return weight_; }
    ParameterT<T>& att_src() { return att_src_; }
    ParameterT<T>& att_dst() { return att_dst_; }
    ParameterT<T>& bias() { return bias_; }
    ParameterT<T>& res_weight() { return res_weight_; }
    ParameterT<T>& lin_edge() { return lin_edge_; }
    ParameterT<T>& att_edge() { return att_edge_; }

private:
    // Checks shapes, draws the dropout keys (input first, then attention) and fills cache.xw
    // from the dense or the sparse input (exactly one of them non-null). keep_input: copy a dense
    // input into the cache for backward; else it is read in place (infer).
    void project(const Graph& graph, const MatrixT<T>* x, const SparseRowsT<T>* x_sparse, GatConvCache<T>& cache, bool training,
                 Rng* rng, const MatrixT<T>* edge_attr, bool keep_input) const;
    // The attention passes on cache.xw, then residual and bias, then act (none: as it is).
    MatrixT<T> attend(const Graph& graph, GatConvCache<T>& cache, const MatrixT<T>* edge_attr, Activation act) const;
    // out (+)= x' · w for the input of the last forward, dense or sparse.
    void input_times(GatConvCache<T>& cache, const MatrixT<T>& w, MatrixT<T>& out, bool accumulate) const;
    // grad += x'ᵀ · dy for the input of the last forward, dense or sparse.
    void input_transpose_times_add(const GatConvCache<T>& cache, const MatrixT<T>& dy, MatrixT<T>& grad) const;
    // Fills cache.edge_attr (attributes of g's edges; g is graph or its self-looped version) and
    // cache.edge_score (E×H).
    void edge_scores(const Graph& graph, const Graph& g, const MatrixT<T>& edge_attr, GatConvCache<T>& cache) const;

    GatConvOptions options_;
    std::string name_;
    ParameterT<T> weight_;      // F×(H·C)
    ParameterT<T> att_src_;     // H×C
    ParameterT<T> att_dst_;     // H×C
    ParameterT<T> bias_;        // 1×out_width (0×0 without bias)
    ParameterT<T> res_weight_;  // F×out_width (0×0 without residual)
    ParameterT<T> lin_edge_;    // D×(H·C), no bias (0×0 without edge features)
    ParameterT<T> att_edge_;    // H×C (0×0 without edge features)
};

using GatConv = GatConvT<float>;

}  // namespace gatkit
