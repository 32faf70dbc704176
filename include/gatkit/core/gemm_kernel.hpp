// gatkit's own single-precision matrix product kernel, for row-major matrices.
//
//   C (M×N) = A (M×K) · B (K×N)      or, with accumulate,      C = C + A · B
//
// Every element is one fused multiply-add chain in the order k = 0, 1, …, K−1, started from zero:
//
//   s = 0;  for k: s = fma(A[i,k], B[k,j], s);   C[i,j] = s   (accumulate: C[i,j] = C[i,j] + s)
//
// so an element's bits depend on nothing but its row of A and its column of B: not on how many
// rows are computed at once, nor on which thread computes them (gemm_nn's chunks and threads
// give the same bits by construction). tests/core/test_gemm_kernel.cpp checks this definition
// bit for bit against a scalar std::fma loop.
//
// Why not Eigen's product: for the layer shapes of gatkit (K of 14–512, N of 4–512, 64 rows to a
// few thousand per call) Eigen 3.4 packs both operands on every call; on the Zen 4 machine its
// AVX-512 micro-kernel reached 86–89 GFLOP/s per core on a molecule layer (640×256·256) where
// this kernel, which reads A and B in place, reaches 112–114, and 34 against 42 on Cora's output
// layer (2708×64·7) (`gatkit_bench gemm`; docs/design.md, "Dense products"). Register tile: 8
// rows × 32 columns (16 AVX-512 accumulators) or 6 rows × 16 columns with AVX2 (12); rows go in
// blocks of 64, so a block of A stays in L1/L2 while B's column panels stream from L2, and k in
// steps of 128, which every tile of the block takes from L1 (a tile's sums wait in a small buffer
// between steps: the same fma chain, the same bits).
//
// Builds without AVX2 and FMA (GATKIT_NATIVE=OFF on a generic x86-64 target, other machines)
// have no kernel: float_gemm_kernel() is false there and gemm_nn uses Eigen.
#pragma once

#include <cstddef>

namespace gatkit::detail {

// True when this build of the library has the kernel (AVX-512F, or AVX2 with FMA).
bool float_gemm_kernel() noexcept;

// C = A·B or C += A·B as above, for M×K A, K×N B and M×N C with row strides lda, ldb, ldc (in
// elements, ldb ≥ N). C must not overlap A or B. B is read from B[0] up to B[(K−1)·ldb + N − 1]
// and not beyond: the last columns of a row are loaded as a whole register where that stays
// inside this range (the extra lanes are never stored), with a masked load where it does not.
// Does nothing when float_gemm_kernel() is false.
void float_gemm(const float* A, std::ptrdiff_t lda, const float* B, std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc, std::ptrdiff_t M,
                std::ptrdiff_t N, std::ptrdiff_t K, bool accumulate) noexcept;

// C = Aᵀ·B or C += Aᵀ·B for A stored as a K×M matrix with row stride lda (A's element [r, k] of
// the product is the stored A[k·lda + r]): the same fma chain per element, over k in order.
// For weight gradients, xᵀ·dy, whose reduction runs over the node rows.
void float_gemm_tn(const float* A, std::ptrdiff_t lda, const float* B, std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc, std::ptrdiff_t M,
                   std::ptrdiff_t N, std::ptrdiff_t K, bool accumulate) noexcept;

// to = fromᵀ for an R×C row-major `from` into a C×R row-major `to` (not overlapping), in 16×16
// blocks; whole blocks as 4×4 register transposes where the machine has SSE (every x86-64:
// a 256×256 weight in 7.6 µs against 20.6 for the element loop, in cache, Zen 5), the rest
// element by element. Values are copied, never computed: the same bits either way. gemm_nt's
// copy of Bᵀ (core/parallel.hpp: transpose_into) was 3.7 % of a BBBP training run.
void float_transpose(const float* from, std::ptrdiff_t R, std::ptrdiff_t C, float* to) noexcept;

// to = fromᵀ element by element over the block [i0, i1) × [j0, j1) of the R×C `from` (the
// C×R `to`): the 16×16 blocks of transpose_into and the edge blocks of float_transpose.
template <class T>
void transpose_block(const T* from, std::ptrdiff_t R, std::ptrdiff_t C, T* to, std::ptrdiff_t i0, std::ptrdiff_t i1, std::ptrdiff_t j0,
                     std::ptrdiff_t j1) noexcept {
    for (std::ptrdiff_t i = i0; i < i1; ++i)
        for (std::ptrdiff_t j = j0; j < j1; ++j) to[j * R + i] = from[i * C + j];
}

}  // namespace gatkit::detail
