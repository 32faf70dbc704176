// Distinct rows (core/distinct_rows.hpp): rows are merged exactly when every bit agrees, also
// where they differ only outside the hashed sample of columns; a product on the distinct rows
// has gemm_nn's bits, with and without accumulation, with 1 and 2 threads; the transposed
// product (a weight gradient) equals xᵀ·dy to rounding, with the same bits for 1 and 2 threads.
#include "gatkit/core/distinct_rows.hpp"
#include "gatkit/core/gemm_kernel.hpp"
#include "gatkit/core/parallel.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace gatkit;
using gatkit::test::random_matrix;
using gatkit::test::same_bits;

namespace {

// `distinct` random rows, then `rows` rows each a copy of one of them (row i copies i mod
// distinct, so the first `distinct` rows are the distinct ones, in order).
Matrix repeated_rows(Eigen::Index rows, Eigen::Index distinct, Eigen::Index cols, Rng& rng) {
    const Matrix base = random_matrix<float>(distinct, cols, rng);
    Matrix x(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i) x.row(i) = base.row(i % distinct);
    return x;
}

}  // namespace

TEST_CASE("DistinctRows merges rows exactly when all their bits agree", "[core][distinct]") {
    Rng rng(5);
    const Eigen::Index F = 256;
    Matrix x = repeated_rows(12, 4, F, rng);
    // Row 8 differs from row 0 in one column outside the hashed sample (every 16th column from
    // 0), row 9 from row 1 by the sign of a zero; rows 10 and 11 hold the same NaN.
    x(8, 1) = std::nextafter(x(8, 1), 2.0f);
    x(1, 5) = 0.0f;
    x(5, 5) = 0.0f;
    x(9, 5) = -0.0f;
    x(10, 7) = std::numeric_limits<float>::quiet_NaN();
    x.row(11) = x.row(10);

    DistinctRows d;
    d.find(x);
    REQUIRE(d.rows() == 12);
    // distinct: rows 0..3 (4..7 repeat them), 8, 9, 10 (11 repeats 10)
    CHECK(d.count() == 7);
    CHECK(d.first() == std::vector<Eigen::Index>{0, 1, 2, 3, 8, 9, 10});
    CHECK(d.of_row() == std::vector<Eigen::Index>{0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 6});
    // 7 distinct of 12 rows: the products run on the 7 where the build has the kernel
    CHECK(d.compact() == detail::float_gemm_kernel());

    // all rows distinct: no compact copy, gemm_nn on every row
    const Matrix y = random_matrix<float>(40, 9, rng);
    d.find(y);
    CHECK(d.count() == 40);
    CHECK_FALSE(d.compact());

    // no rows, no columns
    d.find(Matrix(0, 5));
    CHECK(d.count() == 0);
    d.find(Matrix(6, 0));
    CHECK(d.count() == 1);
    CHECK(d.of_row() == std::vector<Eigen::Index>(6, 0));
}

TEST_CASE("A product on the distinct rows has gemm_nn's bits", "[core][distinct]") {
    Rng rng(9);
    for (const int threads : {1, 2}) {
        const ThreadScope scope(threads);
        // rows below and past a product chunk, widths with partial registers, the molecule layers'
        for (const Eigen::Index rows : {3, 70, 300})
            for (const Eigen::Index distinct : {Eigen::Index{1}, rows / 3 + 1, rows})
                for (const auto& [K, N] : {std::pair<Eigen::Index, Eigen::Index>{256, 256}, {14, 7}, {64, 33}}) {
                    INFO("threads " << threads << ", rows " << rows << ", distinct " << distinct << ", " << K << "→" << N);
                    const Matrix x = repeated_rows(rows, distinct, K, rng);
                    const Matrix B = random_matrix<float>(K, N, rng);
                    const Matrix C0 = random_matrix<float>(rows, N, rng);
                    DistinctRows d;
                    d.find(x);
                    CHECK(d.count() == distinct);
                    for (const bool accumulate : {false, true}) {
                        Matrix expect = C0, got = C0;
                        gemm_nn(x, B, expect, accumulate);
                        d.times(x, B, got, accumulate);
                        CHECK(same_bits(got, expect));
                    }
                }
    }
}

TEST_CASE("A transposed product on the distinct rows is xᵀ·dy, whatever the thread count", "[core][distinct]") {
    Rng rng(11);
    for (const Eigen::Index rows : {3, 70, 300})
        for (const Eigen::Index distinct : {Eigen::Index{1}, rows / 3 + 1, rows})
            for (const auto& [K, N] : {std::pair<Eigen::Index, Eigen::Index>{256, 256}, {14, 7}, {64, 33}}) {
                INFO("rows " << rows << ", distinct " << distinct << ", " << K << " x " << N);
                const Matrix x = repeated_rows(rows, distinct, K, rng);
                const Matrix dy = random_matrix<float>(rows, N, rng);
                const Matrix G0 = random_matrix<float>(K, N, rng);
                DistinctRows d;
                d.find(x);
                CHECK(d.compact() == (detail::float_gemm_kernel() && 8 * distinct <= 7 * rows));
                const Eigen::MatrixXd expect = G0.cast<double>() + x.cast<double>().transpose() * dy.cast<double>();
                Matrix got[2] = {G0, G0};
                for (const int threads : {1, 2}) {
                    const ThreadScope scope(threads);
                    d.transpose_times_add(x, dy, got[threads - 1]);
                }
                CHECK(same_bits(got[0], got[1]));
                const double err = (got[0].cast<double>() - expect).cwiseAbs().maxCoeff();
                CHECK(err <= 1e-5 * (1.0 + static_cast<double>(rows)));
            }
}

TEST_CASE("DistinctRows::times refuses an x other than the one found", "[core][distinct]") {
    Rng rng(2);
    DistinctRows d;
    d.find(random_matrix<float>(10, 4, rng));
    Matrix C;
    CHECK_THROWS_AS(d.times(random_matrix<float>(11, 4, rng), random_matrix<float>(4, 3, rng), C, false), ShapeError);
    Matrix G = Matrix::Zero(4, 3);
    CHECK_THROWS_WITH(d.transpose_times_add(random_matrix<float>(11, 4, rng), random_matrix<float>(11, 3, rng), G),
                      Catch::Contains("x has 11 rows") && Catch::Contains("had 10"));
    CHECK_THROWS_WITH(d.transpose_times_add(random_matrix<float>(10, 4, rng), random_matrix<float>(9, 3, rng), G),
                      Catch::Contains("dy has 9 rows") && Catch::Contains("had 10"));
}
