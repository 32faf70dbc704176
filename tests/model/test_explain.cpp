// Attention read back from a model: edge weights per head or averaged, the attention a node
// receives, pair scores and a node's ranked neighbours, against a small example by hand.
#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/model/explain.hpp"
#include "gatkit/model/model.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <numeric>

using namespace gatkit;
using Catch::Matchers::Contains;

namespace {

// The path 0 – 1 – 2 with self-loops. Edge ids follow (destination, source) order:
//   e0 0→0, e1 1→0 | e2 0→1, e3 1→1, e4 2→1 | e5 1→2, e6 2→2
Graph path3() { return build_graph(3, {{0, 1}, {1, 2}}, {.undirected = true, .self_loops = SelfLoops::add}); }

// α for two heads; each destination's column entries sum to 1. Binary fractions, so float α
// and the sums below are exact (and ties are ties).
Matrix alpha3() {
    Matrix a(7, 2);
    a << 0.25, 0.75,    //
        0.75, 0.25,     //
        0.25, 0.375,    //
        0.5, 0.25,      //
        0.25, 0.375,    //
        0.625, 0.125,   //
        0.375, 0.875;
    return a;
}

}  // namespace

TEST_CASE("head_weights picks one head or averages them", "[model][explain]") {
    const Graph g = path3();
    REQUIRE(g.edge_list() == std::vector<NodePair>{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 1}, {1, 2}, {2, 2}});
    const std::vector<double> mean = head_weights(alpha3(), std::nullopt);
    CHECK(mean == std::vector<double>{0.5, 0.5, 0.3125, 0.375, 0.3125, 0.375, 0.625});
    CHECK(head_weights(alpha3(), 1)[6] == 0.875);
    CHECK_THROWS_AS(head_weights(alpha3(), 2), ConfigError);
    CHECK_THROWS_WITH(head_weights(alpha3(), -1), Contains("head -1") && Contains("2 heads"));
}

TEST_CASE("attention_received sums what each node gets as a source, self-loop included", "[model][explain]") {
    const Graph g = path3();
    // Mean: node 0 gets e0 + e2 = 0.5 + 0.3125; node 1 gets e1 + e3 + e5 = 0.5 + 0.375 + 0.375;
    // node 2 gets e4 + e6 = 0.3125 + 0.625.
    const std::vector<double> s = attention_received(g, head_weights(alpha3(), std::nullopt));
    CHECK(s == std::vector<double>{0.8125, 1.25, 0.9375});
    // Every destination hands out 1, so the scores sum to N.
    CHECK(std::accumulate(s.begin(), s.end(), 0.0) == 3.0);
    CHECK(attention_received(g, head_weights(alpha3(), 0)) == std::vector<double>{0.5, 1.875, 0.625});
    CHECK_THROWS_AS(attention_received(g, {1.0, 2.0}), ShapeError);
}

TEST_CASE("pair_attention averages both directions of a pair", "[model][explain]") {
    const Graph g = path3();
    const std::vector<double> w = head_weights(alpha3(), std::nullopt);
    // (0,1): a(0→1) = e2 = 0.3125, a(1→0) = e1 = 0.5; (2,1): a(2→1) = e4 = 0.3125, a(1→2) = e5 = 0.375.
    const std::vector<double> p = pair_attention(g, w, {{0, 1}, {2, 1}, {1, 1}});
    CHECK(p[0] == 0.40625);
    CHECK(p[1] == 0.34375);
    CHECK(p[2] == 0.375);  // a self-loop pair is its one edge
    // One direction only: its weight.
    const Graph directed = build_graph(2, {{0, 1}}, {.self_loops = SelfLoops::add});  // e0 0→0, e1 0→1, e2 1→1
    CHECK(pair_attention(directed, {1.0, 0.25, 0.75}, {{1, 0}})[0] == Approx(0.25));
    CHECK_THROWS_WITH(pair_attention(g, w, {{0, 2}}), Contains("0 → 2") && Contains("2 → 0"));
}

TEST_CASE("attended_neighbors ranks a node's sources by weight, ties by id", "[model][explain]") {
    const Graph g = path3();
    const auto n = attended_neighbors(g, head_weights(alpha3(), std::nullopt), 1);
    REQUIRE(n.size() == 3);
    CHECK(n[0].node == 1);  // 0.375
    CHECK(n[0].self_loop);
    CHECK(n[1].node == 0);  // 0.3125, tied with node 2: lower id first
    CHECK_FALSE(n[1].self_loop);
    CHECK(n[2].node == 2);
    CHECK(n[2].alpha == 0.3125);
    CHECK_THROWS_AS(attended_neighbors(g, head_weights(alpha3(), 0), 3), GraphError);
}

TEST_CASE("edge_attention reads a layer of a model's last forward and checks the choice", "[model][explain]") {
    ModelConfig c;
    c.task = "node";
    c.in_features = 3;
    c.num_classes = 2;
    c.layers = 2;
    c.heads = 3;
    c.hidden = 4;
    c.dropout = c.attn_dropout = 0;
    Model model(c, 5);
    CHECK_THROWS_AS(edge_attention(model), Error);  // no forward yet
    Rng rng(2);
    const Graph g = test::random_graph(6, 0.4, rng);
    model.forward(g, test::random_matrix<float>(6, 3, rng), false);

    const EdgeAttention last = edge_attention(model);
    CHECK(last.layer == 1);
    CHECK(last.heads == 1);  // the output layer: out_heads
    const EdgeAttention first = edge_attention(model, {.layer = 0, .head = 2});
    CHECK(first.heads == 3);
    REQUIRE(static_cast<EdgeId>(first.weight.size()) == first.graph->num_edges());
    for (EdgeId e = 0; e < first.graph->num_edges(); ++e) CHECK(first.weight[static_cast<std::size_t>(e)] == model.attention(0)(e, 2));
    // Every node's weights (self-loop included) sum to 1, for one head and for the mean.
    const EdgeAttention mean = edge_attention(model, {.layer = 0});
    for (const auto* w : {&first.weight, &mean.weight})
        for (NodeId i = 0; i < 6; ++i) {
            double sum = 0;
            for (const auto& n : attended_neighbors(*first.graph, *w, i)) sum += n.alpha;
            CHECK(sum == Approx(1.0).margin(1e-6));
        }
    CHECK_THROWS_WITH(edge_attention(model, {.layer = 2}), Contains("layer 2") && Contains("2 attention layers"));
    CHECK_THROWS_WITH(edge_attention(model, {.layer = 0, .head = 3}), Contains("head 3") && Contains("3 heads"));
}
