// LayerNorm: torch's formula, finite-difference gradients, stability at extreme inputs.
#include "gatkit/core/error.hpp"
#include "gatkit/nn/norm.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gatkit;
using gatkit::test::random_matrix;

TEST_CASE("LayerNorm equals (x - mean) / sqrt(var + eps) * gamma + beta", "[nn][norm]") {
    Rng rng(3);
    LayerNormT<double> norm(6);
    norm.weight().value = random_matrix<double>(1, 6, rng);
    norm.bias().value = random_matrix<double>(1, 6, rng);
    const MatrixT<double> x = random_matrix<double>(5, 6, rng) * 3.0;
    LayerNormCache<double> cache;
    const MatrixT<double> y = norm.forward(x, cache);
    for (Eigen::Index i = 0; i < 5; ++i) {
        double mean = 0, var = 0;
        for (Eigen::Index c = 0; c < 6; ++c) mean += x(i, c) / 6;
        for (Eigen::Index c = 0; c < 6; ++c) var += (x(i, c) - mean) * (x(i, c) - mean) / 6;
        for (Eigen::Index c = 0; c < 6; ++c) {
            const double ref = (x(i, c) - mean) / std::sqrt(var + 1e-5) * norm.weight().value(0, c) + norm.bias().value(0, c);
            CHECK(std::abs(y(i, c) - ref) < 1e-12);
        }
    }
}

TEST_CASE("LayerNorm gradients match finite differences", "[nn][norm][gradcheck]") {
    Rng rng(5);
    LayerNormT<double> norm(7);
    norm.weight().value = random_matrix<double>(1, 7, rng);
    norm.bias().value = random_matrix<double>(1, 7, rng);
    MatrixT<double> x = random_matrix<double>(70, 7, rng);
    const MatrixT<double> w = random_matrix<double>(70, 7, rng);
    auto loss = [&] {
        LayerNormCache<double> c;
        return (norm.forward(x, c).array() * w.array()).sum();
    };
    LayerNormCache<double> cache;
    norm.forward(x, cache);
    ParameterList<double> params;
    norm.parameters(params);
    test::prefill_grads(params);
    const MatrixT<double> dx = norm.backward(w, cache);
    const auto pr = test::check_parameter_gradients(params, loss);
    INFO(pr.worst);
    CHECK(pr.ok);
    const auto xr = test::check_input_gradient(x, dx, loss);
    INFO(xr.worst);
    CHECK(xr.ok);
}

TEST_CASE("LayerNorm is finite at extreme and constant inputs", "[nn][norm]") {
    LayerNorm norm(4);
    Matrix x(3, 4);
    x << 1e4f, -1e4f, 1e4f, -1e4f, 5.0f, 5.0f, 5.0f, 5.0f, 1e-30f, 0.0f, 0.0f, 0.0f;
    LayerNormCache<float> cache;
    const Matrix y = norm.forward(x, cache);
    CHECK(y.allFinite());
    CHECK(std::abs(y(0, 0) - 1.0f) < 1e-4f);
    CHECK(y.row(1).cwiseAbs().maxCoeff() == 0.0f);  // constant row: x̂ = 0
    const Matrix dx = norm.backward(Matrix::Ones(3, 4), cache);
    CHECK(dx.allFinite());
    CHECK_THROWS_AS(norm.forward(Matrix::Ones(2, 3), cache), ShapeError);
    CHECK_THROWS_AS(LayerNorm(0), ConfigError);
}
