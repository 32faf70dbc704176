#include "gat_simd.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/vmath.hpp"

#include <cstdint>
#include <limits>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace gatkit::detail {

namespace {
bool simd_on = true;
int scores_from_rows_mode = -1;

// Above this many bytes the N rows of xw are taken to be out of a last-level cache (32 MiB: a Zen 3
// or Zen 4 CCD's L3; sysconf's answer inside a virtual machine can be the host's total). Below it
// the N×H source scores are read from cache and computing them from the rows costs more than it
// saves (ego-Facebook's link epoch: 4,039 rows of 128 floats, 2 MiB, +18 % on one thread); the
// 1M-node layer's 256 MiB of rows gain 20 % (docs/results.md).
constexpr double kRowsInCacheBytes = 32.0 * 1024 * 1024;
}  // namespace

void set_gat_simd(bool on) { simd_on = on; }
bool gat_simd_switched_on() { return simd_on; }

bool gat_simd_scores_from_rows(Eigen::Index rows, Eigen::Index width) {
    if (scores_from_rows_mode >= 0) return scores_from_rows_mode == 1;
    return static_cast<double>(rows) * static_cast<double>(width) * sizeof(float) > kRowsInCacheBytes;
}
void set_gat_simd_scores_from_rows(int mode) { scores_from_rows_mode = mode; }

#if defined(__AVX512F__)

namespace {

constexpr int kLanes = 16;
constexpr int kMaxBlocks = 16;  // H·C ≤ 256

// How a row of H·C floats sits in NB blocks of 16 lanes, and the lane permutations the kernels use.
struct Layout {
    int H = 0, C = 0, HC = 0, NB = 0;
    __mmask16 head_mask = 0;  // the H lanes of a per-head vector
    __mmask16 tail_mask = 0;  // the lanes of the last block that lie inside the row
    enum class Reduce { whole_row, blocks_per_head, heads_per_block } reduce = Reduce::whole_row;
    // spread[b]: lane l of block b takes head (16·b + l) / C, so permutexvar(spread[b], u) spreads
    // the per-head vector u over block b
    alignas(64) std::int32_t spread[kMaxBlocks][kLanes] = {};
    // heads_per_block (C ∈ {1, 2, 4, 8}): segmented sums in log2 C xor_fold steps; collect[b]
    // moves the segment sums of block b (lanes t·C) to their heads' lanes
    alignas(64) std::int32_t collect[kMaxBlocks][kLanes] = {};
    __mmask16 collect_mask[kMaxBlocks] = {};
    int xor_steps = 0;

    Layout(Eigen::Index heads, Eigen::Index channels)
        : H(static_cast<int>(heads)), C(static_cast<int>(channels)), HC(H * C), NB((HC + kLanes - 1) / kLanes) {
        head_mask = static_cast<__mmask16>((1u << H) - 1u);
        const int tail = HC - (NB - 1) * kLanes;
        tail_mask = static_cast<__mmask16>(tail == kLanes ? 0xFFFFu : (1u << tail) - 1u);
        for (int b = 0; b < NB; ++b)
            for (int l = 0; l < kLanes; ++l) {
                const int k = b * kLanes + l;
                spread[b][l] = k < HC ? k / C : 0;
            }
        if (H == 1) {
            reduce = Reduce::whole_row;
        } else if (C % kLanes == 0) {
            reduce = Reduce::blocks_per_head;
        } else {
            reduce = Reduce::heads_per_block;
            xor_steps = 0;
            while ((1 << xor_steps) < C) ++xor_steps;
            const int per_block = kLanes / C;
            for (int h = 0; h < H; ++h) {
                const int b = h / per_block, t = h % per_block;
                collect[b][h] = t * C;
                collect_mask[b] = static_cast<__mmask16>(collect_mask[b] | (1u << h));
            }
        }
    }

