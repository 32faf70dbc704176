// The stable forms at extreme inputs: the attention softmax of every layer (GATConv, GATv2Conv,
// dot-product), LayerNorm. Scores of ±1e4, all equal (also all equal and hugely negative, where
// exp without the row maximum is 0/0), one huge score: outputs finite and right, gradients finite.
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/dot_attention.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/nn/gatv2_conv.hpp"
#include "gatkit/nn/norm.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <functional>

using namespace gatkit;

namespace {

// A star: node 0 attends to nodes 1, 2, 3 (edges 1→0, 2→0, 3→0, edge ids 0, 1, 2), no self-loops.
// Every layer below is set up with one feature, one head and one channel so that the score of
// j → 0 is a fixed function of x_j and the value of j is x_j.
const Graph& star() {
    static const Graph g = build_graph(4, {{1, 0}, {2, 0}, {3, 0}});
    return g;
}

struct StarResult {
    std::array<float, 3> alpha{};  // α of the edges 1→0, 2→0, 3→0
    float out0 = 0;                // output of node 0
    bool finite = false;           // output, α and dx all finite
};

// GATConv with W = 1, a_src = 1, a_dst = 0: score(j) = LeakyReLU(x_j), value x_j.
StarResult gat(const Matrix& x) {
    Rng rng(1);
    GatConv layer({.in = 1, .out = 1, .add_self_loops = false, .bias = false}, rng);
    layer.weight().value.setOnes();
    layer.att_src().value.setOnes();
    layer.att_dst().value.setZero();
    GatConvCache<float> cache;
    const Matrix out = layer.forward(star(), x, cache, false);
    const Matrix dx = layer.backward(Matrix::Ones(4, 1), cache);
    return {{cache.alpha(0, 0), cache.alpha(1, 0), cache.alpha(2, 0)}, out(0, 0),
            out.allFinite() && cache.alpha.allFinite() && dx.allFinite() && layer.att_src().grad.allFinite()};
}

// GATv2Conv with W_s = 1, W_d = 0, no biases, a = 1: score(j) = LeakyReLU(x_j), value x_j.
StarResult gatv2(const Matrix& x) {
    Rng rng(1);
    Gatv2Conv layer({.in = 1, .out = 1, .add_self_loops = false, .bias = false}, rng);
    layer.lin_l_weight().value.setOnes();
    layer.lin_r_weight().value.setZero();
    layer.att().value.setOnes();
    Gatv2ConvCache<float> cache;
    const Matrix out = layer.forward(star(), x, cache, false);
    const Matrix dx = layer.backward(Matrix::Ones(4, 1), cache);
    return {{cache.alpha(0, 0), cache.alpha(1, 0), cache.alpha(2, 0)}, out(0, 0),
            out.allFinite() && cache.alpha.allFinite() && dx.allFinite() && layer.att().grad.allFinite()};
}

// Dot-product attention with W_q = W_k = W_v = 1, query bias 1, other biases 0, no skip, C = 1:
// for node 0 (x_0 = 0) the query is 1, so score(j) = x_j, value x_j.
StarResult dot(const Matrix& x) {
    Rng rng(1);
    DotAttentionConvT<float> layer({.in = 1, .out = 1, .root_weight = false}, rng);
    for (auto* p : {&layer.lin_query_weight(), &layer.lin_key_weight(), &layer.lin_value_weight(), &layer.lin_query_bias()})
        p->value.setOnes();
    layer.lin_key_bias().value.setZero();
    layer.lin_value_bias().value.setZero();
    DotAttentionCache<float> cache;
    const Matrix out = layer.forward(star(), x, cache, false);
    const Matrix dx = layer.backward(Matrix::Ones(4, 1), cache);
    return {{cache.alpha(0, 0), cache.alpha(1, 0), cache.alpha(2, 0)}, out(0, 0),
            out.allFinite() && cache.alpha.allFinite() && dx.allFinite() && layer.lin_key_weight().grad.allFinite()};
}

Matrix column(float x0, float x1, float x2, float x3) {
    Matrix x(4, 1);
    x << x0, x1, x2, x3;
    return x;
}

}  // namespace

