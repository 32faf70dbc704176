// gatkit's float product kernel: bit for bit its definition (one fma chain per element, from
// zero, k in order), on every edge of its tiling, for A·B and Aᵀ·B, through gemm_nn, gemm_nt
// and gemm_tn with 1 and 2 threads, and close to the double-precision product.
#include "gatkit/core/gemm_kernel.hpp"
#include "gatkit/core/parallel.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <tuple>

using namespace gatkit;
using gatkit::test::random_matrix;
using gatkit::test::same_bits;

namespace {

// C[i,j] (+)= s with s = fma(A[i,k], B[k,j], s) over k = 0 .. K−1 from s = 0: the kernel's
// definition (core/gemm_kernel.hpp), written as a scalar loop.
void definition(const Matrix& A, const Matrix& B, Matrix& C, bool accumulate) {
    for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < B.cols(); ++j) {
            float s = 0.0f;
            for (Eigen::Index k = 0; k < A.cols(); ++k) s = std::fma(A(i, k), B(k, j), s);
            C(i, j) = accumulate ? C(i, j) + s : s;
        }
}

}  // namespace

TEST_CASE("float_gemm is its fma-chain definition bit for bit, on every tile edge", "[core][gemm]") {
    if (!detail::float_gemm_kernel()) {
        WARN("this build has no float GEMM kernel (no AVX2+FMA or AVX-512): gemm_nn uses Eigen, tested in test_parallel.cpp");
        return;
    }
    Rng rng(21);
    // rows: below, at and past a tile (8 or 6 rows) and a block (64 rows); columns: partial,
    // whole and mixed registers (16 or 8 lanes) and panels (2 registers); K: none, one, odd,
    // the molecule layers' widths, one depth block (128 steps of k) and past it, three blocks
    for (const Eigen::Index m : {1, 5, 6, 7, 8, 9, 13, 63, 64, 65, 130})
        for (const Eigen::Index n : {1, 4, 7, 8, 15, 16, 17, 31, 32, 33, 48, 100, 256})
            for (const Eigen::Index k : {0, 1, 3, 14, 64, 128, 129, 173, 300}) {
                INFO("M=" << m << " N=" << n << " K=" << k);
                const Matrix A = random_matrix<float>(m, k, rng);
                const Matrix B = random_matrix<float>(k, n, rng);
                const Matrix C0 = random_matrix<float>(m, n, rng);
                for (const bool accumulate : {false, true}) {
                    Matrix expect = C0, got = C0;
                    definition(A, B, expect, accumulate);
                    detail::float_gemm(A.data(), k, B.data(), n, got.data(), n, m, n, k, accumulate);
                    CHECK(same_bits(got, expect));
                }
            }
}

TEST_CASE("float_gemm_tn is the fma-chain definition of Aᵀ·B bit for bit", "[core][gemm]") {
    if (!detail::float_gemm_kernel()) {
        WARN("this build has no float GEMM kernel: nothing to test here");
        return;
    }
    Rng rng(24);
    // the product's rows m are the stored matrix's columns; its reduction runs over the stored rows
    for (const Eigen::Index m : {1, 7, 8, 9, 64, 65, 130})
        for (const Eigen::Index n : {1, 7, 16, 17, 33, 64})
            for (const Eigen::Index k : {0, 1, 14, 128, 129, 300}) {
                INFO("M=" << m << " N=" << n << " K=" << k);
                const Matrix stored = random_matrix<float>(k, m, rng);  // K×M: the product reads its transpose
                const Matrix B = random_matrix<float>(k, n, rng);
                const Matrix C0 = random_matrix<float>(m, n, rng);
                for (const bool accumulate : {false, true}) {
                    Matrix expect = C0, got = C0;
                    definition(stored.transpose(), B, expect, accumulate);
                    detail::float_gemm_tn(stored.data(), m, B.data(), n, got.data(), n, m, n, k, accumulate);
                    CHECK(same_bits(got, expect));
                }
            }
}

