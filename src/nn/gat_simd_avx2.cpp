// GatConv<float> row kernels for AVX2 + FMA machines without AVX-512 (gat_simd.hpp): the same
// algorithm as the AVX-512 kernels in gat_simd.cpp, on 8-lane registers. A row of H·C floats is
// NB blocks of 8 lanes (NB ≤ 32), per-head values sit in the first H lanes of one register
// (H ≤ 8), and α is spread over a block with one lane permutation. AVX2 has no mask registers:
// lane masks are vectors, per-head loads and stores of H floats use the exact-width instruction
// for H ∈ {1, 2, 4, 8} (masked moves otherwise), so nothing is read or written past a row.
#include "gat_simd.hpp"

#if !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)

#include "gatkit/core/error.hpp"
#include "gatkit/core/vmath.hpp"

#include <immintrin.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gatkit::detail {

namespace {

constexpr int kLanes = 8;
constexpr int kMaxBlocks = 32;  // H·C ≤ 256

__m256i lanes_below(int n) {  // lanes 0 … n−1 all ones
    alignas(32) std::int32_t m[kLanes];
    for (int l = 0; l < kLanes; ++l) m[l] = l < n ? -1 : 0;
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(m));
}

// How a row of H·C floats sits in NB blocks of 8 lanes, and the lane permutations the kernels use.
struct Layout {
    int H = 0, C = 0, HC = 0, NB = 0;
    __m256i head_mask{};  // the H lanes of a per-head vector
    __m256i tail_mask{};  // the lanes of the last block that lie inside the row
    bool full_tail = true;
    enum class Reduce { whole_row, blocks_per_head, heads_per_block } reduce = Reduce::whole_row;
    // spread[b]: lane l of block b takes head (8·b + l) / C
    alignas(32) std::int32_t spread[kMaxBlocks][kLanes] = {};
    // heads_per_block (C ∈ {1, 2, 4}): collect[b] moves block b's segment sums (lanes t·C) to
    // their heads' lanes, collect_mask[b] selects those lanes
    alignas(32) std::int32_t collect[kMaxBlocks][kLanes] = {};
    alignas(32) std::int32_t collect_mask[kMaxBlocks][kLanes] = {};
    alignas(32) std::int32_t head_lane[kLanes][kLanes] = {};  // head_lane[h]: lane h only
    int xor_steps = 0;

    Layout(Eigen::Index heads, Eigen::Index channels)
        : H(static_cast<int>(heads)), C(static_cast<int>(channels)), HC(H * C), NB((HC + kLanes - 1) / kLanes) {
        head_mask = lanes_below(H);
        const int tail = HC - (NB - 1) * kLanes;
        full_tail = tail == kLanes;
        tail_mask = lanes_below(tail);
        for (int b = 0; b < NB; ++b)
            for (int l = 0; l < kLanes; ++l) {
                const int k = b * kLanes + l;
                spread[b][l] = k < HC ? k / C : 0;
            }
        for (int h = 0; h < kLanes; ++h) head_lane[h][h] = -1;
        if (H == 1) {
            reduce = Reduce::whole_row;
        } else if (C % kLanes == 0) {
            reduce = Reduce::blocks_per_head;
        } else {
            reduce = Reduce::heads_per_block;
            while ((1 << xor_steps) < C) ++xor_steps;
            const int per_block = kLanes / C;
            for (int h = 0; h < H; ++h) {
                const int b = h / per_block, t = h % per_block;
                collect[b][h] = t * C;
                collect_mask[b][h] = -1;
            }
        }
    }

    __m256i spread_idx(int b) const { return _mm256_load_si256(reinterpret_cast<const __m256i*>(spread[b])); }
    static __m256 mask_of(const std::int32_t* m) { return _mm256_castsi256_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(m))); }

    // The H per-head floats at p in the first H lanes, 0 in the others.
    __m256 load_heads(const float* p) const {
        switch (H) {
            case 1: return _mm256_zextps128_ps256(_mm_load_ss(p));
            case 2: return _mm256_zextps128_ps256(_mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(p))));
            case 4: return _mm256_zextps128_ps256(_mm_loadu_ps(p));
            case 8: return _mm256_loadu_ps(p);
            default: return _mm256_maskload_ps(p, head_mask);
        }
    }
    void store_heads(float* p, __m256 v) const {
        switch (H) {
            case 1: _mm_store_ss(p, _mm256_castps256_ps128(v)); return;
            case 2: _mm_store_sd(reinterpret_cast<double*>(p), _mm_castps_pd(_mm256_castps256_ps128(v))); return;
            case 4: _mm_storeu_ps(p, _mm256_castps256_ps128(v)); return;
            case 8: _mm256_storeu_ps(p, v); return;
            default: _mm256_maskstore_ps(p, head_mask, v);
        }
    }
    __m256 keep_heads(__m256 v) const { return _mm256_and_ps(v, _mm256_castsi256_ps(head_mask)); }
};

