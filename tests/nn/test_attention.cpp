// The attention-layer interface: every conv kind and the transformer block behind one API,
// checked against the templated layers and by finite differences (float, kinks skipped).
#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/attention.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

Graph small_graph() {
    return build_graph(8, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 0}, {1, 5}, {2, 6}}, {.undirected = true});
}

// Central differences on a sample of entries; entries where the one-sided differences disagree sit
// on a kink (ReLU/ELU/LeakyReLU switching inside the step) and are skipped (at most a few).
void check_gradients(AttentionLayer& layer, const Graph& g, Matrix& x, const Matrix* attr) {
    Rng rng(2);
    const Matrix w = random_matrix<float>(x.rows(), layer.out_width(), rng);
    auto loss = [&] { return static_cast<double>((layer.forward(g, x, false, nullptr, attr).array() * w.array()).cast<double>().sum()); };
    ParameterList<float> params;
    layer.parameters(params);
    zero_grads(params);
    layer.forward(g, x, false, nullptr, attr);
    const Matrix dx = layer.backward(w, true);
    const double base = loss();
    std::size_t checked = 0, kinks = 0;
    auto probe = [&](float& value, double analytic, const std::string& what) {
        const float saved = value, h = 1e-3f;
        value = saved + h;
        const double up = loss();
        value = saved - h;
        const double down = loss();
        value = saved;
        const double numeric = (up - down) / (2.0 * h);
        if (std::abs((up - base) - (base - down)) / h > 2e-3 + 2e-2 * std::abs(numeric)) {
            ++kinks;
            return;
        }
        INFO(what << ": analytic " << analytic << " vs numeric " << numeric);
        CHECK(std::abs(analytic - numeric) <= 3e-3 + 2e-2 * std::abs(numeric));
        ++checked;
    };
    for (auto* p : params)
        for (Eigen::Index k = 0; k < p->value.size(); k += std::max<Eigen::Index>(1, p->value.size() / 5))
            probe(p->value.data()[k], p->grad.data()[k], p->name + "[" + std::to_string(k) + "]");
    for (Eigen::Index k = 0; k < x.size(); k += 3) probe(x.data()[k], dx.data()[k], "x[" + std::to_string(k) + "]");
    CHECK(checked > 20);
    CHECK(kinks * 5 <= checked);  // GATv2 has a LeakyReLU per channel inside each score: more kinks
}

}  // namespace

TEST_CASE("make_attention_layer(gat) is GatConv", "[nn][attention]") {
    const Graph g = small_graph();
    Rng a(5), b(5), xr(1);
    auto layer = make_attention_layer({.conv = "gat", .in = 4, .out = 3, .heads = 2}, a, "layers.0");
    GatConv ref({.in = 4, .out = 3, .heads = 2}, b, "layers.0");
    const Matrix x = random_matrix<float>(8, 4, xr);
    GatConvCache<float> cache;
    CHECK(layer->forward(g, x, false, nullptr, nullptr) == ref.forward(g, x, cache, false));
    CHECK(layer->attention() == cache.alpha);
    CHECK(layer->attention_graph().num_edges() == g.num_edges() + 8);
}

TEST_CASE("Attention layers and transformer blocks: gradients match finite differences", "[nn][attention][gradcheck]") {
    const Graph g = small_graph();
    Rng rng(7);
    const Matrix attr = random_matrix<float>(g.num_edges(), 2, rng);
    for (const std::string conv : {"gat", "gatv2", "transformer"})
        for (const std::string block : {"plain", "transformer"})
            for (const int edge_dim : {0, 2}) {
                CAPTURE(conv, block, edge_dim);
                Rng init(11);
                auto layer = make_attention_layer(
                    {.conv = conv, .in = 5, .out = 3, .heads = 2, .edge_dim = edge_dim, .block = block}, init, "layers.0");
                CHECK(layer->out_width() == 6);
                Matrix x = random_matrix<float>(8, 5, rng);
                check_gradients(*layer, g, x, edge_dim ? &attr : nullptr);
            }
}

TEST_CASE("Attention factory rejects unknown kinds", "[nn][attention]") {
    Rng rng(1);
    CHECK_THROWS_AS(make_attention_layer({.conv = "gcn", .in = 2, .out = 2}, rng, "x"), ConfigError);
    CHECK_THROWS_AS(make_attention_layer({.conv = "gat", .in = 2, .out = 2, .block = "resnet"}, rng, "x"), ConfigError);
    auto layer = make_attention_layer({.conv = "gat", .in = 2, .out = 2}, rng, "x");
    CHECK_THROWS_AS(layer->attention_graph(), Error);
}
