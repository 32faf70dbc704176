// exp_v / expm1_v: the vectorisable float versions against the C library in double.
#include "gatkit/core/vmath.hpp"
#include "gatkit/nn/activation.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace gatkit;

TEST_CASE("exp_v is within 2 ulp of exp over its whole range", "[core][vmath]") {
    double worst = 0;
    int checked = 0;
    for (float x = -87.0f; x < 88.0f; x += 0.000917f, ++checked) {
        const double ref = std::exp(static_cast<double>(x));
        worst = std::max(worst, std::fabs(static_cast<double>(exp_v(x)) - ref) / ref);
    }
    CHECK(checked > 100000);
    CHECK(worst <= 2.4e-7);  // 2 ulp of a float (2^-23 relative at most per ulp)
    CHECK(exp_v(0.0f) == 1.0f);
    // Outside the range: 0 below (as exp, without denormals), clamped above, never inf or NaN.
    CHECK(exp_v(-std::numeric_limits<float>::infinity()) == 0.0f);
    CHECK(exp_v(-1000.0f) == 0.0f);
    CHECK(exp_v(-87.33f) > 0.0f);
    CHECK(std::isfinite(exp_v(1000.0f)));
    CHECK(exp_v(1000.0f) == exp_v(88.0f));
}

TEST_CASE("expm1_v keeps its relative precision near 0", "[core][vmath]") {
    double worst = 0;
    for (float x = -20.0f; x < 5.0f; x += 0.0000377f) {
        if (x == 0.0f) continue;
        const double ref = std::expm1(static_cast<double>(x));
        worst = std::max(worst, std::fabs(static_cast<double>(expm1_v(x)) - ref) / std::fabs(ref));
    }
    CHECK(worst <= 5e-7);
    CHECK(expm1_v(1e-7f) == Approx(1e-7).epsilon(1e-6));
    CHECK(expm1_v(0.0f) == 0.0f);
}

TEST_CASE("ELU in float uses the vectorised exp and matches expm1", "[core][vmath][nn]") {
    MatrixT<float> x(3, 4);
    x << -30, -2, -0.25f, -1e-6f, 0, 1e-6f, 0.3f, 5, -0.26f, -87.5f, -0.01f, 2;
    const MatrixT<float> y = activation_forward(Activation::elu, x);
    const MatrixT<float> ones = MatrixT<float>::Ones(3, 4);
    const MatrixT<float> d = activation_backward(Activation::elu, x, ones);
    for (Eigen::Index k = 0; k < x.size(); ++k) {
        const double xk = x.data()[k];
        const double want = xk > 0 ? xk : std::expm1(xk), want_grad = xk > 0 ? 1.0 : std::exp(xk);
        CHECK(y.data()[k] == Approx(want).epsilon(5e-7).margin(1e-30));
        CHECK(d.data()[k] == Approx(want_grad).epsilon(3e-7).margin(1.2e-38));
    }
}
