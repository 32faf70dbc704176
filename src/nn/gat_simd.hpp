// Row kernels of GatConv<float> written for AVX-512 (gat_simd.cpp) and, on machines without it,
// for AVX2 + FMA (gat_simd_avx2.cpp) (internal to the library).
//
// The portable loops in gat_conv.cpp run over heads and channels with trip counts known only at
// run time, so GCC leaves them scalar or spills a per-edge "spread" of α over the row through
// memory. These kernels keep a destination row's H·C accumulators in vector registers across its
// edges (the row is NB blocks of 16 lanes, or 8 with AVX2; NB a template parameter), hold per-head values (scores,
// α, row maxima and sums) in the first H lanes of one register, and spread α over the row with one
// lane permutation per block. Same algorithm, same order over edges, so the same numbers up to
// float rounding (sums inside a head are a tree here, a sequence there); deterministic and
// independent of the thread count, as the portable loops.
//
// Used when the build targets AVX-512F (or AVX2 and FMA), T = float, the switch below is on, and
// the layer's shape fits (gat_simd_fits); everything else takes the portable loops.
#pragma once

#include "gatkit/core/types.hpp"
#include "gatkit/nn/activation.hpp"

namespace gatkit::detail {

// What the three row kernels read besides the per-call arrays.
struct GatSimdArgs {
    Eigen::Index N = 0, H = 0, C = 0;  // nodes, heads, channels per head; rows are H·C wide
    const EdgeId* in_offsets = nullptr;
    const NodeId* in_src = nullptr;
    const EdgeId* out_offsets = nullptr;
    const NodeId* out_dst = nullptr;
    const EdgeId* out_edge = nullptr;
    float slope = 0.2f;       // LeakyReLU slope of the scores
    float head_scale = 1.0f;  // 1 (concat, or one head)
    bool attn_drop = false;   // alpha_used holds the dropout multipliers (1/(1-p) or 0) on entry to forward
    float attn_scale = 1.0f;  // 1/(1-p)
    // How forward and backward pass 1 get an edge's source score a_src[h]ᵀ xw_jh: from the row
    // xw_j they gather anyway (true), or from the N×H array a_src (false). The same bits either
    // way; gat_simd_scores_from_rows says which is faster for a graph.
    bool scores_from_rows = false;
    // What forward does to each out row once its attention sum is in registers, instead of
    // separate passes over out: add the row already in out (the residual term, written by the
    // caller), then out_bias, then out_act (add_row_and_activate_row: the same bits).
    bool out_accumulate = false;
    const float* out_bias = nullptr;  // H·C values, or null
    Activation out_act = Activation::none;
};

// out_bias and out_act on one finished out row o (H·C values), while it is in cache.
inline void finish_out_row(const GatSimdArgs& a, float* o, Eigen::Index HC) {
    if (a.out_bias || a.out_act != Activation::none) add_row_and_activate_row(a.out_bias, a.out_act, o, HC);
}

// True when this build has the kernels, they are switched on, and the shape fits: with L lanes
// (16 for AVX-512, 8 for AVX2) 1 ≤ H ≤ L, concat or H = 1, H·C ≤ 256, and C a multiple of L, or
// C a power of two below L, or H = 1.
bool gat_simd_fits(Eigen::Index heads, Eigen::Index channels, bool concat);
// The lanes of this build's kernels: 16 (AVX-512), 8 (AVX2) or 0 (none).
int gat_simd_lanes();
// On by default where compiled in; tests switch it off to run the portable loops on the same input.
void set_gat_simd(bool on);
bool gat_simd_switched_on();
// Whether the row passes should compute the source scores from the gathered rows (GatSimdArgs::
// scores_from_rows) for N rows of `width` floats: when those rows outgrow a last-level cache, so
// that the N×H array's random reads miss it too. Tests force either answer (mode 1 or 0; −1: by
// size again).
bool gat_simd_scores_from_rows(Eigen::Index rows, Eigen::Index width);
void set_gat_simd_scores_from_rows(int mode);

// a_src_nh = a_src[h]ᵀ xw_nh and a_dst_nh = a_dst[h]ᵀ xw_nh for every node (N×H each).
void gat_simd_node_scores(const GatSimdArgs& a, const float* xw, const float* att_src, const float* att_dst, float* a_src,
                          float* a_dst);
// Forward over destination rows: scores, softmax, α (alpha), α' = α·head_scale·dropout
// multiplier (alpha_used; may be alpha itself) and out (N×H·C, every row): the attention sum (0
// for rows without edges), plus out's row on entry when out_accumulate, plus out_bias, through
// out_act. The source scores come from a_src (N×H, gat_simd_node_scores) or, with
// a.scores_from_rows, from the gathered rows of xw and the attention vector att_src.
void gat_simd_forward(const GatSimdArgs& a, const float* xw, const float* a_src, const float* att_src, const float* a_dst,
                      const float* edge_score, float* alpha, float* alpha_used, float* out);
// Backward pass 1 over destination rows: edge_grads (E×2H: edge e's α' in its first H values, its
// score gradient dz in the next H) and da_dst (N×H). α' sits beside dz so that pass 2, which
// visits the edges in transposed order, reads one cache line per edge for both.
// The source scores as in gat_simd_forward.
void gat_simd_backward_dst(const GatSimdArgs& a, const float* dout, const float* xw, const float* alpha, const float* alpha_used,
                           const float* a_src, const float* att_src, const float* a_dst, const float* edge_score, float* edge_grads,
                           float* da_dst);
// Backward pass 2 over source rows of the transposed CSR, from pass 1's edge_grads: dxw (N×H·C)
// and da_src (N×H), both written, not accumulated.
void gat_simd_backward_src(const GatSimdArgs& a, const float* dout, const float* edge_grads, const float* da_dst, const float* att_src,
                           const float* att_dst, float* dxw, float* da_src);

}  // namespace gatkit::detail