TEST_CASE("gemm_nt and gemm_tn with the kernel: the definition, and the same bits with 1 and 2 threads", "[core][gemm]") {
    if (!detail::float_gemm_kernel()) {
        WARN("this build has no float GEMM kernel: gemm_nt and gemm_tn are Eigen's, tested in test_parallel.cpp");
        return;
    }
    const int saved = thread_count();
    Rng rng(25);
    // a molecule batch's backward: dx = dy·Wᵀ and dW = xᵀ·dy (reduction over 525 rows; both
    // at least kKernelMinRowsNt and at most kKernelReduceRows, so both take the kernel)
    static_assert(525 >= kKernelMinRowsNt && 525 <= kKernelReduceRows);
    const Matrix x = random_matrix<float>(525, 256, rng), dy = random_matrix<float>(525, 96, rng), W = random_matrix<float>(256, 96, rng);
    Matrix dx_expect(525, 256), dW_expect(256, 96);
    definition(dy, Matrix(W.transpose()), dx_expect, false);
    definition(Matrix(x.transpose()), dy, dW_expect, false);
    for (const int threads : {1, 2}) {
        set_thread_count(threads);
        Matrix dx, dW;
        gemm_nt(dy, W, dx);
        gemm_tn(x, dy, dW);
        CHECK(same_bits(dx, dx_expect));
        CHECK(same_bits(dW, dW_expect));
        // no rows at all (an empty batch): a reduction over nothing is zero, in every chunk
        Matrix empty_dW;
        gemm_tn(Matrix(0, 256), Matrix(0, 96), empty_dW);
        REQUIRE(empty_dW.rows() == 256);
        CHECK((empty_dW.array() == 0.0f).all());
    }
    set_thread_count(saved);
}

TEST_CASE("float_gemm reads and writes sub-blocks through their row strides only", "[core][gemm]") {
    if (!detail::float_gemm_kernel()) {
        WARN("this build has no float GEMM kernel: nothing to test here");
        return;
    }
    Rng rng(22);
    // A, B and C are blocks inside larger matrices: the kernel must use lda, ldb, ldc and leave
    // every element outside C's block as it was (the masked last columns included)
    const Matrix big_a = random_matrix<float>(40, 50, rng), big_b = random_matrix<float>(60, 70, rng);
    const Matrix sentinel = Matrix::Constant(45, 80, std::numeric_limits<float>::quiet_NaN());
    const Eigen::Index m = 19, k = 37, n = 21;  // 21 = one full 16-lane register + 5 masked lanes
    const Matrix A = big_a.block(3, 5, m, k), B = big_b.block(2, 9, k, n);
    Matrix big_c = sentinel;
    detail::float_gemm(big_a.data() + 3 * 50 + 5, 50, big_b.data() + 2 * 70 + 9, 70, big_c.data() + 4 * 80 + 6, 80, m, n, k, false);
    Matrix expect(m, n);
    definition(A, B, expect, false);
    CHECK(same_bits(Matrix(big_c.block(4, 6, m, n)), expect));
    Matrix outside = big_c;
    outside.block(4, 6, m, n).setConstant(std::numeric_limits<float>::quiet_NaN());
    CHECK(outside.array().isNaN().all());
}

TEST_CASE("gemm_nn with the kernel is the product: close to double precision, sizes of a layer", "[core][gemm]") {
    Rng rng(23);
    // a molecule batch's hidden layer and Cora's output layer (7 classes: one masked register)
    for (const auto& [m, k, n] : {std::tuple<Eigen::Index, Eigen::Index, Eigen::Index>{525, 256, 256}, {2708, 64, 7}}) {
        INFO("M=" << m << " K=" << k << " N=" << n);
        const Matrix A = random_matrix<float>(m, k, rng), B = random_matrix<float>(k, n, rng);
        Matrix C;
        gemm_nn(A, B, C);
        const MatrixT<double> ref = A.cast<double>() * B.cast<double>();
        // sums of ≤ 256 products of entries in [-1, 1]: float error well under 1e-4 per element
        CHECK((C.cast<double>() - ref).cwiseAbs().maxCoeff() < 1e-4);
    }
}

TEST_CASE("float_transpose copies every element to its transposed place", "[core][gemm]") {
    Rng rng(33);
    // whole 16×16 blocks (register transposes), partial blocks on either edge, and both
    for (const Eigen::Index r : {0, 1, 3, 15, 16, 17, 32, 174, 256})
        for (const Eigen::Index c : {0, 1, 4, 16, 31, 64, 256}) {
            INFO(r << "×" << c);
            const Matrix from = random_matrix<float>(r, c, rng);
            Matrix to = Matrix::Constant(c, r, -1.0f);
            detail::float_transpose(from.data(), r, c, to.data());
            CHECK(same_bits(to, Matrix(from.transpose())));
        }
}
