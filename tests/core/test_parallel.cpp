// Deterministic chunked products: equal to the matrix formula, and bit-identical for any
// thread count.
#include "gatkit/core/parallel.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <omp.h>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

using MatD = MatrixT<double>;

// C = A·B straight from the definition.
MatD naive_nn(const MatD& A, const MatD& B) {
    MatD C = MatD::Zero(A.rows(), B.cols());
    for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < B.cols(); ++j)
            for (Eigen::Index k = 0; k < A.cols(); ++k) C(i, j) += A(i, k) * B(k, j);
    return C;
}

MatD transposed(const MatD& A) { return A.transpose(); }

// The float kernel's definition: per element s = fma(A[i,k], B[k,j], s) for k = 0, 1, …
Matrix fma_chain_product(const Matrix& A, const Matrix& B) {
    Matrix C(A.rows(), B.cols());
    for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < B.cols(); ++j) {
            float s = 0.0f;
            for (Eigen::Index k = 0; k < A.cols(); ++k) s = std::fma(A(i, k), B(k, j), s);
            C(i, j) = s;
        }
    return C;
}

// Restores the thread count when a test ends, even if it fails.
struct ThreadCountGuard {
    int saved = thread_count();
    ~ThreadCountGuard() { set_thread_count(saved); }
};

constexpr double kTol = 1e-12;  // double sums of ≤ 300 products of entries in [-1, 1]

}  // namespace

TEST_CASE("gemm_nn / gemm_tn / gemm_nt equal the naive triple loop", "[core][parallel]") {
    Rng rng(3);
    struct Shape {
        Eigen::Index m, k, n;
    };
    for (const Shape s : {Shape{130, 37, 5}, Shape{1, 1, 1}, Shape{64, 3, 7}, Shape{65, 64, 2}, Shape{200, 129, 66}, Shape{3, 70, 1}}) {
        INFO("M=" << s.m << " K=" << s.k << " N=" << s.n);
        const MatD A = random_matrix<double>(s.m, s.k, rng);
        const MatD B = random_matrix<double>(s.k, s.n, rng);
        const MatD expect = naive_nn(A, B);

        MatD C;
        gemm_nn(A, B, C);
        REQUIRE(C.rows() == s.m);
        REQUIRE(C.cols() == s.n);
        CHECK((C - expect).cwiseAbs().maxCoeff() < kTol);

        // gemm_tn(X, B) = Xᵀ·B; with X = Aᵀ (K×M) that is A·B
        MatD Ct;
        gemm_tn(transposed(A), B, Ct);
        REQUIRE(Ct.rows() == s.m);
        REQUIRE(Ct.cols() == s.n);
        CHECK((Ct - expect).cwiseAbs().maxCoeff() < kTol);

        // gemm_nt(A, Y) = A·Yᵀ; with Y = Bᵀ (N×K) that is A·B
        MatD Cn;
        gemm_nt(A, transposed(B), Cn);
        REQUIRE(Cn.rows() == s.m);
        REQUIRE(Cn.cols() == s.n);
        CHECK((Cn - expect).cwiseAbs().maxCoeff() < kTol);
    }
}

TEST_CASE("gemm_tn with many output rows (K > kRowChunk, not a multiple)", "[core][parallel]") {
    Rng rng(4);
    const MatD A = random_matrix<double>(37, 130, rng);  // M×K, K = 130 output rows
    const MatD B = random_matrix<double>(37, 5, rng);
    MatD C;
    gemm_tn(A, B, C);
    REQUIRE(C.rows() == 130);
    REQUIRE(C.cols() == 5);
    CHECK((C - naive_nn(transposed(A), B)).cwiseAbs().maxCoeff() < kTol);
}

