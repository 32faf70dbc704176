#include "gatkit/core/error.hpp"
#include "gatkit/train/loss.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gatkit;

TEST_CASE("softmax cross-entropy over a node mask: value and gradient", "[train][loss][gradcheck]") {
    Rng rng(6);
    MatrixT<double> logits = test::random_matrix<double>(10, 4, rng) * 3.0;
    const std::vector<int> labels = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1};
    const std::vector<NodeId> rows = {1, 4, 5, 9};
    const auto r = softmax_cross_entropy(logits, labels, rows);
    double ref = 0;
    for (const NodeId i : rows) ref -= std::log(std::exp(logits(i, labels[i])) / logits.row(i).array().exp().sum());
    CHECK(r.loss == Approx(ref / 4).epsilon(1e-12));
    // rows outside the mask get no gradient
    CHECK(r.dlogits.row(0).cwiseAbs().sum() == 0.0);
    auto loss = [&] { return softmax_cross_entropy(logits, labels, rows).loss; };
    const auto g = test::check_input_gradient(logits, r.dlogits, loss);
    INFO(g.worst);
    CHECK(g.ok);
}

TEST_CASE("softmax cross-entropy is stable at extreme logits", "[train][loss]") {
    Matrix logits(2, 3);
    logits << 1e4f, -1e4f, 0.0f, -1e4f, -1e4f, 1e4f;
    const auto r = softmax_cross_entropy<float>(logits, {1, 2}, {0, 1});
    CHECK(std::isfinite(r.loss));
    CHECK(r.loss == Approx(1e4).epsilon(1e-6));  // row 0: -log softmax = 2e4, row 1: 0 → mean 1e4
    CHECK(r.dlogits.allFinite());
    const Matrix p = softmax_rows(logits);
    CHECK(p.allFinite());
    CHECK(p(0, 0) == Approx(1.0));
}

TEST_CASE("softmax cross-entropy rejects labels out of range and empty masks", "[train][loss]") {
    const Matrix logits = Matrix::Zero(3, 2);
    CHECK_THROWS_WITH(softmax_cross_entropy<float>(logits, {0, 5, 1}, {1}), Catch::Contains("label 5"));
    CHECK_THROWS_AS(softmax_cross_entropy<float>(logits, {0, 1, 1}, {}), ConfigError);
}