    __m512i spread_idx(int b) const { return _mm512_load_si512(spread[b]); }
};

template <int NB>
inline __m512 load_block(const Layout& L, const float* row, int b) {
    if (b == NB - 1) return _mm512_maskz_loadu_ps(L.tail_mask, row + b * kLanes);
    return _mm512_loadu_ps(row + b * kLanes);
}

template <int NB>
inline void store_block(const Layout& L, float* row, int b, __m512 v) {
    if (b == NB - 1) {
        _mm512_mask_storeu_ps(row + b * kLanes, L.tail_mask, v);
    } else {
        _mm512_storeu_ps(row + b * kLanes, v);
    }
}

// One row's per-edge register values, kept in memory as whole aligned registers: a masked store
// followed by a load of the same lanes stalls (no store-to-load forwarding), a full one does not.
class RowBuffer {
public:
    __m512* at_least(EdgeId n) {
        if (static_cast<std::size_t>(n) > v_.size()) v_.resize(static_cast<std::size_t>(n));
        return &v_.data()->v;
    }

private:
    struct alignas(64) Slot {
        __m512 v;
    };
    static_assert(sizeof(Slot) == sizeof(__m512));
    std::vector<Slot> v_;  // over-aligned allocation (C++17 aligned new)
};

// Edges ahead whose gathered rows are prefetched: the row passes are bound by the latency of
// gathering random rows (sources' xw and a_src, destinations' dout and the edges' α' and dz in
// transposed order) once the graph outgrows the caches; a prefetch this far ahead covers it.
constexpr EdgeId kPrefetchAhead = 16;

// always_inline: GCC 12 split the functions below (partial inlining) and then removed the calls to
// their outlined part, which held nothing but prefetches (a function with no side effects), so
// the row passes ran with no prefetch at all.
[[gnu::always_inline]] inline void prefetch_lines(const float* p, int lines) {
    for (int l = 0; l < lines; ++l) _mm_prefetch(reinterpret_cast<const char*>(p) + 64 * l, _MM_HINT_T0);
}

// The passes over destination rows gather each edge's source rows of xw (H·C) and, unless the
// scores come from the rows, a_src (H): prefetch those of edge e + kPrefetchAhead.
template <int NB, bool kFromRows>
[[gnu::always_inline]] inline void prefetch_source_ahead(const GatSimdArgs& a, const Layout& L, const float* a_src, const float* xw, EdgeId e,
                                                         EdgeId E) {
    if (e + kPrefetchAhead >= E) return;
    const auto ahead = static_cast<Eigen::Index>(a.in_src[e + kPrefetchAhead]);
    if constexpr (!kFromRows) _mm_prefetch(reinterpret_cast<const char*>(a_src + ahead * a.H), _MM_HINT_T0);
    prefetch_lines(xw + ahead * L.HC, NB);
}

// s > 0 ? s : slope·s, lane-wise (NaN takes the slope branch, as the scalar expression)
inline __m512 leaky(__m512 s, __m512 slope) {
    return _mm512_mask_mul_ps(s, _mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_NGT_UQ), s, slope);
}

// exp_v (core/vmath.hpp) on 16 lanes: the same reduction, polynomial and constants.
inline __m512 exp16(__m512 x_in) {
    using namespace exp_consts;
    const __m512 low = _mm512_set1_ps(lo);
    __m512 x = _mm512_max_ps(x_in, low);
    x = _mm512_min_ps(x, _mm512_set1_ps(hi));
    const __m512 magic = _mm512_set1_ps(round_magic);
    const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(log2e), magic), magic);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(ln2_hi), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(ln2_lo), r);
    __m512 p = _mm512_set1_ps(p0);
    for (const float c : {p1, p2, p3, p4, p5}) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
    const __m512 e_r = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.0f));
    const __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(n), _mm512_set1_epi32(127)), 23);
    const __m512 y = _mm512_mul_ps(e_r, _mm512_castsi512_ps(bits));
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x_in, low, _CMP_NLT_UQ), y);  // below the range: 0
}

// r + r with lanes l and l ^ s swapped (s = 1, 2, 4, 8): log2(n) of these sum every aligned group of
// n lanes into each of its lanes. In-lane and 128-bit-lane shuffles, cheaper than a full permute.
inline __m512 xor_fold(__m512 r, int s) {
    switch (s) {
        case 1: return _mm512_add_ps(r, _mm512_permute_ps(r, _MM_SHUFFLE(2, 3, 0, 1)));
        case 2: return _mm512_add_ps(r, _mm512_permute_ps(r, _MM_SHUFFLE(1, 0, 3, 2)));
        case 4: return _mm512_add_ps(r, _mm512_shuffle_f32x4(r, r, _MM_SHUFFLE(2, 3, 0, 1)));
        default: return _mm512_add_ps(r, _mm512_shuffle_f32x4(r, r, _MM_SHUFFLE(1, 0, 3, 2)));
    }
}

