// Losses for graph-level tasks: BCE with logits and MSE with missing labels, softmax over rows.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/train/loss.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// Targets in {0, 1} with a few missing.
MatrixT<double> binary_targets() {
    MatrixT<double> y(4, 3);
    y << 1, 0, kMissing,  //
        0, kMissing, 1,   //
        1, 1, 0,          //
        kMissing, 0, 1;
    return y;
}

}  // namespace

TEST_CASE("bce_with_logits equals -(y log σ + (1-y) log(1-σ)) over present labels", "[train][loss]") {
    Rng rng(3);
    const MatrixT<double> z = random_matrix<double>(4, 3, rng) * 3.0;
    const MatrixT<double> y = binary_targets();
    const auto r = bce_with_logits(z, y);
    double ref = 0;
    int n = 0;
    for (Eigen::Index k = 0; k < z.size(); ++k) {
        if (std::isnan(y.data()[k])) continue;
        const double s = 1.0 / (1.0 + std::exp(-z.data()[k]));
        ref -= y.data()[k] * std::log(s) + (1 - y.data()[k]) * std::log(1 - s);
        ++n;
    }
    REQUIRE(n == 9);
    CHECK(r.loss == Approx(ref / n).epsilon(1e-12));
    // gradient (σ - y)/n at present labels, exactly 0 at missing ones
    for (Eigen::Index k = 0; k < z.size(); ++k) {
        if (std::isnan(y.data()[k])) {
            CHECK(r.dlogits.data()[k] == 0.0);
            continue;
        }
        CHECK(r.dlogits.data()[k] == Approx((1.0 / (1.0 + std::exp(-z.data()[k])) - y.data()[k]) / n).epsilon(1e-12));
    }
}

TEST_CASE("bce_with_logits in float: the loss of 20,000 logits is the double-precision sum, for 1 and 2 threads",
          "[train][loss][threads]") {
    // Several 4096-logit chunks, and within each several 256-term products of (1 + e^−|z|),
    // with a few missing labels and logits from ±1e4 (e^−|z| = 0) to 0.
    Rng rng(21);
    const Eigen::Index n = 20000;
    Matrix z(n, 1), y(n, 1);
    double ref = 0;
    int present = 0;
    for (Eigen::Index k = 0; k < n; ++k) {
        z(k, 0) = k % 997 == 0 ? (k % 2 ? 1e4f : -1e4f) : static_cast<float>(rng.normal() * 6.0);
        y(k, 0) = k % 101 == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(rng.uniform(0.0, 1.0) < 0.5);
        if (std::isnan(y(k, 0))) continue;
        const double zk = z(k, 0), yk = y(k, 0);
        ref += std::max(zk, 0.0) - zk * yk + std::log1p(std::exp(-std::abs(zk)));
        ++present;
    }
    ref /= present;
    const auto loss_with = [&](int threads) {
        const ThreadScope scope(threads);
        return bce_with_logits(z, y);
    };
    const auto one = loss_with(1), two = loss_with(2);
    CHECK(one.loss == Approx(ref).epsilon(1e-6));
    CHECK(two.loss == one.loss);
    CHECK(two.dlogits == one.dlogits);
    for (Eigen::Index k = 0; k < n; k += 37) {
        if (std::isnan(y(k, 0))) {
            CHECK(one.dlogits(k, 0) == 0.0f);
            continue;
        }
        // σ(z) − y in float: exact to float's rounding of σ (absolute, ≤ 2^−24 near 1)
        const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(z(k, 0))));
        CHECK(one.dlogits(k, 0) == Approx((s - y(k, 0)) / present).epsilon(1e-5).margin(1.2e-7 / present));
    }
}

TEST_CASE("bce_with_logits and mse gradients match finite differences", "[train][loss][gradcheck]") {
    Rng rng(9);
    MatrixT<double> z = random_matrix<double>(4, 3, rng) * 2.0;
    const MatrixT<double> y = binary_targets();
    {
        const auto r = bce_with_logits(z, y);
        const auto g = test::check_input_gradient(z, r.dlogits, [&] { return bce_with_logits(z, y).loss; });
        INFO(g.worst);
        CHECK(g.ok);
    }
    MatrixT<double> targets = random_matrix<double>(4, 3, rng);
    targets(1, 2) = kMissing;
    targets(3, 0) = kMissing;
    {
        const auto r = mse(z, targets);
        const auto g = test::check_input_gradient(z, r.dlogits, [&] { return mse(z, targets).loss; });
        INFO(g.worst);
        CHECK(g.ok);
    }
    {
        const std::vector<int> labels = {2, 0, 1, 1};
        const auto r = softmax_cross_entropy_rows(z, labels);
        const auto g = test::check_input_gradient(z, r.dlogits, [&] { return softmax_cross_entropy_rows(z, labels).loss; });
        INFO(g.worst);
        CHECK(g.ok);
    }
}

