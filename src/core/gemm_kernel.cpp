#include "gatkit/core/gemm_kernel.hpp"

#include <algorithm>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#define GATKIT_FLOAT_GEMM 1
#else
#define GATKIT_FLOAT_GEMM 0
#endif

namespace gatkit::detail {

#if GATKIT_FLOAT_GEMM

namespace {

// One SIMD register of floats and the few operations the kernel needs. A masked load reads
// only the lanes of its mask (the others are zero and are never stored), so the last columns of
// a row need no padding and no scalar loop.
#if defined(__AVX512F__)
struct Vec {
    using Reg = __m512;
    using Mask = __mmask16;
    static constexpr int kLanes = 16;
    static Reg zero() { return _mm512_setzero_ps(); }
    static Reg load(const float* p) { return _mm512_loadu_ps(p); }
    static Reg load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
    static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
    static void store(float* p, Reg v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
    static Reg broadcast(float x) { return _mm512_set1_ps(x); }
    static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
    static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
    static Mask first(int n) { return static_cast<Mask>((1u << n) - 1u); }
    static Mask all() { return static_cast<Mask>(0xffffu); }
};
// 8 rows × 2 registers: 16 accumulators, 2 of B, 1 broadcast of 32 registers.
constexpr int kTileRows = 8;
#else
struct Vec {
    using Reg = __m256;
    using Mask = __m256i;
    static constexpr int kLanes = 8;
    static Reg zero() { return _mm256_setzero_ps(); }
    static Reg load(const float* p) { return _mm256_loadu_ps(p); }
    static Reg load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
    static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
    static void store(float* p, Reg v, Mask m) { _mm256_maskstore_ps(p, m, v); }
    static Reg broadcast(float x) { return _mm256_set1_ps(x); }
    static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
    static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
    static Mask first(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
    static Mask all() { return _mm256_set1_epi32(-1); }
};
// 6 rows × 2 registers: 12 accumulators, 2 of B, 1 broadcast of 16 registers.
constexpr int kTileRows = 6;
#endif

constexpr int kTileVectors = 2;
// Rows of A per block: 64 rows × K ≤ 512 floats (128 KiB) stay in L2 while every column panel
// of B goes past them once.
constexpr std::ptrdiff_t kRowBlock = 64;
// Steps of k per pass over a block's tiles (panel()): 128 rows of a 16-column panel of B are
// 8 KiB. On the Zen 3 host, one thread, against all K in one pass: Aᵀ·B 52 → 63 GFLOP/s for a
// 640-row weight gradient (256 × 256) and 32 → 45 for Cora's output layer (K = 2708); A·B 83 →
// 86 (`gatkit_bench gemm`; 64, 192 and 256 did no better).
constexpr std::ptrdiff_t kDepthBlock = 128;

struct Operands {
    const float* A;
    std::ptrdiff_t lda;
    const float* B;
    std::ptrdiff_t ldb;
    float* C;
    std::ptrdiff_t ldc;
    std::ptrdiff_t K;
    std::ptrdiff_t b_extent;  // elements from B on that belong to it: (K − 1)·ldb + N
    bool accumulate;
};

// acc[r][v] = fma(A[r, k], B[k, v-th register], acc[r][v]) for k in [k0, k1); with Masked, B's
// last register is read with the lanes of `tail` only (then V is 1). A[r, k] is A[r·lda + k], or
// with TransA (the product Aᵀ·B of a stored K×M matrix) A[k·lda + r].
template <int R, int V, bool Masked, bool TransA>
inline void multiply_add(const Operands& o, const float* A, const float* B, std::ptrdiff_t k0, std::ptrdiff_t k1, typename Vec::Mask tail,
                         typename Vec::Reg (&acc)[R][V]) {
    for (std::ptrdiff_t k = k0; k < k1; ++k) {
        typename Vec::Reg b[V];
        for (int v = 0; v < V; ++v) {
            const float* p = B + k * o.ldb + v * Vec::kLanes;
            b[v] = Masked && v == V - 1 ? Vec::load(p, tail) : Vec::load(p);
        }
        for (int r = 0; r < R; ++r) {
            const typename Vec::Reg a = Vec::broadcast(TransA ? A[k * o.lda + r] : A[r * o.lda + k]);
            for (int v = 0; v < V; ++v) acc[r][v] = Vec::fma(a, b[v], acc[r][v]);
        }
    }
}

// The steps k0 ≤ k < k1 of the tile at (A, B, C), C[0..R) × [0..V·kLanes); with Masked, the
// last register holds only the lanes of `tail` (then V is 1). `whole_rows`: for k below it, B's
// row k can be read as a whole register from the tile's first column on without leaving B
// (o.b_extent). A tile's sums start from zero at k = 0 and go to `partial` (row stride
// V·kLanes) between steps; after the last step (k1 = K) they go to C. Stored and reloaded
// registers keep their bits: each element is still one fma chain over k in order.
template <int R, int V, bool Masked, bool TransA>
inline void tile(const Operands& o, const float* A, const float* B, float* C, typename Vec::Mask tail, std::ptrdiff_t whole_rows,
                 std::ptrdiff_t k0, std::ptrdiff_t k1, float* partial) {
    constexpr int P = V * Vec::kLanes;
    typename Vec::Reg acc[R][V];
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) acc[r][v] = k0 == 0 ? Vec::zero() : Vec::load(partial + r * P + v * Vec::kLanes);
    if constexpr (Masked) {
        // A masked load whose register crosses a cache line is slow (a third of the product's
        // rate on Zen 4 for Cora's 7 classes), so the rows of B that allow it are read whole:
        // the lanes past the tail hold B's next values, whose products go to lanes never stored.
        const std::ptrdiff_t w = std::clamp(whole_rows, k0, k1);
        multiply_add<R, V, false, TransA>(o, A, B, k0, w, tail, acc);
        multiply_add<R, V, true, TransA>(o, A, B, w, k1, tail, acc);
    } else {
        multiply_add<R, V, false, TransA>(o, A, B, k0, k1, tail, acc);
    }
    if (k1 < o.K) {
        for (int r = 0; r < R; ++r)
            for (int v = 0; v < V; ++v) Vec::store(partial + r * P + v * Vec::kLanes, acc[r][v]);
        return;
    }
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) {
            float* p = C + r * o.ldc + v * Vec::kLanes;
            const bool masked = Masked && v == V - 1;
            typename Vec::Reg out = acc[r][v];
            if (o.accumulate) out = Vec::add(masked ? Vec::load(p, tail) : Vec::load(p), out);
            if (masked)
                Vec::store(p, out, tail);
            else
                Vec::store(p, out);
        }
}

// The last `rows` (< kTileRows) rows of a block: one tile of exactly that height.
template <int R, int V, bool Masked, bool TransA>
inline void last_rows(int rows, const Operands& o, const float* A, const float* B, float* C, typename Vec::Mask tail, std::ptrdiff_t whole_rows,
                      std::ptrdiff_t k0, std::ptrdiff_t k1, float* partial) {
    if constexpr (R > 0) {
        if (rows == R)
            tile<R, V, Masked, TransA>(o, A, B, C, tail, whole_rows, k0, k1, partial);
        else
            last_rows<R - 1, V, Masked, TransA>(rows, o, A, B, C, tail, whole_rows, k0, k1, partial);
    }
}

// Rows [i0, i0 + rows) × one column panel starting at column j, in steps of kDepthBlock values
// of k: every tile of the block takes the same kDepthBlock rows of B (and, for Aᵀ·B, of A) while
// they are in L1, instead of streaming all K of them per tile from L2.
template <int V, bool Masked, bool TransA>
void panel(const Operands& o, std::ptrdiff_t i0, std::ptrdiff_t rows, std::ptrdiff_t j, typename Vec::Mask tail) {
    // rows k of B with k·ldb + j + kLanes ≤ b_extent can be read whole from column j on
    const std::ptrdiff_t room = o.b_extent - j - Vec::kLanes;
    const std::ptrdiff_t whole_rows = room < 0 || o.ldb <= 0 ? 0 : std::min(o.K, room / o.ldb + 1);
    const auto a_row = [&](std::ptrdiff_t i) { return TransA ? o.A + i : o.A + i * o.lda; };
    constexpr std::ptrdiff_t P = V * Vec::kLanes;
    alignas(64) float partial[kRowBlock * P];
    std::ptrdiff_t k0 = 0;
    do {  // once when K is 0: C is then 0 (or kept, when accumulating)
        const std::ptrdiff_t k1 = std::min(o.K, k0 + kDepthBlock);
        std::ptrdiff_t i = i0;
        for (; i + kTileRows <= i0 + rows; i += kTileRows)
            tile<kTileRows, V, Masked, TransA>(o, a_row(i), o.B + j, o.C + i * o.ldc + j, tail, whole_rows, k0, k1, partial + (i - i0) * P);
        last_rows<kTileRows - 1, V, Masked, TransA>(static_cast<int>(i0 + rows - i), o, a_row(i), o.B + j, o.C + i * o.ldc + j, tail, whole_rows,
                                                    k0, k1, partial + (i - i0) * P);
        k0 = k1;
    } while (k0 < o.K);
}

template <bool TransA>
void product(const Operands& o, std::ptrdiff_t M, std::ptrdiff_t N) {
    constexpr std::ptrdiff_t W = Vec::kLanes, P = W * kTileVectors;
    for (std::ptrdiff_t i0 = 0; i0 < M; i0 += kRowBlock) {
        const std::ptrdiff_t rows = std::min(kRowBlock, M - i0);
        std::ptrdiff_t j = 0;
        for (; j + P <= N; j += P) panel<kTileVectors, false, TransA>(o, i0, rows, j, Vec::all());
        for (; j + W <= N; j += W) panel<1, false, TransA>(o, i0, rows, j, Vec::all());
        if (j < N) panel<1, true, TransA>(o, i0, rows, j, Vec::first(static_cast<int>(N - j)));
    }
}

}  // namespace

bool float_gemm_kernel() noexcept { return true; }

void float_gemm(const float* A, std::ptrdiff_t lda, const float* B, std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc, std::ptrdiff_t M,
                std::ptrdiff_t N, std::ptrdiff_t K, bool accumulate) noexcept {
    if (M <= 0 || N <= 0) return;
    K = std::max<std::ptrdiff_t>(K, 0);
    product<false>({A, lda, B, ldb, C, ldc, K, K > 0 ? (K - 1) * ldb + N : 0, accumulate}, M, N);
}

void float_gemm_tn(const float* A, std::ptrdiff_t lda, const float* B, std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc, std::ptrdiff_t M,
                   std::ptrdiff_t N, std::ptrdiff_t K, bool accumulate) noexcept {
    if (M <= 0 || N <= 0) return;
    K = std::max<std::ptrdiff_t>(K, 0);
    product<true>({A, lda, B, ldb, C, ldc, K, K > 0 ? (K - 1) * ldb + N : 0, accumulate}, M, N);
}

#else

bool float_gemm_kernel() noexcept { return false; }

void float_gemm(const float*, std::ptrdiff_t, const float*, std::ptrdiff_t, float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                bool) noexcept {}

void float_gemm_tn(const float*, std::ptrdiff_t, const float*, std::ptrdiff_t, float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                   std::ptrdiff_t, bool) noexcept {}

#endif

void float_transpose(const float* from, std::ptrdiff_t R, std::ptrdiff_t C, float* to) noexcept {
    constexpr std::ptrdiff_t b = 16;
    for (std::ptrdiff_t i0 = 0; i0 < R; i0 += b)
        for (std::ptrdiff_t j0 = 0; j0 < C; j0 += b) {
            const std::ptrdiff_t i1 = std::min(R, i0 + b), j1 = std::min(C, j0 + b);
#if defined(__SSE__)
            if (i1 - i0 == b && j1 - j0 == b) {
                for (std::ptrdiff_t i = i0; i < i1; i += 4)
                    for (std::ptrdiff_t j = j0; j < j1; j += 4) {
                        __m128 r0 = _mm_loadu_ps(from + i * C + j), r1 = _mm_loadu_ps(from + (i + 1) * C + j);
                        __m128 r2 = _mm_loadu_ps(from + (i + 2) * C + j), r3 = _mm_loadu_ps(from + (i + 3) * C + j);
                        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                        _mm_storeu_ps(to + j * R + i, r0);
                        _mm_storeu_ps(to + (j + 1) * R + i, r1);
                        _mm_storeu_ps(to + (j + 2) * R + i, r2);
                        _mm_storeu_ps(to + (j + 3) * R + i, r3);
                    }
                continue;
            }
#endif
            transpose_block(from, R, C, to, i0, i1, j0, j1);
        }
}

}  // namespace gatkit::detail