template <int NB>
inline __m256 load_block(const Layout& L, const float* row, int b) {
    if (b == NB - 1 && !L.full_tail) return _mm256_maskload_ps(row + b * kLanes, L.tail_mask);
    return _mm256_loadu_ps(row + b * kLanes);
}

template <int NB>
inline void store_block(const Layout& L, float* row, int b, __m256 v) {
    if (b == NB - 1 && !L.full_tail) {
        _mm256_maskstore_ps(row + b * kLanes, L.tail_mask, v);
    } else {
        _mm256_storeu_ps(row + b * kLanes, v);
    }
}

// One row's per-edge register values, kept in memory as whole aligned registers.
class RowBuffer {
public:
    __m256* at_least(EdgeId n) {
        if (static_cast<std::size_t>(n) > v_.size()) v_.resize(static_cast<std::size_t>(n));
        return &v_.data()->v;
    }

private:
    struct alignas(32) Slot {
        __m256 v;
    };
    static_assert(sizeof(Slot) == sizeof(__m256));
    std::vector<Slot> v_;
};

// The row passes are bound by the latency of gathering random rows (sources' xw and a_src,
// destinations' dout and the edges' α' and dz in transposed order) once the graph outgrows the
// caches; prefetch those of the edge this far ahead (as the AVX-512 kernels).
constexpr EdgeId kPrefetchAhead = 16;

// always_inline: GCC 12 split the functions below (partial inlining) and then removed the calls to
// their outlined part, which held nothing but prefetches (a function with no side effects), so
// the row passes ran with no prefetch at all.
[[gnu::always_inline]] inline void prefetch_lines(const float* p, int lines) {
    for (int l = 0; l < lines; ++l) _mm_prefetch(reinterpret_cast<const char*>(p) + 64 * l, _MM_HINT_T0);
}

template <int NB, bool kFromRows>
[[gnu::always_inline]] inline void prefetch_source_ahead(const GatSimdArgs& a, const Layout& L, const float* a_src, const float* xw, EdgeId e,
                                                         EdgeId E) {
    if (e + kPrefetchAhead >= E) return;
    const auto ahead = static_cast<Eigen::Index>(a.in_src[e + kPrefetchAhead]);
    if constexpr (!kFromRows) _mm_prefetch(reinterpret_cast<const char*>(a_src + ahead * a.H), _MM_HINT_T0);
    prefetch_lines(xw + ahead * L.HC, (NB + 1) / 2);
}

// s > 0 ? s : slope·s, lane-wise (NaN takes the slope branch, as the scalar expression)
inline __m256 leaky(__m256 s, __m256 slope) {
    return _mm256_blendv_ps(s, _mm256_mul_ps(s, slope), _mm256_cmp_ps(s, _mm256_setzero_ps(), _CMP_NGT_UQ));
}

// exp_v (core/vmath.hpp) on 8 lanes: the same reduction, polynomial and constants.
inline __m256 exp8(__m256 x_in) {
    using namespace exp_consts;
    const __m256 low = _mm256_set1_ps(lo);
    __m256 x = _mm256_max_ps(x_in, low);
    x = _mm256_min_ps(x, _mm256_set1_ps(hi));
    const __m256 magic = _mm256_set1_ps(round_magic);
    const __m256 n = _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(log2e), magic), magic);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(ln2_hi), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(ln2_lo), r);
    __m256 p = _mm256_set1_ps(p0);
    for (const float c : {p1, p2, p3, p4, p5}) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(c));
    const __m256 e_r = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, r), r, r), _mm256_set1_ps(1.0f));
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127)), 23);
    const __m256 y = _mm256_mul_ps(e_r, _mm256_castsi256_ps(bits));
    return _mm256_and_ps(y, _mm256_cmp_ps(x_in, low, _CMP_NLT_UQ));  // below the range: 0
}