// d_h = Σ_c p[h·C + c] for the row products p (NB blocks), in the first H lanes; built in
// registers (scalar stores into a buffer read back as a vector would stall store forwarding).
template <int NB>
inline __m512 head_sums(const Layout& L, const __m512* p) {
    switch (L.reduce) {
        case Layout::Reduce::whole_row: {
            __m512 s = p[0];
            for (int b = 1; b < NB; ++b) s = _mm512_add_ps(s, p[b]);
            return _mm512_maskz_mov_ps(0x1, _mm512_set1_ps(_mm512_reduce_add_ps(s)));
        }
        case Layout::Reduce::blocks_per_head: {
            __m512 d = _mm512_setzero_ps();
            const int per_head = L.C / kLanes;
            for (int h = 0; h < L.H; ++h) {
                __m512 s = _mm512_setzero_ps();
                for (int q = 0; q < per_head; ++q)
                    if (const int b = h * per_head + q; b < NB) s = _mm512_add_ps(s, p[b]);  // always: H·C ≤ 16·NB
                for (int f = 8; f >= 1; f /= 2) s = xor_fold(s, f);                      // every lane: the sum
                d = _mm512_mask_mov_ps(d, static_cast<__mmask16>(1u << h), s);
            }
            return d;
        }
        case Layout::Reduce::heads_per_block:
        default: {
            __m512 d = _mm512_setzero_ps();
            for (int b = 0; b < NB; ++b) {
                __m512 r = p[b];
                for (int s = 0; s < L.xor_steps; ++s) r = xor_fold(r, 1 << s);
                d = _mm512_mask_permutexvar_ps(d, L.collect_mask[b], _mm512_load_si512(L.collect[b]), r);
            }
            return d;
        }
    }
}

// att[h]ᵀ row_h for each head h of one row (H·C values), in the first H lanes. With att = a_src and
// row = xw_j it is the source score of every edge leaving j. node_score_rows fills the N×H array
// of those scores with this function, so edge_score_z below has the same bits either way.
template <int NB>
[[gnu::always_inline]] inline __m512 head_dots(const Layout& L, const float* row, const float* att) {
    __m512 q[NB];
    for (int b = 0; b < NB; ++b) q[b] = _mm512_mul_ps(load_block<NB>(L, row, b), load_block<NB>(L, att, b));
    return head_sums<NB>(L, q);
}

// Edge e's score before LeakyReLU, z = a_src_j + a_dst_i (ad) [+ the edge term]. The source score
// a_src_j comes from the gathered row xw_j when the rows are past the caches (kFromRows, from
// GatSimdArgs::scores_from_rows; then a read of a_src is one more random cache line per edge),
// else from the N×H array.
template <int NB, bool kFromRows>
[[gnu::always_inline]] inline __m512 edge_score_z(const GatSimdArgs& a, const Layout& L, const float* a_src, const float* att_src,
                                                  const float* xw_j, Eigen::Index j, __m512 ad, const float* es, EdgeId e) {
    __m512 source;
    if constexpr (kFromRows) {
        source = head_dots<NB>(L, xw_j, att_src);
    } else {
        source = _mm512_maskz_loadu_ps(L.head_mask, a_src + j * a.H);
    }
    __m512 z = _mm512_add_ps(source, ad);
    if (es) z = _mm512_add_ps(z, _mm512_maskz_loadu_ps(L.head_mask, es + e * a.H));
    return z;
}

template <int NB>
void node_score_rows(const GatSimdArgs& a, const Layout& L, const float* xw, const float* att_src, const float* att_dst, float* a_src,
                     float* a_dst) {
    const Eigen::Index H = a.H, HC = L.HC;
    const __mmask16 hm = L.head_mask;
#pragma omp parallel for schedule(static)
    for (Eigen::Index n = 0; n < a.N; ++n) {
        const float* r = xw + n * HC;
        _mm512_mask_storeu_ps(a_src + n * H, hm, head_dots<NB>(L, r, att_src));
        _mm512_mask_storeu_ps(a_dst + n * H, hm, head_dots<NB>(L, r, att_dst));
    }
}