TEST_CASE("gemm accumulate=true adds to C", "[core][parallel]") {
    Rng rng(5);
    const MatD A = random_matrix<double>(130, 37, rng);
    const MatD B = random_matrix<double>(37, 5, rng);
    const MatD C0 = random_matrix<double>(130, 5, rng);
    const MatD expect = C0 + naive_nn(A, B);

    MatD C = C0;
    gemm_nn(A, B, C, /*accumulate=*/true);
    CHECK((C - expect).cwiseAbs().maxCoeff() < kTol);

    C = C0;
    gemm_tn(transposed(A), B, C, true);
    CHECK((C - expect).cwiseAbs().maxCoeff() < kTol);

    C = C0;
    gemm_nt(A, transposed(B), C, true);
    CHECK((C - expect).cwiseAbs().maxCoeff() < kTol);

    // without accumulate the old content is discarded
    C = C0;
    gemm_nn(A, B, C, false);
    CHECK((C - naive_nn(A, B)).cwiseAbs().maxCoeff() < kTol);
}

TEST_CASE("gemm shape mismatch throws ShapeError with both sizes", "[core][parallel]") {
    Rng rng(6);
    const MatD A = random_matrix<double>(4, 3, rng);
    const MatD B = random_matrix<double>(5, 2, rng);
    MatD C;
    CHECK_THROWS_AS(gemm_nn(A, B, C), ShapeError);
    CHECK_THROWS_WITH(gemm_nn(A, B, C), Catch::Contains("gemm_nn") && Catch::Contains("3") && Catch::Contains("5"));
    CHECK_THROWS_AS(gemm_tn(A, B, C), ShapeError);  // A.rows 4 vs B.rows 5
    CHECK_THROWS_AS(gemm_nt(A, B, C), ShapeError);  // A.cols 3 vs B.cols 2
    CHECK_THROWS_AS(set_thread_count(0), ConfigError);
}

TEST_CASE("gemm results are bit-identical with 1 and 2 threads", "[core][parallel]") {
    ThreadCountGuard guard;
    Rng rng(7);
    const Matrix A = random_matrix<float>(1000, 300, rng);
    const Matrix B = random_matrix<float>(300, 64, rng);
    const Matrix Bt = B.transpose();
    const Matrix At = A.transpose();

    auto run = [&](int threads) {
        set_thread_count(threads);
        REQUIRE(thread_count() == threads);
        std::vector<Matrix> out(3);
        gemm_nn(A, B, out[0]);
        gemm_tn(At, B, out[1]);
        gemm_nt(A, Bt, out[2]);
        return out;
    };
    const auto one = run(1);
    const auto two = run(2);
    for (int k = 0; k < 3; ++k) {
        INFO("product " << k);
        REQUIRE(one[k].rows() == 1000);
        REQUIRE(one[k].cols() == 64);
        // bitwise: compare with ==, not a tolerance
        CHECK((one[k].array() == two[k].array()).all());
    }
    // and the float result is close to the double one (it is the right product, not just stable)
    const MatD ref = A.cast<double>() * B.cast<double>();
    CHECK((one[0].cast<double>() - ref).cwiseAbs().maxCoeff() < 1e-3);
}

