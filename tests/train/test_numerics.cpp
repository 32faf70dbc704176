// Numerical faults in training (train/numerics.hpp) and the losses at extreme logits: all equal,
// one huge, ±1e4 (the stable log-sum-exp and BCE-with-logits forms).
#include "gatkit/core/parallel.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/numerics.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace gatkit;
using Catch::Contains;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Three parameters as a model lists them, input to output.
struct Params {
    Parameter first{"layers.0.weight", 2, 2}, middle{"layers.1.att_src", 1, 2}, last{"head.weight", 2, 1};
    ParameterList<float> list() { return {&first, &middle, &last}; }
};

template <class Fn>
TrainingDiverged diverged(Fn fn) {
    try {
        fn();
    } catch (const TrainingDiverged& e) {
        return e;
    }
    FAIL("no TrainingDiverged thrown");
    return TrainingDiverged("", 0, 0, "", 0);
}

}  // namespace

TEST_CASE("DivergenceGuard: finite steps pass, a non-finite gradient names the parameter backward reached first", "[train][numerics]") {
    Params p;
    std::vector<Matrix> best;
    int best_epoch = 0;
    const DivergenceGuard<float> guard(p.list(), best, best_epoch);
    p.first.value.setConstant(1);
    guard.check_loss(0.7, {.epoch = 1});
    guard.check_gradients({.epoch = 1});  // all zero: fine
    // the largest and the smallest finite magnitudes are finite
    p.first.grad(0, 0) = std::numeric_limits<float>::max();
    p.first.grad(1, 1) = -std::numeric_limits<float>::max();
    p.middle.grad(0, 0) = std::numeric_limits<float>::denorm_min();
    p.middle.grad(0, 1) = -0.0f;
    guard.check_gradients({.epoch = 1});
    p.first.grad.setZero();
    p.middle.grad.setZero();

    SECTION("gradient NaN in the first and the middle parameter: the middle one is named") {
        p.first.grad(0, 1) = kNaN;
        p.middle.grad(0, 0) = kInf;
        p.middle.grad(0, 1) = kNaN;
        const TrainingDiverged e = diverged([&] { guard.check_gradients({.epoch = 3, .batch = 2, .batches = 5}); });
        CHECK(e.epoch == 3);
        CHECK(e.batch == 2);
        CHECK(e.parameter == "layers.1.att_src");
        CHECK(e.best_epoch == 0);
        CHECK_THAT(std::string(e.what()), Contains("epoch 3, batch 2 of 5") && Contains("gradient of 'layers.1.att_src'") &&
                                              Contains("+Inf in 2 of 2 values") && Contains("2 of 3 parameters") &&
                                              Contains("no best epoch yet"));
        CHECK(p.first.value == Matrix::Constant(2, 2, 1));  // nothing restored: there is no best epoch
    }
    SECTION("the best epoch's weights are put back and named") {
        best = {Matrix::Constant(2, 2, 5), Matrix::Constant(1, 2, 6), Matrix::Constant(2, 1, 7)};
        best_epoch = 4;
        p.last.grad(1, 0) = -kInf;
        const TrainingDiverged e = diverged([&] { guard.check_gradients({.epoch = 6}); });
        CHECK(e.parameter == "head.weight");
        CHECK(e.best_epoch == 4);
        CHECK_THAT(std::string(e.what()), Contains("epoch 6, batch 1 of 1") && Contains("-Inf") && Contains("back to those of epoch 4"));
        CHECK(p.first.value == best[0]);
        CHECK(p.middle.value == best[1]);
        CHECK(p.last.value == best[2]);
    }
    SECTION("non-finite evaluation outputs after the step") {
        guard.check_outputs(Matrix::Constant(2, 2, 3e38f), "validation outputs", {.epoch = 5});  // large is fine
        Matrix out = Matrix::Zero(2, 2);
        out(1, 0) = kNaN;
        const TrainingDiverged e = diverged([&] { guard.check_outputs(out, "validation outputs", {.epoch = 5}); });
        CHECK(e.epoch == 5);
        CHECK_THAT(std::string(e.what()), Contains("the validation outputs after this step are not finite (NaN in 1 of 4 values)") &&
                                              Contains("largest weight is 1 in 'layers.0.weight'") &&
                                              Contains("the weights are those after this step"));
    }
    SECTION("a NaN loss names the largest weight, or a weight that is not finite") {
        p.middle.value(0, 1) = -4e12f;
        const TrainingDiverged e = diverged([&] { guard.check_loss(kNaN, {.epoch = 2}); });
        CHECK(e.parameter == "layers.1.att_src");
        CHECK_THAT(std::string(e.what()), Contains("the loss is NaN") && Contains("largest weight is 4e+12 in 'layers.1.att_src'"));
        p.last.value(0, 0) = kInf;
        const TrainingDiverged f = diverged([&] { guard.check_loss(kInf, {.epoch = 2}); });
        CHECK(f.parameter == "head.weight");
        CHECK_THAT(std::string(f.what()), Contains("the loss is +Inf") && Contains("'head.weight' are not finite"));
    }
}