template <int NB, bool kFromRows>
void forward_rows(const GatSimdArgs& a, const Layout& L, const float* xw, const float* a_src, const float* att_src, const float* a_dst,
                  const float* es, float* alpha, float* alpha_used, float* out) {
    const Eigen::Index H = a.H, HC = L.HC;
    const __mmask16 hm = L.head_mask;
    const EdgeId E = a.in_offsets[a.N];
    const __m512 slope = _mm512_set1_ps(a.slope), head_scale = _mm512_set1_ps(a.head_scale);
    const __m512 one = _mm512_set1_ps(1.0f);
#pragma omp parallel
    {
        RowBuffer row;
#pragma omp for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < a.N; ++i) {
        const EdgeId e0 = a.in_offsets[i], e1 = a.in_offsets[i + 1];
        if (e0 == e1) {  // attends to nothing: the attention output is 0
            if (!a.out_accumulate)
                for (int b = 0; b < NB; ++b) store_block<NB>(L, out + i * HC, b, _mm512_setzero_ps());
            finish_out_row(a, out + i * HC, HC);
            continue;
        }
        __m512* r = row.at_least(e1 - e0) - e0;  // r[e]: edge e's per-head values, whole registers
        const __m512 ad = _mm512_maskz_loadu_ps(hm, a_dst + i * H);
        // scores and the row maximum (subtracted before exp so nothing overflows)
        __m512 mx = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
        for (EdgeId e = e0; e < e1; ++e) {
            prefetch_source_ahead<NB, kFromRows>(a, L, a_src, xw, e, E);
            const auto j = static_cast<Eigen::Index>(a.in_src[e]);
            const __m512 s = leaky(edge_score_z<NB, kFromRows>(a, L, a_src, att_src, xw + j * HC, j, ad, es, e), slope);
            r[e] = s;
            mx = _mm512_max_ps(s, mx);
        }
        __m512 sum = _mm512_setzero_ps();
        for (EdgeId e = e0; e < e1; ++e) {
            const __m512 v = _mm512_maskz_mov_ps(hm, exp16(_mm512_sub_ps(r[e], mx)));
            r[e] = v;
            sum = _mm512_add_ps(sum, v);
        }
        const __m512 inv = _mm512_maskz_div_ps(hm, one, sum);  // sum ≥ 1: the maximum's term is exp(0)
        __m512 acc[NB];
        for (int b = 0; b < NB; ++b) acc[b] = _mm512_setzero_ps();
        for (EdgeId e = e0; e < e1; ++e) {
            const __m512 al = _mm512_mul_ps(r[e], inv);
            _mm512_mask_storeu_ps(alpha + e * H, hm, al);
            __m512 u = _mm512_mul_ps(al, head_scale);
            if (a.attn_drop) u = _mm512_mul_ps(u, _mm512_maskz_loadu_ps(hm, alpha_used + e * H));
            _mm512_mask_storeu_ps(alpha_used + e * H, hm, u);
            const float* xs = xw + static_cast<Eigen::Index>(a.in_src[e]) * HC;
            for (int b = 0; b < NB; ++b)
                acc[b] = _mm512_fmadd_ps(_mm512_permutexvar_ps(L.spread_idx(b), u), load_block<NB>(L, xs, b), acc[b]);
        }
        float* o = out + i * HC;
        if (a.out_accumulate)
            for (int b = 0; b < NB; ++b) acc[b] = _mm512_add_ps(load_block<NB>(L, o, b), acc[b]);
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
    const __mmask16 hm = L.head_mask;
    const EdgeId E = a.in_offsets[a.N];
    const __m512 slope = _mm512_set1_ps(a.slope), head_scale = _mm512_set1_ps(a.head_scale);
    const __m512 attn_scale = _mm512_set1_ps(a.attn_scale), zero = _mm512_setzero_ps();
#pragma omp parallel
    {
        RowBuffer row, score;
#pragma omp for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < a.N; ++i) {
        const EdgeId e0 = a.in_offsets[i], e1 = a.in_offsets[i + 1];
        __m512* r = row.at_least(e1 - e0) - e0;
        __m512* z = kFromRows ? score.at_least(e1 - e0) - e0 : nullptr;  // z[e]: the score before LeakyReLU
        const __m512 ad = _mm512_maskz_loadu_ps(hm, a_dst + i * H);
        __m512 di[NB];
        for (int b = 0; b < NB; ++b) di[b] = load_block<NB>(L, dout + i * HC, b);
        // dα'_eh = dout_ih · xw_jh, then the head scale and the dropout mask (α' = 0 where dropped;
        // where α itself is 0 the value does not matter: it is multiplied by α below)
        __m512 weighted = zero;
        for (EdgeId e = e0; e < e1; ++e) {
            prefetch_source_ahead<NB, kFromRows>(a, L, a_src, xw, e, E);
            const auto j = static_cast<Eigen::Index>(a.in_src[e]);
            const float* xs = xw + j * HC;
            if constexpr (kFromRows) {  // while the row is here
                z[e] = edge_score_z<NB, true>(a, L, a_src, att_src, xs, j, ad, es, e);
            }
            __m512 p[NB];
            for (int b = 0; b < NB; ++b) p[b] = _mm512_mul_ps(di[b], load_block<NB>(L, xs, b));
            __m512 d = _mm512_mul_ps(head_sums<NB>(L, p), head_scale);
            if (a.attn_drop)
                d = _mm512_maskz_mul_ps(_mm512_cmp_ps_mask(_mm512_maskz_loadu_ps(hm, alpha_used + e * H), zero, _CMP_NEQ_UQ), d,
                                        attn_scale);
            weighted = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(hm, alpha + e * H), d, weighted);
            r[e] = d;
        }
        // softmax backward ds = α (dα − Σ α dα), then through LeakyReLU; α' is written beside dz
        __m512 row_sum = zero;
        for (EdgeId e = e0; e < e1; ++e) {
            __m512 ze;
            if constexpr (kFromRows) {
                ze = z[e];
            } else {
                ze = edge_score_z<NB, false>(a, L, a_src, att_src, nullptr, static_cast<Eigen::Index>(a.in_src[e]), ad, es, e);
            }
            const __m512 ds = _mm512_mul_ps(_mm512_maskz_loadu_ps(hm, alpha + e * H), _mm512_sub_ps(r[e], weighted));
            const __m512 g = _mm512_mask_mul_ps(ds, _mm512_cmp_ps_mask(ze, zero, _CMP_NGT_UQ), ds, slope);
            _mm512_mask_storeu_ps(edge_grads + e * 2 * H, hm, _mm512_maskz_loadu_ps(hm, alpha_used + e * H));
            _mm512_mask_storeu_ps(edge_grads + e * 2 * H + H, hm, g);
            row_sum = _mm512_add_ps(row_sum, g);
        }
        _mm512_mask_storeu_ps(da_dst + i * H, hm, row_sum);
    }
    }
}