TEST_CASE("gemm_nn gives the same bits on one thread (one product), on two (chunks) and inside a parallel region", "[core][parallel]") {
    ThreadCountGuard guard;
    Rng rng(11);
    struct Shape {
        Eigen::Index m, k, n;
    };
    // last chunks of 0, 1 (a matrix-vector product in Eigen), 2 and 13 rows; tiny K and N (Eigen's
    // coefficient loops for a small last chunk); the layer shapes of a molecule batch and of Cora
    for (const Shape s : {Shape{192, 256, 256}, Shape{193, 256, 256}, Shape{194, 14, 1}, Shape{130, 14, 2}, Shape{525, 256, 256},
                          Shape{525, 173, 256}, Shape{2708, 1433, 64}, Shape{3 * kRowChunk + 1, 3, 1}}) {
        INFO("M=" << s.m << " K=" << s.k << " N=" << s.n);
        const Matrix A = random_matrix<float>(s.m, s.k, rng);
        const Matrix B = random_matrix<float>(s.k, s.n, rng);
        const Matrix C0 = random_matrix<float>(s.m, s.n, rng);
        // the definition: with gatkit's kernel one fma chain per element (core/gemm_kernel.hpp),
        // else one Eigen product per chunk of kRowChunk rows
        Matrix expect(s.m, s.n), expect_acc = C0;
        if (detail::float_gemm_kernel()) {
            expect = fma_chain_product(A, B);
            expect_acc = C0 + expect;
        } else {
            for (Eigen::Index r0 = 0; r0 < s.m; r0 += kRowChunk) {
                const Eigen::Index rn = std::min(kRowChunk, s.m - r0);
                expect.middleRows(r0, rn).noalias() = A.middleRows(r0, rn) * B;
                expect_acc.middleRows(r0, rn).noalias() += A.middleRows(r0, rn) * B;
            }
        }
        for (const int threads : {1, 2}) {
            set_thread_count(threads);
            Matrix C, C_acc = C0;
            gemm_nn(A, B, C);
            gemm_nn(A, B, C_acc, /*accumulate=*/true);
            CHECK((C.array() == expect.array()).all());
            CHECK((C_acc.array() == expect_acc.array()).all());
        }
        // inside a parallel region (as predict_graphs runs its batches) the product is serial too
        set_thread_count(2);
        std::vector<Matrix> inner(2);
        std::vector<int> serial(2, 0);  // Catch's macros are not thread-safe: checked after the region
#pragma omp parallel for num_threads(2)
        for (int t = 0; t < 2; ++t) {
            serial[static_cast<std::size_t>(t)] = runs_serially() ? 1 : 0;
            gemm_nn(A, B, inner[static_cast<std::size_t>(t)]);
        }
        CHECK(serial == std::vector<int>{1, 1});
        for (const Matrix& C : inner) CHECK((C.array() == expect.array()).all());
    }
    set_thread_count(2);
    CHECK_FALSE(runs_serially());
    set_thread_count(1);
    CHECK(runs_serially());
}

TEST_CASE("gemm_tn over a long reduction (split into fixed parts) is right and thread-independent",
          "[core][parallel]") {
    ThreadCountGuard guard;
    Rng rng(8);
    // M ≥ kReduceSplitRows and K ≤ kRowChunk: the weight-gradient shape of a million-node layer
    const Eigen::Index M = kReduceSplitRows + 1237, K = 12, N = 5;
    const Matrix A = random_matrix<float>(M, K, rng);
    const Matrix B = random_matrix<float>(M, N, rng);
    const Matrix C0 = random_matrix<float>(K, N, rng);
    const MatD ref = A.cast<double>().transpose() * B.cast<double>();

    auto run = [&](int threads, bool accumulate) {
        set_thread_count(threads);
        Matrix C = C0;
        gemm_tn(A, B, C, accumulate);
        return C;
    };
    const Matrix one = run(1, false), two = run(2, false);
    REQUIRE(one.rows() == K);
    REQUIRE(one.cols() == N);
    CHECK((one.array() == two.array()).all());
    // sums of ~67k products of entries in [-1, 1] (|sum| ~ 150): float error well under 1e-2
    CHECK((one.cast<double>() - ref).cwiseAbs().maxCoeff() < 1e-2);
    const Matrix acc1 = run(1, true), acc2 = run(2, true);
    CHECK((acc1.array() == acc2.array()).all());
    CHECK((acc1.cast<double>() - (C0.cast<double>() + ref)).cwiseAbs().maxCoeff() < 1e-2);
}

TEST_CASE("add_column_sums gives the one-thread row-order sums bit for bit with 1 and 2 threads", "[core][parallel]") {
    ThreadCountGuard guard;
    Rng rng(9);
    // two row chunks (the second partial), and a width that leaves a partial column block
    for (const Eigen::Index W : {Eigen::Index{1}, Eigen::Index{70}, Eigen::Index{256}}) {
        INFO("W=" << W);
        const Eigen::Index R = kSumChunk + 517;
        const Matrix m = random_matrix<float>(R, W, rng);
        const Matrix start = random_matrix<float>(1, W, rng);
        // the definition: per chunk a partial in row order, the partials added to out in chunk order
        Matrix expect = start;
        for (Eigen::Index b = 0; b < sum_chunks(R); ++b) {
            Matrix p = Matrix::Zero(1, W);
            for (Eigen::Index n = b * kSumChunk; n < std::min(R, (b + 1) * kSumChunk); ++n)
                for (Eigen::Index k = 0; k < W; ++k) p(0, k) += m(n, k);
            expect += p;
        }
        for (const int threads : {1, 2}) {
            set_thread_count(threads);
            Matrix out = start;
            add_column_sums(m, out);
            CHECK((out.array() == expect.array()).all());
        }
    }
}

