#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/train/optimizer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>

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

TEST_CASE("Adam's step and zero_grad over parameters cut into parallel slices: every value as the scalar rule, same bits with 1 and 2 threads",
          "[train][optimizer][threads]") {
    // Large enough to be cut into several slices and run in parallel, plus small ones.
    const std::vector<std::pair<Eigen::Index, Eigen::Index>> shapes = {{300, 130}, {1, 7}, {16385, 2}, {3, 1}};
    REQUIRE(300 * 130 + 7 + 16385 * 2 + 3 >= static_cast<Eigen::Index>(kParallelParameterValues));
    for (const bool decoupled : {false, true}) {
        CAPTURE(decoupled);
        std::vector<std::vector<float>> results;
        for (const int threads : {1, 2}) {
            const ThreadScope scope(threads);
            std::vector<std::unique_ptr<Parameter>> owned;
            ParameterList<float> list;
            for (std::size_t k = 0; k < shapes.size(); ++k) {
                owned.push_back(std::make_unique<Parameter>("p" + std::to_string(k), shapes[k].first, shapes[k].second));
                list.push_back(owned.back().get());
            }
            const ParameterSlices slices(list);
            CHECK(slices.slices().size() == 3 + 1 + 3 + 1);
            AdamT<float> adam(list, {.lr = 0.01, .weight_decay = 0.05, .decoupled = decoupled});
            // Per value: start theta_i and gradient sequence g_i(t), checked against the reference rule.
            const auto value_at = [](std::size_t k, Eigen::Index q) { return std::sin(0.37 * static_cast<double>(q) + static_cast<double>(k)); };
            const auto grad_at = [](std::size_t k, Eigen::Index q, int t) { return std::cos(0.11 * static_cast<double>(q * (t + 1)) - static_cast<double>(k)); };
            for (std::size_t k = 0; k < list.size(); ++k)
                for (Eigen::Index q = 0; q < list[k]->value.size(); ++q) list[k]->value.data()[q] = static_cast<float>(value_at(k, q));
            for (int t = 0; t < 3; ++t) {
                for (auto* p : list) p->grad.setConstant(9.0f);
                adam.zero_grad();
                for (auto* p : list) REQUIRE(p->grad.isZero(0.0f));
                for (std::size_t k = 0; k < list.size(); ++k)
                    for (Eigen::Index q = 0; q < list[k]->grad.size(); ++q) list[k]->grad.data()[q] = static_cast<float>(grad_at(k, q, t));
                adam.step();
            }
            std::vector<float> flat;
            for (std::size_t k = 0; k < list.size(); ++k)
                for (Eigen::Index q = 0; q < list[k]->value.size(); ++q) {
                    flat.push_back(list[k]->value.data()[q]);
                    if (q % 997 == 0 || q + 1 == list[k]->value.size()) {
                        const std::vector<double> g = {grad_at(k, q, 0), grad_at(k, q, 1), grad_at(k, q, 2)};
                        CHECK(list[k]->value.data()[q] == Approx(reference(value_at(k, q), g, 0.01, 0.05, decoupled)).epsilon(1e-5).margin(1e-6));
                    }
                }
            results.push_back(std::move(flat));
        }
        CHECK(results[0] == results[1]);
    }
}

TEST_CASE("Learning-rate schedules: Chemprop's Noam warm-up and decay, cosine decay, constant", "[train][optimizer]") {
    const double lr = 1e-3;
    const long per_epoch = 10;
    const int epochs = 30;  // 300 steps, 20 of warm-up
    SECTION("constant is the learning rate at every step") {
        for (const long t : {0L, 5L, 299L, 1000L}) CHECK(scheduled_lr({}, lr, t, per_epoch, epochs) == lr);
    }
    for (const std::string kind : {"noam", "cosine"}) {
        CAPTURE(kind);
        const LrSchedule s{.kind = kind};
        // Linear warm-up from lr/10 to lr over the first two epochs.
        CHECK(scheduled_lr(s, lr, 0, per_epoch, epochs) == Approx(1e-4));
        CHECK(scheduled_lr(s, lr, 10, per_epoch, epochs) == Approx(1e-4 + 0.5 * 9e-4));
        CHECK(scheduled_lr(s, lr, 20, per_epoch, epochs) == Approx(lr));
        // Then down to lr/10 at the end of the last epoch, and no lower after it.
        CHECK(scheduled_lr(s, lr, 300, per_epoch, epochs) == Approx(1e-4));
        CHECK(scheduled_lr(s, lr, 5000, per_epoch, epochs) == Approx(1e-4));
        double previous = scheduled_lr(s, lr, 20, per_epoch, epochs);
        for (long t = 21; t <= 300; ++t) {
            const double now = scheduled_lr(s, lr, t, per_epoch, epochs);
            REQUIRE(now < previous);
            previous = now;
        }
    }
    // Noam decays exponentially: halfway through the decay it is lr · 0.1^0.5; cosine is at the
    // midpoint of lr and lr/10 there.
    CHECK(scheduled_lr({.kind = "noam"}, lr, 160, per_epoch, epochs) == Approx(lr * std::sqrt(0.1)));
    CHECK(scheduled_lr({.kind = "cosine"}, lr, 160, per_epoch, epochs) == Approx(0.5 * (lr + 1e-4)));
    // No warm-up: the first step runs at the peak.
    CHECK(scheduled_lr({.kind = "noam", .warmup_epochs = 0}, lr, 0, per_epoch, epochs) == Approx(lr));
    // A run shorter than its warm-up still reaches lr/10 at its end instead of dividing by zero.
    CHECK(std::isfinite(scheduled_lr({.kind = "noam", .warmup_epochs = 5}, lr, 9, per_epoch, 1)));
}

TEST_CASE("Learning-rate schedules reject unknown kinds and impossible settings", "[train][optimizer]") {
    CHECK_NOTHROW(check_lr_schedule({}));
    CHECK_THROWS_WITH(check_lr_schedule({.kind = "step"}), Catch::Contains("available: constant, noam, cosine"));
    CHECK_THROWS_AS(check_lr_schedule({.kind = "noam", .warmup_epochs = -1}), ConfigError);
    CHECK_THROWS_AS(check_lr_schedule({.kind = "noam", .ratio = 0}), ConfigError);
    CHECK_THROWS_AS(check_lr_schedule({.kind = "cosine", .ratio = 1.5}), ConfigError);
}

TEST_CASE("Adam's set_lr changes the size of the next steps", "[train][optimizer]") {
    ParameterT<double> a("a", 1, 1), b("b", 1, 1);
    a.value << 1.0;
    b.value << 1.0;
    AdamT<double> fixed({&a}, {.lr = 0.1});
    AdamT<double> changed({&b}, {.lr = 0.1});
    changed.set_lr(0.01);
    a.grad << 0.5;
    b.grad << 0.5;
    fixed.step();
    changed.step();
    // Adam's first step moves by lr (the bias-corrected ratio m̂/√v̂ is 1).
    CHECK(1.0 - a.value(0, 0) == Approx(0.1).epsilon(1e-6));
    CHECK(1.0 - b.value(0, 0) == Approx(0.01).epsilon(1e-6));
    CHECK_THROWS_AS(changed.set_lr(0.0), ConfigError);
}
