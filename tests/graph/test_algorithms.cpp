// Connected components and BFS hop distances, run by Boost.Graph.
#include "gatkit/core/error.hpp"
#include "gatkit/graph/algorithms.hpp"
#include "gatkit/graph/build.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <deque>

using namespace gatkit;

namespace {

// Plain BFS over incoming rows: from destination i to each source j of its incoming edges.
std::vector<NodeId> naive_bfs(const Graph& g, NodeId source) {
    std::vector<NodeId> dist(static_cast<std::size_t>(g.num_nodes()), kUnreachable);
    std::deque<NodeId> queue{source};
    dist[source] = 0;
    while (!queue.empty()) {
        const NodeId i = queue.front();
        queue.pop_front();
        for (EdgeId e = g.in_offsets()[i]; e < g.in_offsets()[i + 1]; ++e) {
            const NodeId j = g.in_src()[e];
            if (dist[j] == kUnreachable) {
                dist[j] = dist[i] + 1;
                queue.push_back(j);
            }
        }
    }
    return dist;
}

}  // namespace

TEST_CASE("connected_components: three components and an isolated node", "[graph][bgl]") {
    // {0, 3, 5}, {1, 2}, {4, 7, 8}, {6} isolated; directed edges, one component linked only one way
    const Graph g = build_graph(9, {{5, 0}, {3, 5}, {2, 1}, {7, 4}, {8, 7}});
    NodeId count = -1;
    const auto comp = connected_components(g, &count);
    CHECK(count == 4);
    // numbered in order of each component's smallest node: 0 → 0, 1 → 1, 4 → 2, 6 → 3
    CHECK(comp == std::vector<NodeId>{0, 1, 1, 0, 2, 0, 3, 2, 2});
    CHECK(connected_components(g) == comp);  // count is optional

    const Graph empty = build_graph(0, {});
    CHECK(connected_components(empty, &count).empty());
    CHECK(count == 0);

    const Graph lonely = build_graph(3, {});
    CHECK(connected_components(lonely, &count) == std::vector<NodeId>{0, 1, 2});
    CHECK(count == 3);
}

TEST_CASE("connected_components agrees with BFS reachability on random graphs", "[graph][bgl]") {
    Rng rng(21);
    for (int trial = 0; trial < 10; ++trial) {
        const NodeId n = 1 + static_cast<NodeId>(rng.below(40));
        const Graph g = make_undirected(gatkit::test::random_graph(n, 1.5 / n, rng));
        NodeId count = 0;
        const auto comp = connected_components(g, &count);
        NodeId expected_count = 0;
        for (NodeId s = 0; s < n; ++s) {
            const auto d = naive_bfs(g, s);
            REQUIRE(comp[s] <= expected_count);  // ids follow the smallest node of each component
            if (comp[s] == expected_count) ++expected_count;
            for (NodeId t = 0; t < n; ++t) REQUIRE((d[t] != kUnreachable) == (comp[s] == comp[t]));
        }
        CHECK(count == expected_count);
    }
}

TEST_CASE("bfs_hops on a path graph", "[graph][bgl]") {
    // 0-1-2-3-4 undirected, plus 5-6 elsewhere
    const Graph g = build_graph(7, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {5, 6}}, {.undirected = true});
    CHECK(bfs_hops(g, 0) == std::vector<NodeId>{0, 1, 2, 3, 4, kUnreachable, kUnreachable});
    CHECK(bfs_hops(g, 2) == std::vector<NodeId>{2, 1, 0, 1, 2, kUnreachable, kUnreachable});
    CHECK(bfs_hops(g, 6) == std::vector<NodeId>{kUnreachable, kUnreachable, kUnreachable, kUnreachable, kUnreachable, 1, 0});

    // Directed: hops follow edges from destination to source, as documented.
    const Graph d = build_graph(3, {{0, 1}, {1, 2}});
    CHECK(bfs_hops(d, 2) == std::vector<NodeId>{2, 1, 0});
    CHECK(bfs_hops(d, 0) == std::vector<NodeId>{0, kUnreachable, kUnreachable});
}

TEST_CASE("bfs_hops equals a naive BFS on random graphs", "[graph][bgl]") {
    Rng rng(22);
    for (int trial = 0; trial < 10; ++trial) {
        const NodeId n = 2 + static_cast<NodeId>(rng.below(50));
        const bool undirected = trial % 2 == 0;
        Graph g = gatkit::test::random_graph(n, 2.0 / n, rng, true);
        if (undirected) g = make_undirected(g);
        INFO("trial " << trial << " n=" << n);
        for (NodeId s = 0; s < n; s += 3) REQUIRE(bfs_hops(g, s) == naive_bfs(g, s));
    }
}

TEST_CASE("bfs_hops rejects a source outside the graph", "[graph][bgl]") {
    const Graph g = build_graph(3, {{0, 1}});
    CHECK_THROWS_AS(bfs_hops(g, 3), GraphError);
    CHECK_THROWS_AS(bfs_hops(g, -1), GraphError);
    CHECK_THROWS_WITH(bfs_hops(g, 7), Catch::Contains("7") && Catch::Contains("[0, 3)"));
    CHECK_THROWS_AS(bfs_hops(build_graph(0, {}), 0), GraphError);
}
