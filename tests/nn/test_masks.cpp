// Attention masks: edges, khop:K (truncated attention, from BFS), full (per graph, with a cap).
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/algorithms.hpp"
#include "gatkit/graph/batch.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/masks.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace gatkit;

namespace {

std::set<NodePair> pairs_of(const Graph& g) {
    const auto list = g.edge_list();
    return {list.begin(), list.end()};
}

Graph path(NodeId n) {
    std::vector<NodePair> e;
    for (NodeId i = 0; i + 1 < n; ++i) e.emplace_back(i, i + 1);
    return build_graph(n, e, {.undirected = true});
}

}  // namespace

TEST_CASE("Mask specs parse", "[nn][masks]") {
    CHECK(parse_mask("edges").kind == MaskKind::edges);
    CHECK(parse_mask("full").kind == MaskKind::full);
    CHECK(parse_mask("khop:3").k == 3);
    CHECK(to_string(parse_mask("khop:2")) == "khop:2");
    for (const char* bad : {"khop", "khop:", "khop:0", "khop:-1", "khop:2x", "window", "Full"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(parse_mask(bad), ConfigError);
    }
}

TEST_CASE("khop:K on a path graph is a sliding window of width 2K+1", "[nn][masks]") {
    const Graph g = path(12);
    for (int k = 1; k <= 4; ++k) {
        CAPTURE(k);
        const AttentionMask m = build_mask(g, {MaskKind::khop, k});
        std::set<NodePair> expected;
        for (NodeId i = 0; i < 12; ++i)
            for (NodeId j = std::max(0, i - k); j <= std::min(11, i + k); ++j)
                if (j != i) expected.emplace(j, i);
        CHECK(pairs_of(m.graph) == expected);
        CHECK(m.graph.num_self_loops() == 0);
    }
}

TEST_CASE("khop:K equals BFS distance <= K on random graphs, directed and undirected", "[nn][masks]") {
    Rng rng(4);
    for (const bool undirected : {true, false})
        for (int k : {1, 2, 3}) {
            CAPTURE(undirected, k);
            Graph g = test::random_graph(40, 0.05, rng, /*allow_self_loops=*/true);
            if (undirected) g = make_undirected(g);
            const AttentionMask m = build_mask(g, {MaskKind::khop, k});
            std::set<NodePair> expected;
            for (NodeId i = 0; i < g.num_nodes(); ++i) {
                const auto d = bfs_hops(g, i);
                for (NodeId j = 0; j < g.num_nodes(); ++j)
                    if (j != i && d[j] != kUnreachable && d[j] <= k) expected.emplace(j, i);
            }
            CHECK(pairs_of(m.graph) == expected);
            // Input edges keep their ids (for edge features); other pairs have none.
            const auto input = g.edge_list();
            const auto mask_edges = m.graph.edge_list();
            for (std::size_t e = 0; e < mask_edges.size(); ++e) {
                const EdgeId o = m.origin[e];
                if (o >= 0) {
                    CHECK(input[static_cast<std::size_t>(o)] == mask_edges[e]);
                } else {
                    CHECK(!g.has_edge(mask_edges[e].first, mask_edges[e].second));
                }
            }
        }
}

TEST_CASE("full mask: every pair inside each graph of a batch, none across", "[nn][masks]") {
    const Graph a = path(3), b = path(4), c = build_graph(1, {});
    const GraphBatch batch = make_batch({&a, &b, &c});
    const AttentionMask m = build_mask(batch.graph, {MaskKind::full}, batch.graph_offsets);
    CHECK(m.graph.num_edges() == 3 * 2 + 4 * 3);
    const auto owner = batch.node_graph();
    for (const auto& [j, i] : m.graph.edge_list()) {
        CHECK(owner[j] == owner[i]);
        CHECK(j != i);
    }
    CHECK(m.graph.in_degree(7) == 0);  // the one-node graph attends only to itself (self-loop added by the layer)
    // Edge features: bonds keep theirs, the other pairs get zeros.
    Matrix attr(batch.graph.num_edges(), 2);
    for (EdgeId e = 0; e < attr.rows(); ++e) attr.row(e) << static_cast<float>(e + 1), -1.0f;
    const Matrix gathered = gather_edge_attr(m, attr);
    REQUIRE(gathered.rows() == m.graph.num_edges());
    for (EdgeId e = 0; e < gathered.rows(); ++e) {
        const EdgeId o = m.origin[static_cast<std::size_t>(e)];
        CHECK(gathered(e, 0) == (o < 0 ? 0.0f : static_cast<float>(o + 1)));
    }
}

TEST_CASE("full mask refuses a graph above the cap, naming it and its size", "[nn][masks]") {
    const Graph a = path(3), big = path(20);
    const GraphBatch batch = make_batch({&a, &big});
    CHECK_THROWS_WITH(build_mask(batch.graph, {MaskKind::full}, batch.graph_offsets, 10, {"small", "CCCCCCCCCCCCCCCCCCCC"}),
                      Catch::Contains("'CCCCCCCCCCCCCCCCCCCC'") && Catch::Contains("20 nodes") && Catch::Contains("10"));
    CHECK_THROWS_WITH(build_mask(batch.graph, {MaskKind::full}, batch.graph_offsets, 10), Catch::Contains("graph 2 has 20 nodes"));
    CHECK_NOTHROW(build_mask(batch.graph, {MaskKind::full}, batch.graph_offsets, 20));
}

TEST_CASE("edges mask is the graph without self-loops, masks are thread-independent", "[nn][masks]") {
    Rng rng(9);
    const Graph g = make_undirected(test::random_graph(300, 0.02, rng, true));
    const AttentionMask e = build_mask(g, {MaskKind::edges});
    CHECK(e.graph.num_edges() == g.num_edges() - g.num_self_loops());
    const int saved = thread_count();
    set_thread_count(1);
    const AttentionMask one = build_mask(g, {MaskKind::khop, 2});
    set_thread_count(2);
    const AttentionMask two = build_mask(g, {MaskKind::khop, 2});
    set_thread_count(saved);
    CHECK(one.graph.edge_list() == two.graph.edge_list());
    CHECK(one.origin == two.origin);
}