// r + r with lanes l and l ^ s swapped (s = 1, 2, 4)
inline __m256 xor_fold(__m256 r, int s) {
    switch (s) {
        case 1: return _mm256_add_ps(r, _mm256_permute_ps(r, _MM_SHUFFLE(2, 3, 0, 1)));
        case 2: return _mm256_add_ps(r, _mm256_permute_ps(r, _MM_SHUFFLE(1, 0, 3, 2)));
        default: return _mm256_add_ps(r, _mm256_permute2f128_ps(r, r, 1));
    }
}

// d_h = Σ_c p[h·C + c] for the row products p (NB blocks), in the first H lanes, 0 elsewhere.
template <int NB>
inline __m256 head_sums(const Layout& L, const __m256* p) {
    switch (L.reduce) {
        case Layout::Reduce::whole_row: {
            __m256 s = p[0];
            for (int b = 1; b < NB; ++b) s = _mm256_add_ps(s, p[b]);
            for (int f = 4; f >= 1; f /= 2) s = xor_fold(s, f);
            return _mm256_and_ps(s, Layout::mask_of(L.head_lane[0]));
        }
        case Layout::Reduce::blocks_per_head: {
            __m256 d = _mm256_setzero_ps();
            const int per_head = L.C / kLanes;
            for (int h = 0; h < L.H; ++h) {
                __m256 s = _mm256_setzero_ps();
                for (int q = 0; q < per_head; ++q)
                    if (const int b = h * per_head + q; b < NB) s = _mm256_add_ps(s, p[b]);  // always: H·C ≤ 8·NB
                for (int f = 4; f >= 1; f /= 2) s = xor_fold(s, f);
                d = _mm256_blendv_ps(d, s, Layout::mask_of(L.head_lane[h]));
            }
            return d;
        }
        case Layout::Reduce::heads_per_block:
        default: {
            __m256 d = _mm256_setzero_ps();
            for (int b = 0; b < NB; ++b) {
                __m256 r = p[b];
                for (int s = 0; s < L.xor_steps; ++s) r = xor_fold(r, 1 << s);
                const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(L.collect[b]));
                d = _mm256_blendv_ps(d, _mm256_permutevar8x32_ps(r, idx), Layout::mask_of(L.collect_mask[b]));
            }
            return d;
        }
    }
}

// att[h]ᵀ row_h for each head h of one row (H·C values), in the first H lanes; node_score_rows
// fills a_src with it, so edge_score_z has the same bits either way (as the AVX-512 kernels).
template <int NB>
[[gnu::always_inline]] inline __m256 head_dots(const Layout& L, const float* row, const float* att) {
    __m256 q[NB];
    for (int b = 0; b < NB; ++b) q[b] = _mm256_mul_ps(load_block<NB>(L, row, b), load_block<NB>(L, att, b));
    return head_sums<NB>(L, q);
}

// Edge e's score before LeakyReLU, z = a_src_j + a_dst_i (ad) [+ the edge term], with a_src_j from
// the row xw_j when kFromRows, else from the N×H array (gat_simd.cpp says when and why).
template <int NB, bool kFromRows>
[[gnu::always_inline]] inline __m256 edge_score_z(const GatSimdArgs& a, const Layout& L, const float* a_src, const float* att_src,
                                                  const float* xw_j, Eigen::Index j, __m256 ad, const float* es, EdgeId e) {
    __m256 source;
    if constexpr (kFromRows) {
        source = head_dots<NB>(L, xw_j, att_src);
    } else {
        source = L.load_heads(a_src + j * a.H);
    }
    __m256 z = _mm256_add_ps(source, ad);
    if (es) z = _mm256_add_ps(z, L.load_heads(es + e * a.H));
    return z;
}

template <int NB>
void node_score_rows(const GatSimdArgs& a, const Layout& L, const float* xw, const float* att_src, const float* att_dst, float* a_src,
                     float* a_dst) {
    const Eigen::Index H = a.H, HC = L.HC;
#pragma omp parallel for schedule(static)
    for (Eigen::Index n = 0; n < a.N; ++n) {
        const float* r = xw + n * HC;
        L.store_heads(a_src + n * H, head_dots<NB>(L, r, att_src));
        L.store_heads(a_dst + n * H, head_dots<NB>(L, r, att_dst));
    }
}