template <int NB>
void backward_src_rows(const GatSimdArgs& a, const Layout& L, const float* dout, const float* edge_grads, const float* da_dst,
                       const float* att_src, const float* att_dst, float* dxw, float* da_src) {
    const Eigen::Index H = a.H, HC = L.HC;
    const __mmask16 hm = L.head_mask;
    const EdgeId E = a.out_offsets[a.N];
#pragma omp parallel for schedule(dynamic, 64)
    for (Eigen::Index j = 0; j < a.N; ++j) {
        __m512 acc[NB];
        for (int b = 0; b < NB; ++b) acc[b] = _mm512_setzero_ps();
        __m512 sj = _mm512_setzero_ps();
        for (EdgeId k = a.out_offsets[j]; k < a.out_offsets[j + 1]; ++k) {
            if (k + kPrefetchAhead < E) {
                const float* ahead = edge_grads + a.out_edge[k + kPrefetchAhead] * 2 * H;
                _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
                _mm_prefetch(reinterpret_cast<const char*>(ahead + 2 * H - 1), _MM_HINT_T0);  // the same line unless H·8 bytes cross one
                prefetch_lines(dout + static_cast<Eigen::Index>(a.out_dst[k + kPrefetchAhead]) * HC, NB);
            }
            const float* ug = edge_grads + a.out_edge[k] * 2 * H;
            const float* di = dout + static_cast<Eigen::Index>(a.out_dst[k]) * HC;
            const __m512 u = _mm512_maskz_loadu_ps(hm, ug);
            sj = _mm512_add_ps(sj, _mm512_maskz_loadu_ps(hm, ug + H));
            for (int b = 0; b < NB; ++b)
                acc[b] = _mm512_fmadd_ps(_mm512_permutexvar_ps(L.spread_idx(b), u), load_block<NB>(L, di, b), acc[b]);
        }
        // a_src_j = a_src[h]ᵀ xw_jh, a_dst_j = a_dst[h]ᵀ xw_jh ⇒ dxw_jh += da_src_jh a_src[h] + da_dst_jh a_dst[h]
        const __m512 dd = _mm512_maskz_loadu_ps(hm, da_dst + j * H);
        float* dj = dxw + j * HC;
        for (int b = 0; b < NB; ++b) {
            const __m512i idx = L.spread_idx(b);
            __m512 v = _mm512_fmadd_ps(_mm512_permutexvar_ps(idx, sj), load_block<NB>(L, att_src, b), acc[b]);
            v = _mm512_fmadd_ps(_mm512_permutexvar_ps(idx, dd), load_block<NB>(L, att_dst, b), v);
            store_block<NB>(L, dj, b, v);
        }
        _mm512_mask_storeu_ps(da_src + j * H, hm, sj);
    }
}