TEST_CASE("for_each_item runs every item once, on at most item_threads threads, with 1 and 2 threads", "[core][parallel]") {
    ThreadCountGuard guard;
    for (const int threads : {1, 2}) {
        set_thread_count(threads);
        CHECK(item_threads(0) == 1);
        CHECK(item_threads(1) == 1);
        CHECK(item_threads(100) == threads);
        CHECK(item_threads(100, 1) == 1);
        CHECK(item_threads(100, 8) == threads);  // never more than thread_count()
        CHECK_THROWS_AS(item_threads(10, -1), ConfigError);
        for (const std::ptrdiff_t chunk : {std::ptrdiff_t{1}, std::ptrdiff_t{8}}) {
            INFO("threads=" << threads << " chunk=" << chunk);
            const std::ptrdiff_t n = 203;
            std::vector<int> runs(static_cast<std::size_t>(n), 0), thread_of(static_cast<std::size_t>(n), -1);
            for_each_item(n, {.chunk = chunk}, [&](std::ptrdiff_t k, int t) {
                runs[static_cast<std::size_t>(k)] += 1;  // each item on one thread: no race
                thread_of[static_cast<std::size_t>(k)] = t;
            });
            CHECK(std::all_of(runs.begin(), runs.end(), [](int r) { return r == 1; }));
            CHECK(std::all_of(thread_of.begin(), thread_of.end(), [&](int t) { return t >= 0 && t < item_threads(n); }));
        }
        int calls = 0;
        for_each_item(0, [&](std::ptrdiff_t) { ++calls; });  // nothing to do
        CHECK(calls == 0);
    }
}

TEST_CASE("for_each_item reports the lowest failing item, whatever the threads and timing", "[core][parallel]") {
    ThreadCountGuard guard;
    // Items 3 and 40 fail. Item 3 fails only after a pause, so with two threads item 40 (taken
    // by the other thread) has failed first in time: the rule is the item's position, not time.
    struct Failed : std::runtime_error {
        std::ptrdiff_t item;
        explicit Failed(std::ptrdiff_t k) : std::runtime_error("item " + std::to_string(k)), item(k) {}
    };
    for (const int threads : {1, 2}) {
        set_thread_count(threads);
        for (const std::ptrdiff_t chunk : {std::ptrdiff_t{1}, std::ptrdiff_t{4}}) {
            INFO("threads=" << threads << " chunk=" << chunk);
            for (int rep = 0; rep < 5; ++rep) {
                std::ptrdiff_t reported = -1;
                try {
                    for_each_item(64, {.chunk = chunk}, [&](std::ptrdiff_t k) {
                        if (k == 3) {
                            std::this_thread::sleep_for(std::chrono::milliseconds(20));
                            throw Failed(3);
                        }
                        if (k == 40) throw Failed(40);
                    });
                } catch (const Failed& e) {
                    reported = e.item;
                }
                CHECK(reported == 3);
            }
        }
    }
}

TEST_CASE("for_each_item inside a parallel region runs its items on the calling thread, in order", "[core][parallel]") {
    ThreadCountGuard guard;
    set_thread_count(2);
    std::vector<std::vector<std::ptrdiff_t>> seen(2);
    std::vector<int> inner_threads(2, 0), team(2, 0);
#pragma omp parallel num_threads(2)
    {
        const auto outer = static_cast<std::size_t>(omp_get_thread_num());
        team[outer] = omp_get_num_threads();
        inner_threads[outer] = item_threads(50);
        for_each_item(50, [&](std::ptrdiff_t k, int t) {
            // this thread's own list: it alone runs these items (Catch's checks stay outside)
            seen[outer].push_back(t == 0 ? k : -1);
        });
    }
    std::vector<std::ptrdiff_t> in_order(50);
    std::iota(in_order.begin(), in_order.end(), 0);
    for (std::size_t t = 0; t < 2; ++t) {
        if (team[t] < 2) continue;  // the region had one thread: not nested in an active region
        CHECK(inner_threads[t] == 1);
        CHECK(seen[t] == in_order);
    }
}