template <int NB, bool kFromRows>
void forward_rows(const GatSimdArgs& a, const Layout& L, const float* xw, const float* a_src, const float* att_src, const float* a_dst,
                  const float* es, float* alpha, float* alpha_used, float* out) {
    const Eigen::Index H = a.H, HC = L.HC;
    const EdgeId E = a.in_offsets[a.N];
    const __m256 slope = _mm256_set1_ps(a.slope), head_scale = _mm256_set1_ps(a.head_scale);
    const __m256 one = _mm256_set1_ps(1.0f);
#pragma omp parallel
    {
        RowBuffer row;
#pragma omp for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < a.N; ++i) {
        const EdgeId e0 = a.in_offsets[i], e1 = a.in_offsets[i + 1];
        if (e0 == e1) {  // attends to nothing: the attention output is 0
            if (!a.out_accumulate)
                for (int b = 0; b < NB; ++b) store_block<NB>(L, out + i * HC, b, _mm256_setzero_ps());
            finish_out_row(a, out + i * HC, HC);
            continue;
        }
        __m256* r = row.at_least(e1 - e0) - e0;
        const __m256 ad = L.load_heads(a_dst + i * H);
        __m256 mx = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
        for (EdgeId e = e0; e < e1; ++e) {
            prefetch_source_ahead<NB, kFromRows>(a, L, a_src, xw, e, E);
            const auto j = static_cast<Eigen::Index>(a.in_src[e]);
            const __m256 s = leaky(edge_score_z<NB, kFromRows>(a, L, a_src, att_src, xw + j * HC, j, ad, es, e), slope);
            r[e] = s;
            mx = _mm256_max_ps(s, mx);
        }
        __m256 sum = _mm256_setzero_ps();
        for (EdgeId e = e0; e < e1; ++e) {
            const __m256 v = L.keep_heads(exp8(_mm256_sub_ps(r[e], mx)));
            r[e] = v;
            sum = _mm256_add_ps(sum, v);
        }
        const __m256 inv = L.keep_heads(_mm256_div_ps(one, sum));  // sum ≥ 1 in the head lanes
        __m256 acc[NB];
        for (int b = 0; b < NB; ++b) acc[b] = _mm256_setzero_ps();
        for (EdgeId e = e0; e < e1; ++e) {
            const __m256 al = _mm256_mul_ps(r[e], inv);
            L.store_heads(alpha + e * H, al);
            __m256 u = _mm256_mul_ps(al, head_scale);
            if (a.attn_drop) u = _mm256_mul_ps(u, L.load_heads(alpha_used + e * H));
            L.store_heads(alpha_used + e * H, u);
            const float* xs = xw + static_cast<Eigen::Index>(a.in_src[e]) * HC;
            for (int b = 0; b < NB; ++b)
                acc[b] = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(u, L.spread_idx(b)), load_block<NB>(L, xs, b), acc[b]);
        }
        float* o = out + i * HC;
        if (a.out_accumulate)
            for (int b = 0; b < NB; ++b) acc[b] = _mm256_add_ps(load_block<NB>(L, o, b), acc[b]);
        for (int b = 0; b < NB; ++b) store_block<NB>(L, o, b, acc[b]);
        finish_out_row(a, o, HC);
    }
    }
}