// Calls kernel.template operator()<NB>() for the layout's block count (1 … 16).
template <class Kernel>
void dispatch(const Layout& L, Kernel&& kernel) {
    switch (L.NB) {
#define GATKIT_NB(n) \
    case n: kernel.template operator()<n>(); return;
        GATKIT_NB(1) GATKIT_NB(2) GATKIT_NB(3) GATKIT_NB(4) GATKIT_NB(5) GATKIT_NB(6) GATKIT_NB(7) GATKIT_NB(8)
        GATKIT_NB(9) GATKIT_NB(10) GATKIT_NB(11) GATKIT_NB(12) GATKIT_NB(13) GATKIT_NB(14) GATKIT_NB(15) GATKIT_NB(16)
#undef GATKIT_NB
        default: throw ConfigError("gat_simd: row of " + std::to_string(L.HC) + " lanes is over the kernels' 256");
    }
}

}  // namespace

int gat_simd_lanes() { return kLanes; }

bool gat_simd_fits(Eigen::Index heads, Eigen::Index channels, bool concat) {
    if (!simd_on || heads < 1 || heads > kLanes || channels < 1 || heads * channels > kLanes * kMaxBlocks) return false;
    if (!concat && heads != 1) return false;
    return heads == 1 || channels % kLanes == 0 || channels == 1 || channels == 2 || channels == 4 || channels == 8;
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

#elif !(defined(__AVX2__) && defined(__FMA__))  // neither AVX-512 nor AVX2 (gat_simd_avx2.cpp): the portable loops run everywhere

int gat_simd_lanes() { return 0; }
bool gat_simd_fits(Eigen::Index, Eigen::Index, bool) { return false; }

[[noreturn]] static void no_simd() { throw ConfigError("gat_simd: this build has no vector GatConv kernels"); }
void gat_simd_node_scores(const GatSimdArgs&, const float*, const float*, const float*, float*, float*) { no_simd(); }
void gat_simd_forward(const GatSimdArgs&, const float*, const float*, const float*, const float*, const float*, float*, float*, float*) {
    no_simd();
}
void gat_simd_backward_dst(const GatSimdArgs&, const float*, const float*, const float*, const float*, const float*, const float*,
                           const float*, const float*, float*, float*) {
    no_simd();
}
void gat_simd_backward_src(const GatSimdArgs&, const float*, const float*, const float*, const float*, const float*, float*, float*) {
    no_simd();
}

#endif

}  // namespace gatkit::detail