TEST_CASE("bce_with_logits is finite at logits of ±1e4", "[train][loss]") {
    Matrix z(2, 2);
    z << 1e4f, -1e4f, -1e4f, 1e4f;
    Matrix y(2, 2);
    y << 1, 0, 1, 0;  // the first column is right, the second confidently wrong
    const auto r = bce_with_logits(z, y);
    CHECK(std::isfinite(r.loss));
    CHECK(r.loss == Approx(0.5e4).epsilon(1e-6));  // two terms 0, two terms 1e4, mean over 4
    CHECK(r.dlogits.allFinite());
    CHECK(r.dlogits(0, 0) == Approx(0.0).margin(1e-12));
    CHECK(r.dlogits(1, 0) == Approx(-0.25));
    CHECK(r.dlogits(1, 1) == Approx(0.25));
}

TEST_CASE("mse equals the mean squared error over present targets", "[train][loss]") {
    MatrixT<double> pred(2, 2);
    pred << 1, 2, 3, 4;
    MatrixT<double> y(2, 2);
    y << 0, kMissing, 5, 4;
    const auto r = mse(pred, y);
    CHECK(r.loss == Approx((1.0 + 4.0 + 0.0) / 3).epsilon(1e-12));
    CHECK(r.dlogits(0, 0) == Approx(2.0 / 3));
    CHECK(r.dlogits(0, 1) == 0.0);  // missing
    CHECK(r.dlogits(1, 0) == Approx(-4.0 / 3));
    CHECK(r.dlogits(1, 1) == 0.0);
}

TEST_CASE("masked losses ignore whatever sits in the logits of missing labels", "[train][loss]") {
    Rng rng(5);
    MatrixT<double> z = random_matrix<double>(4, 3, rng);
    const MatrixT<double> y = binary_targets();
    const auto before = bce_with_logits(z, y);
    z(0, 2) = 1e6;  // a missing label's logit
    const auto after = bce_with_logits(z, y);
    CHECK(after.loss == before.loss);
    CHECK(after.dlogits(0, 2) == 0.0);
    CHECK(mse(z, y).dlogits(1, 1) == 0.0);
}

TEST_CASE("softmax_cross_entropy_rows is the mean over every row", "[train][loss]") {
    Rng rng(6);
    const MatrixT<double> logits = random_matrix<double>(3, 4, rng);
    const std::vector<int> labels = {3, 0, 2};
    const auto r = softmax_cross_entropy_rows(logits, labels);
    double ref = 0;
    for (Eigen::Index i = 0; i < 3; ++i) ref -= std::log(std::exp(logits(i, labels[i])) / logits.row(i).array().exp().sum());
    CHECK(r.loss == Approx(ref / 3).epsilon(1e-12));
    CHECK_THROWS_WITH(softmax_cross_entropy_rows<double>(logits, {0, 1}), Catch::Contains("2 labels") && Catch::Contains("3 rows"));
}

TEST_CASE("masked losses reject all-missing targets and shape mismatches with the numbers", "[train][loss]") {
    const MatrixT<double> z = MatrixT<double>::Zero(2, 3);
    const MatrixT<double> none = MatrixT<double>::Constant(2, 3, kMissing);
    CHECK_THROWS_WITH(bce_with_logits(z, none), Catch::Contains("all 6 targets are missing"));
    CHECK_THROWS_AS(mse(z, none), ConfigError);
    CHECK_THROWS_WITH(bce_with_logits<double>(z, MatrixT<double>::Zero(3, 2)), Catch::Contains("2x3") && Catch::Contains("3x2"));
    CHECK_THROWS_AS(mse<double>(z, MatrixT<double>::Zero(2, 2)), ShapeError);
}

TEST_CASE("bce_with_logits over many values: parallel chunks give the reference loss and the same bits with 1 and 2 threads",
          "[train][loss][threads]") {
    Rng rng(21);
    const Eigen::Index n = 50001;  // several 4096-value chunks and a short last one
    const Matrix z = random_matrix<float>(n, 1, rng) * 4.0f;
    Matrix y(n, 1);
    for (Eigen::Index k = 0; k < n; ++k) y(k, 0) = k % 7 == 3 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(k % 2);
    std::vector<LossResult<float>> runs;
    for (const int threads : {1, 2}) {
        const ThreadScope scope(threads);
        runs.push_back(bce_with_logits(z, y));
    }
    CHECK(runs[0].loss == runs[1].loss);
    CHECK(runs[0].dlogits == runs[1].dlogits);
    double ref = 0;
    int present = 0;
    for (Eigen::Index k = 0; k < n; ++k) {
        if (std::isnan(y(k, 0))) continue;
        const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(z(k, 0))));
        ref -= y(k, 0) * std::log(s) + (1 - y(k, 0)) * std::log(1 - s);
        ++present;
    }
    CHECK(runs[0].loss == Approx(ref / present).epsilon(1e-5));
    CHECK(runs[0].dlogits(3, 0) == 0.0f);
    CHECK(runs[0].dlogits(4, 0) == Approx((1.0 / (1.0 + std::exp(-static_cast<double>(z(4, 0)))) - y(4, 0)) / present).epsilon(1e-5));
}