template <int NB, bool kFromRows>
void backward_dst_rows(const GatSimdArgs& a, const Layout& L, const float* dout, const float* xw, const float* alpha,
                       const float* alpha_used, const float* a_src, const float* att_src, const float* a_dst, const float* es,
                       float* edge_grads, float* da_dst) {
    const Eigen::Index H = a.H, HC = L.HC;
    const EdgeId E = a.in_offsets[a.N];
    const __m256 slope = _mm256_set1_ps(a.slope), head_scale = _mm256_set1_ps(a.head_scale);
    const __m256 attn_scale = _mm256_set1_ps(a.attn_scale), zero = _mm256_setzero_ps();
#pragma omp parallel
    {
        RowBuffer row, score;
#pragma omp for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < a.N; ++i) {
        const EdgeId e0 = a.in_offsets[i], e1 = a.in_offsets[i + 1];
        __m256* r = row.at_least(e1 - e0) - e0;
        __m256* z = kFromRows ? score.at_least(e1 - e0) - e0 : nullptr;  // z[e]: the score before LeakyReLU
        const __m256 ad = L.load_heads(a_dst + i * H);
        __m256 di[NB];
        for (int b = 0; b < NB; ++b) di[b] = load_block<NB>(L, dout + i * HC, b);
        // dα'_eh = dout_ih · xw_jh, then the head scale and the dropout mask
        __m256 weighted = zero;
        for (EdgeId e = e0; e < e1; ++e) {
            prefetch_source_ahead<NB, kFromRows>(a, L, a_src, xw, e, E);
            const auto j = static_cast<Eigen::Index>(a.in_src[e]);
            const float* xs = xw + j * HC;
            if constexpr (kFromRows) {  // while the row is here
                z[e] = edge_score_z<NB, true>(a, L, a_src, att_src, xs, j, ad, es, e);
            }
            __m256 p[NB];
            for (int b = 0; b < NB; ++b) p[b] = _mm256_mul_ps(di[b], load_block<NB>(L, xs, b));
            __m256 d = _mm256_mul_ps(head_sums<NB>(L, p), head_scale);
            if (a.attn_drop)
                d = _mm256_and_ps(_mm256_cmp_ps(L.load_heads(alpha_used + e * H), zero, _CMP_NEQ_UQ), _mm256_mul_ps(d, attn_scale));
            weighted = _mm256_fmadd_ps(L.load_heads(alpha + e * H), d, weighted);
            r[e] = d;
        }
        // softmax backward ds = α (dα − Σ α dα), then through LeakyReLU; α' is written beside dz
        __m256 row_sum = zero;
        for (EdgeId e = e0; e < e1; ++e) {
            __m256 ze;
            if constexpr (kFromRows) {
                ze = z[e];
            } else {
                ze = edge_score_z<NB, false>(a, L, a_src, att_src, nullptr, static_cast<Eigen::Index>(a.in_src[e]), ad, es, e);
            }
            const __m256 ds = _mm256_mul_ps(L.load_heads(alpha + e * H), _mm256_sub_ps(r[e], weighted));
            const __m256 g = _mm256_blendv_ps(ds, _mm256_mul_ps(ds, slope), _mm256_cmp_ps(ze, zero, _CMP_NGT_UQ));
            L.store_heads(edge_grads + e * 2 * H, L.load_heads(alpha_used + e * H));
            L.store_heads(edge_grads + e * 2 * H + H, g);
            row_sum = _mm256_add_ps(row_sum, g);
        }
        L.store_heads(da_dst + i * H, row_sum);
    }
    }
}

template <int NB>
void backward_src_rows(const GatSimdArgs& a, const Layout& L, const float* dout, const float* edge_grads, const float* da_dst,
                       const float* att_src, const float* att_dst, float* dxw, float* da_src) {
    const Eigen::Index H = a.H, HC = L.HC;
    const EdgeId E = a.out_offsets[a.N];
#pragma omp parallel for schedule(dynamic, 64)
    for (Eigen::Index j = 0; j < a.N; ++j) {
        __m256 acc[NB];
        for (int b = 0; b < NB; ++b) acc[b] = _mm256_setzero_ps();
        __m256 sj = _mm256_setzero_ps();
        for (EdgeId k = a.out_offsets[j]; k < a.out_offsets[j + 1]; ++k) {
            if (k + kPrefetchAhead < E) {
                const float* ahead = edge_grads + a.out_edge[k + kPrefetchAhead] * 2 * H;
                _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
                _mm_prefetch(reinterpret_cast<const char*>(ahead + 2 * H - 1), _MM_HINT_T0);  // the same line unless H·8 bytes cross one
                prefetch_lines(dout + static_cast<Eigen::Index>(a.out_dst[k + kPrefetchAhead]) * HC, (NB + 1) / 2);
            }
            const float* ug = edge_grads + a.out_edge[k] * 2 * H;
            const float* di = dout + static_cast<Eigen::Index>(a.out_dst[k]) * HC;
            const __m256 u = L.load_heads(ug);
            sj = _mm256_add_ps(sj, L.load_heads(ug + H));
            for (int b = 0; b < NB; ++b)
                acc[b] = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(u, L.spread_idx(b)), load_block<NB>(L, di, b), acc[b]);
        }
        // a_src_j = a_src[h]ᵀ xw_jh, a_dst_j = a_dst[h]ᵀ xw_jh ⇒ dxw_jh += da_src_jh a_src[h] + da_dst_jh a_dst[h]
        const __m256 dd = L.load_heads(da_dst + j * H);
        float* dj = dxw + j * HC;
        for (int b = 0; b < NB; ++b) {
            const __m256i idx = L.spread_idx(b);
            __m256 v = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(sj, idx), load_block<NB>(L, att_src, b), acc[b]);
            v = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(dd, idx), load_block<NB>(L, att_dst, b), v);
            store_block<NB>(L, dj, b, v);
        }
        L.store_heads(da_src + j * H, sj);
    }
}