TEST_CASE("attention softmax: finite and right at scores of ±1e4, all equal, one huge", "[nn][numerics]") {
    const std::vector<std::pair<const char*, std::function<StarResult(const Matrix&)>>> layers = {
        {"gat", gat}, {"gatv2", gatv2}, {"transformer", dot}};
    for (const auto& [name, run] : layers) {
        CAPTURE(name);
        SECTION(std::string(name) + ": scores +1e4, -1e4, 0: all the weight on the first") {
            const StarResult r = run(column(0, 1e4f, -1e4f, 0));
            CHECK(r.finite);
            CHECK(r.alpha[0] == 1.0f);
            CHECK(r.alpha[1] == 0.0f);
            CHECK(r.alpha[2] == Approx(0.0).margin(1e-30));
            CHECK(r.out0 == Approx(1e4));
        }
        SECTION(std::string(name) + ": all scores equal: uniform weights") {
            for (const float v : {5.0f, 1e4f, -1e4f, -1e30f}) {
                CAPTURE(v);
                // exp(-2e29) or exp(-1e30) is 0 in any precision: only the row maximum keeps 0/0 away
                const StarResult r = run(column(0, v, v, v));
                CHECK(r.finite);
                for (const float a : r.alpha) CHECK(a == Approx(1.0 / 3.0).epsilon(1e-6));
                CHECK(r.out0 == Approx(v).epsilon(1e-6));
            }
        }
        SECTION(std::string(name) + ": one huge score among small ones") {
            const StarResult r = run(column(0, 2.0f, 1e30f, 1.0f));
            CHECK(r.finite);
            CHECK(r.alpha[0] == 0.0f);
            CHECK(r.alpha[1] == 1.0f);
            CHECK(r.alpha[2] == 0.0f);
            CHECK(r.out0 == Approx(1e30));
        }
    }
}

TEST_CASE("LayerNorm: right at one huge value, constant huge rows and squares that overflow", "[nn][norm][numerics]") {
    LayerNorm norm(4);
    Matrix x(5, 4);
    x << 1e30f, 0, 0, 0,         // squares overflow float: x̂ must still be (√3, −1/√3, −1/√3, −1/√3)
        -3e38f, 3e38f, 3e38f, 3e38f,  // even the sum overflows
        3e38f, 3e38f, 3e38f, 3e38f,    // a constant row of huge values: x̂ = 0
        1e4f, 0, 0, 0,              // the ordinary path, same expected x̂
        1, 2, 3, 4;
    LayerNormCache<float> cache;
    const Matrix y = norm.forward(x, cache);
    REQUIRE(y.allFinite());
    const float r3 = std::sqrt(3.0f);
    for (const int row : {0, 3}) {
        CAPTURE(row);
        CHECK(y(row, 0) == Approx(r3).epsilon(1e-4));
        for (int c = 1; c < 4; ++c) CHECK(y(row, c) == Approx(-1 / r3).epsilon(1e-4));
    }
    CHECK(y(1, 0) == Approx(-r3).epsilon(1e-4));
    for (int c = 1; c < 4; ++c) CHECK(y(1, c) == Approx(1 / r3).epsilon(1e-4));
    CHECK(y.row(2).cwiseAbs().maxCoeff() == 0.0f);
    // 1..4: mean 2.5, σ² = 1.25
    CHECK(y(4, 0) == Approx(-1.5 / std::sqrt(1.25 + 1e-5)).epsilon(1e-5));
    const Matrix dx = norm.backward(Matrix::Ones(5, 4), cache);
    CHECK(dx.allFinite());
    CHECK(norm.weight().grad.allFinite());
}
