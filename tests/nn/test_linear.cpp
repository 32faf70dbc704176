#include "gatkit/core/error.hpp"
#include "gatkit/nn/linear.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

using namespace gatkit;

TEST_CASE("Linear equals x·W + b and its gradients match finite differences", "[nn][linear][gradcheck]") {
    Rng rng(4);
    for (const bool bias : {true, false}) {
        LinearT<double> layer({.in = 6, .out = 3, .bias = bias}, rng);
        if (bias) layer.bias().value = test::random_matrix<double>(1, 3, rng);
        MatrixT<double> x = test::random_matrix<double>(70, 6, rng);  // > one 64-row chunk
        LinearCache<double> cache;
        const MatrixT<double> y = layer.forward(x, cache);
        MatrixT<double> ref = x * layer.weight().value;
        if (bias) ref.rowwise() += layer.bias().value.row(0);
        CHECK((y - ref).cwiseAbs().maxCoeff() < 1e-12);

        const MatrixT<double> w = test::random_matrix<double>(70, 3, rng);
        auto loss = [&] {
            LinearCache<double> c;
            return (layer.forward(x, c).array() * w.array()).sum();
        };
        ParameterList<double> params;
        layer.parameters(params);
        REQUIRE(params.size() == (bias ? 2u : 1u));
        test::prefill_grads(params);
        const MatrixT<double> dx = layer.backward(w, cache);
        const auto pr = test::check_parameter_gradients(params, loss);
        INFO(pr.worst);
        CHECK(pr.ok);
        const auto xr = test::check_input_gradient(x, dx, loss);
        INFO(xr.worst);
        CHECK(xr.ok);
        CHECK(layer.backward(w, cache, /*need_dx=*/false).size() == 0);
    }
}

TEST_CASE("Linear rejects a wrong input width with the numbers", "[nn][linear]") {
    Rng rng(1);
    Linear layer({.in = 8, .out = 2}, rng, "head");
    LinearCache<float> cache;
    CHECK_THROWS_WITH(layer.forward(Matrix::Zero(3, 7), cache), Catch::Contains("7 columns") && Catch::Contains("in = 8"));
    CHECK_THROWS_AS(Linear({.in = 0, .out = 2}, rng), ConfigError);
}