// Calls kernel.template operator()<NB>() for the layout's block count (1 … 32).
template <class Kernel>
void dispatch(const Layout& L, Kernel&& kernel) {
    switch (L.NB) {
#define GATKIT_NB(n) \
    case n: kernel.template operator()<n>(); return;
        GATKIT_NB(1) GATKIT_NB(2) GATKIT_NB(3) GATKIT_NB(4) GATKIT_NB(5) GATKIT_NB(6) GATKIT_NB(7) GATKIT_NB(8)
        GATKIT_NB(9) GATKIT_NB(10) GATKIT_NB(11) GATKIT_NB(12) GATKIT_NB(13) GATKIT_NB(14) GATKIT_NB(15) GATKIT_NB(16)
        GATKIT_NB(17) GATKIT_NB(18) GATKIT_NB(19) GATKIT_NB(20) GATKIT_NB(21) GATKIT_NB(22) GATKIT_NB(23) GATKIT_NB(24)
        GATKIT_NB(25) GATKIT_NB(26) GATKIT_NB(27) GATKIT_NB(28) GATKIT_NB(29) GATKIT_NB(30) GATKIT_NB(31) GATKIT_NB(32)
#undef GATKIT_NB
        default: throw ConfigError("gat_simd: row of " + std::to_string(L.HC) + " lanes is over the kernels' 256");
    }
}

}  // namespace

int gat_simd_lanes() { return kLanes; }

bool gat_simd_fits(Eigen::Index heads, Eigen::Index channels, bool concat) {
    if (!gat_simd_switched_on() || heads < 1 || heads > kLanes || channels < 1 || heads * channels > kLanes * kMaxBlocks) return false;
    if (!concat && heads != 1) return false;
    return heads == 1 || channels % kLanes == 0 || channels == 1 || channels == 2 || channels == 4;
}

void gat_simd_node_scores(const GatSimdArgs& a, const float* xw, const float* att_src, const float* att_dst, float* a_src,
                          float* a_dst) {
    const Layout L(a.H, a.C);
    dispatch(L, [&]<int NB>() { node_score_rows<NB>(a, L, xw, att_src, att_dst, a_src, a_dst); });
}

void gat_simd_forward(const GatSimdArgs& a, const float* xw, const float* a_src, const float* att_src, const float* a_dst,
                      const float* edge_score, float* alpha, float* alpha_used, float* out) {
    const Layout L(a.H, a.C);
    dispatch(L, [&]<int NB>() {
        if (a.scores_from_rows) {
            forward_rows<NB, true>(a, L, xw, a_src, att_src, a_dst, edge_score, alpha, alpha_used, out);
        } else {
            forward_rows<NB, false>(a, L, xw, a_src, att_src, a_dst, edge_score, alpha, alpha_used, out);
        }
    });
}

void gat_simd_backward_dst(const GatSimdArgs& a, const float* dout, const float* xw, const float* alpha, const float* alpha_used,
                           const float* a_src, const float* att_src, const float* a_dst, const float* edge_score, float* edge_grads,
                           float* da_dst) {
    const Layout L(a.H, a.C);
    dispatch(L, [&]<int NB>() {
        if (a.scores_from_rows) {
            backward_dst_rows<NB, true>(a, L, dout, xw, alpha, alpha_used, a_src, att_src, a_dst, edge_score, edge_grads, da_dst);
        } else {
            backward_dst_rows<NB, false>(a, L, dout, xw, alpha, alpha_used, a_src, att_src, a_dst, edge_score, edge_grads, da_dst);
        }
    });
}

void gat_simd_backward_src(const GatSimdArgs& a, const float* dout, const float* edge_grads, const float* da_dst, const float* att_src,
                           const float* att_dst, float* dxw, float* da_src) {
    const Layout L(a.H, a.C);
    dispatch(L, [&]<int NB>() { backward_src_rows<NB>(a, L, dout, edge_grads, da_dst, att_src, att_dst, dxw, da_src); });
}

}  // namespace gatkit::detail

#endif
