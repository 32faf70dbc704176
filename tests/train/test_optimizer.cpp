#include "gatkit/core/error.hpp"
#include "gatkit/train/optimizer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gatkit;

namespace {

// Reference Adam / AdamW for one scalar, written from torch.optim's documented algorithm.
double reference(double theta, const std::vector<double>& grads, double lr, double wd, bool decoupled) {
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    double m = 0, v = 0;
    for (std::size_t t = 1; t <= grads.size(); ++t) {
        double g = grads[t - 1];
        if (decoupled)
            theta *= 1 - lr * wd;
        else
            g += wd * theta;
        m = b1 * m + (1 - b1) * g;
        v = b2 * v + (1 - b2) * g * g;
        const double mhat = m / (1 - std::pow(b1, t)), vhat = v / (1 - std::pow(b2, t));
        theta -= lr * mhat / (std::sqrt(vhat) + eps);
    }
    return theta;
}

}  // namespace

TEST_CASE("Adam and AdamW follow torch.optim's update rule", "[train][optimizer]") {
    const std::vector<double> grads = {0.5, -1.5, 0.25, 2.0, -0.1};
    for (const bool decoupled : {false, true}) {
        CAPTURE(decoupled);
        ParameterT<double> p("w", 1, 2);
        p.value << 1.5, -0.7;
        AdamT<double> opt({&p}, {.lr = 0.01, .weight_decay = 0.1, .decoupled = decoupled});
        for (const double g : grads) {
            opt.zero_grad();
            p.grad << g, -g;
            opt.step();
        }
        std::vector<double> neg;
        for (const double g : grads) neg.push_back(-g);
        CHECK(p.value(0, 0) == Approx(reference(1.5, grads, 0.01, 0.1, decoupled)).epsilon(1e-12));
        CHECK(p.value(0, 1) == Approx(reference(-0.7, neg, 0.01, 0.1, decoupled)).epsilon(1e-12));
        CHECK(opt.steps() == 5);
    }
}

TEST_CASE("Adam with and without decoupled decay differ when weight decay is on", "[train][optimizer]") {
    ParameterT<double> a("a", 1, 1), b("b", 1, 1);
    a.value << 2.0;
    b.value << 2.0;
    AdamT<double> adam({&a}, {.lr = 0.1, .weight_decay = 0.5});
    AdamT<double> adamw({&b}, {.lr = 0.1, .weight_decay = 0.5, .decoupled = true});
    for (int k = 0; k < 3; ++k) {
        a.grad << 0.3;
        b.grad << 0.3;
        adam.step();
        adamw.step();
    }
    CHECK(a.value(0, 0) != Approx(b.value(0, 0)));
}

TEST_CASE("Adam rejects bad options", "[train][optimizer]") {
    ParameterT<float> p("w", 1, 1);
    CHECK_THROWS_WITH(AdamT<float>({&p}, {.lr = -1}), Catch::Contains("lr"));
    CHECK_THROWS_AS(AdamT<float>({&p}, {.weight_decay = -0.1}), ConfigError);
}
