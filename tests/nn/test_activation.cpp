#include "gatkit/nn/activation.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gatkit;

TEST_CASE("activations have the textbook values", "[nn][activation]") {
    CHECK(activate(Activation::relu, -2.0) == 0.0);
    CHECK(activate(Activation::relu, 3.0) == 3.0);
    CHECK(activate(Activation::elu, 2.0) == 2.0);
    CHECK(activate(Activation::elu, -1.0) == Approx(std::exp(-1.0) - 1.0));
    CHECK(activate(Activation::leaky_relu, -2.0, 0.2) == Approx(-0.4));
    CHECK(activate(Activation::none, -2.0) == -2.0);
    CHECK(parse_activation("elu") == Activation::elu);
    CHECK_THROWS_WITH(parse_activation("gelu"), Catch::Contains("gelu"));
}

TEST_CASE("activation backward matches finite differences", "[nn][activation][gradcheck]") {
    Rng rng(8);
    for (const Activation a : {Activation::relu, Activation::elu, Activation::leaky_relu, Activation::none}) {
        CAPTURE(to_string(a));
        MatrixT<double> x = test::random_matrix<double>(9, 4, rng);
        const MatrixT<double> w = test::random_matrix<double>(9, 4, rng);
        auto loss = [&] { return (activation_forward<double>(a, x, 0.2).array() * w.array()).sum(); };
        const MatrixT<double> dx = activation_backward<double>(a, x, w, 0.2);
        const auto r = test::check_input_gradient(x, dx, loss);
        INFO(r.worst);
        CHECK(r.ok);
    }
    CHECK_THROWS_AS(activation_backward<double>(Activation::elu, MatrixT<double>::Zero(2, 2), MatrixT<double>::Zero(2, 3)), ShapeError);
}