TEST_CASE("losses at extreme logits: all equal, one huge, ±1e4", "[train][loss][numerics]") {
    SECTION("softmax cross-entropy, all logits equal (also hugely negative): log K, gradient p − y") {
        for (const float v : {0.0f, 1e4f, -1e4f, -1e30f}) {
            CAPTURE(v);
            const Matrix logits = Matrix::Constant(2, 4, v);
            const auto r = softmax_cross_entropy<float>(logits, {1, 3}, {0, 1});
            CHECK(r.loss == Approx(std::log(4.0)).epsilon(1e-6));
            CHECK(r.dlogits(0, 0) == Approx(0.25 / 2));
            CHECK(r.dlogits(0, 1) == Approx(-0.75 / 2));
            const Matrix p = softmax_rows(logits);
            CHECK((p.array() - 0.25f).abs().maxCoeff() < 1e-6f);
        }
    }
    SECTION("softmax cross-entropy, one huge logit") {
        Matrix logits(1, 3);
        logits << 1e30f, 0.0f, -5.0f;
        const auto right = softmax_cross_entropy<float>(logits, {0}, {0});
        CHECK(right.loss == 0.0f);
        CHECK(right.dlogits.allFinite());
        const auto wrong = softmax_cross_entropy<float>(logits, {1}, {0});
        CHECK(wrong.loss == Approx(1e30));  // −log softmax = 1e30 − 0, finite
        CHECK(wrong.dlogits(0, 0) == Approx(1.0));
        CHECK(wrong.dlogits(0, 1) == Approx(-1.0));
        CHECK(softmax_rows(logits)(0, 0) == 1.0f);
    }
    SECTION("BCE with logits: 0 gives log 2, one huge logit is finite either way") {
        Matrix z(1, 3), y(1, 3);
        z << 0.0f, 1e30f, -1e30f;
        y << 1, 1, 1;
        const auto r = bce_with_logits(z, y);
        // terms: log 2, 0, 1e30 → mean 1e30 / 3
        CHECK(std::isfinite(r.loss));
        CHECK(r.loss == Approx(1e30 / 3));
        CHECK(r.dlogits.allFinite());
        CHECK(r.dlogits(0, 0) == Approx((0.5 - 1) / 3));
        CHECK(r.dlogits(0, 1) == Approx(0.0).margin(1e-12));
        CHECK(r.dlogits(0, 2) == Approx(-1.0 / 3));
        Matrix zero(1, 1), one(1, 1);
        zero << 0.0f;
        one << 0.0f;
        CHECK(bce_with_logits(zero, one).loss == Approx(std::log(2.0)));
    }
}

TEST_CASE("DivergenceGuard scans large parameters in parallel slices and still names the parameter nearest the output",
          "[train][numerics][threads]") {
    // 40,000 and 50,000 values: several slices each, scanned in parallel.
    Parameter first{"layers.0.weight", 200, 200}, last{"head.weight", 50000, 1};
    std::vector<Matrix> best;
    int best_epoch = 0;
    for (const int threads : {1, 2}) {
        CAPTURE(threads);
        const ThreadScope scope(threads);
        first.grad.setZero();
        last.grad.setZero();
        const DivergenceGuard<float> guard({&first, &last}, best, best_epoch);
        guard.check_gradients({.epoch = 1});
        first.grad(199, 199) = kNaN;  // the last value of the first parameter's last slice
        TrainingDiverged e = diverged([&] { guard.check_gradients({.epoch = 2}); });
        CHECK(e.parameter == "layers.0.weight");
        CHECK_THAT(std::string(e.what()), Contains("NaN in 1 of 40000 values") && Contains("1 of 2 parameters"));
        last.grad(33000, 0) = -kInf;  // a middle slice of the parameter nearest the output
        e = diverged([&] { guard.check_gradients({.epoch = 2}); });
        CHECK(e.parameter == "head.weight");
        CHECK_THAT(std::string(e.what()), Contains("-Inf in 1 of 50000 values") && Contains("2 of 2 parameters"));
    }
}
