// The kernel CSR (incoming rows + transpose), build_graph's options and the transforms.
#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/graph/graph.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace gatkit;
using Edges = std::vector<std::pair<NodeId, NodeId>>;

namespace {

// Every structural invariant of the CSR pair, checked entry by entry.
void check_csr(const Graph& g) {
    const NodeId N = g.num_nodes();
    const EdgeId E = g.num_edges();
    REQUIRE(g.in_offsets().size() == static_cast<std::size_t>(N) + 1);
    REQUIRE(g.out_offsets().size() == static_cast<std::size_t>(N) + 1);
    REQUIRE(g.in_src().size() == static_cast<std::size_t>(E));
    REQUIRE(g.out_dst().size() == static_cast<std::size_t>(E));
    REQUIRE(g.out_edge().size() == static_cast<std::size_t>(E));
    REQUIRE(g.in_offsets().front() == 0);
    REQUIRE(g.in_offsets().back() == E);
    REQUIRE(g.out_offsets().front() == 0);
    REQUIRE(g.out_offsets().back() == E);

    // which row (destination) each edge id lies in
    std::vector<NodeId> row_of(static_cast<std::size_t>(E), -1);
    for (NodeId i = 0; i < N; ++i) {
        REQUIRE(g.in_offsets()[i] <= g.in_offsets()[i + 1]);
        REQUIRE(g.in_degree(i) == g.in_offsets()[i + 1] - g.in_offsets()[i]);
        for (EdgeId e = g.in_offsets()[i]; e < g.in_offsets()[i + 1]; ++e) {
            row_of[e] = i;
            REQUIRE(g.in_src()[e] >= 0);
            REQUIRE(g.in_src()[e] < N);
            if (e > g.in_offsets()[i]) REQUIRE(g.in_src()[e - 1] <= g.in_src()[e]);  // rows sorted by source
        }
    }
    std::vector<int> seen(static_cast<std::size_t>(E), 0);
    for (NodeId j = 0; j < N; ++j) {
        REQUIRE(g.out_offsets()[j] <= g.out_offsets()[j + 1]);
        for (EdgeId k = g.out_offsets()[j]; k < g.out_offsets()[j + 1]; ++k) {
            const EdgeId e = g.out_edge()[k];
            REQUIRE(e >= 0);
            REQUIRE(e < E);
            ++seen[e];
            CHECK(g.in_src()[e] == j);          // the entry belongs to source j
            CHECK(row_of[e] == g.out_dst()[k]);  // and lies in row out_dst[k]
            if (k > g.out_offsets()[j]) CHECK(g.out_edge()[k - 1] < e);  // a source's row by increasing edge id
        }
    }
    for (EdgeId e = 0; e < E; ++e) REQUIRE(seen[e] == 1);  // every edge id exactly once
}

std::multiset<std::pair<NodeId, NodeId>> edge_set(const Graph& g) {
    const auto list = g.edge_list();
    return {list.begin(), list.end()};
}

}  // namespace

TEST_CASE("build_graph: small hand-written graph", "[graph]") {
    // 0→1, 2→1, 3→1, 1→0, 1→2, 0→3, 3→3, given out of order, with a duplicate 2→1
    const Edges edges{{3, 1}, {1, 0}, {2, 1}, {0, 3}, {1, 2}, {0, 1}, {2, 1}, {3, 3}};
    const Graph g = build_graph(4, edges);
    check_csr(g);
    REQUIRE(g.num_nodes() == 4);
    REQUIRE(g.num_edges() == 7);  // the duplicate is dropped by default

    CHECK(g.in_offsets() == std::vector<EdgeId>{0, 1, 4, 5, 7});
    CHECK(g.in_src() == std::vector<NodeId>{1, 0, 2, 3, 1, 0, 3});
    CHECK(g.edge_list() == Edges{{1, 0}, {0, 1}, {2, 1}, {3, 1}, {1, 2}, {0, 3}, {3, 3}});

    // transpose: source 0 → {1, 3}, 1 → {0, 2}, 2 → {1}, 3 → {1, 3}
    CHECK(g.out_offsets() == std::vector<EdgeId>{0, 2, 4, 5, 7});
    CHECK(g.out_degree(0) == 2);
    CHECK(g.out_degree(2) == 1);
    std::vector<NodeId> dst0(g.out_dst().begin(), g.out_dst().begin() + 2);
    std::sort(dst0.begin(), dst0.end());
    CHECK(dst0 == std::vector<NodeId>{1, 3});

    CHECK(g.has_edge(0, 1));
    CHECK(g.has_edge(3, 3));
    CHECK_FALSE(g.has_edge(1, 3));
    CHECK_FALSE(g.has_edge(2, 0));
    CHECK(g.num_self_loops() == 1);
}

TEST_CASE("build_graph options: undirected, duplicates, self-loops", "[graph]") {
    const Edges edges{{0, 1}, {0, 1}, {1, 2}, {2, 2}, {3, 0}};

    SECTION("keep duplicates") {
        const Graph g = build_graph(4, edges, {.drop_duplicates = false});
        check_csr(g);
        CHECK(g.num_edges() == 5);
        CHECK(edge_set(g).count({0, 1}) == 2);
        CHECK(g.num_self_loops() == 1);
    }
    SECTION("undirected adds every reverse edge once") {
        const Graph g = build_graph(4, edges, {.undirected = true});
        check_csr(g);
        for (const auto& [u, v] : g.edge_list()) CHECK(g.has_edge(v, u));
        CHECK(edge_set(g) == std::multiset<std::pair<NodeId, NodeId>>{{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 2}, {3, 0}, {0, 3}});
    }
    SECTION("SelfLoops::remove") {
        const Graph g = build_graph(4, edges, {.self_loops = SelfLoops::remove});
        check_csr(g);
        CHECK(g.num_self_loops() == 0);
        CHECK(g.num_edges() == 3);
    }
    SECTION("SelfLoops::add gives exactly one per node") {
        const Edges with_loops{{0, 1}, {2, 2}, {2, 2}, {1, 1}};
        const Graph g = build_graph(4, with_loops, {.drop_duplicates = false, .self_loops = SelfLoops::add});
        check_csr(g);
        CHECK(g.num_self_loops() == 4);
        CHECK(g.num_edges() == 5);
        for (NodeId i = 0; i < 4; ++i) CHECK(edge_set(g).count({i, i}) == 1);
    }
}

TEST_CASE("with_self_loops is built once and has one self-loop per node", "[graph]") {
    const Graph g = build_graph(5, {{0, 1}, {1, 1}, {1, 1}, {3, 4}}, {.drop_duplicates = false});
    REQUIRE(g.num_self_loops() == 2);
    const Graph& a = g.with_self_loops();
    const Graph& b = g.with_self_loops();
    CHECK(&a == &b);
    check_csr(a);
    CHECK(a.num_nodes() == 5);
    CHECK(a.num_self_loops() == 5);
    CHECK(a.num_edges() == 2 + 5);
    for (NodeId i = 0; i < 5; ++i) CHECK(a.has_edge(i, i));
    CHECK(a.has_edge(0, 1));
    CHECK(a.has_edge(3, 4));
    CHECK(g.num_self_loops() == 2);  // the original is unchanged
}

TEST_CASE("build_graph rejects node ids out of range, naming the edge and node", "[graph]") {
    CHECK_THROWS_AS(build_graph(3, {{0, 1}, {1, 3}}), GraphError);
    CHECK_THROWS_WITH(build_graph(3, {{0, 1}, {1, 3}}),
                      Catch::Contains("edge 1") && Catch::Contains("(1, 3)") && Catch::Contains("[0, 3)"));
    CHECK_THROWS_WITH(build_graph(3, {{-2, 0}}), Catch::Contains("edge 0") && Catch::Contains("-2"));
    CHECK_THROWS_AS(build_graph(-1, {}), GraphError);
}

TEST_CASE("zero-node and edgeless graphs", "[graph]") {
    const Graph g = build_graph(0, {});
    check_csr(g);
    CHECK(g.num_nodes() == 0);
    CHECK(g.num_edges() == 0);
    CHECK(g.num_self_loops() == 0);
    CHECK(g.edge_list().empty());
    CHECK(g.with_self_loops().num_nodes() == 0);
    CHECK(make_undirected(g).num_edges() == 0);

    const Graph h = build_graph(3, {});
    check_csr(h);
    CHECK(h.num_edges() == 0);
    CHECK(h.with_self_loops().num_edges() == 3);
}

TEST_CASE("random graphs: transpose consistency and edge multiset", "[graph]") {
    Rng rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        const NodeId n = 1 + static_cast<NodeId>(rng.below(60));
        const double p = rng.uniform(0.0, 0.3);
        INFO("trial " << trial << " n=" << n << " p=" << p);
        const Graph g = gatkit::test::random_graph(n, p, rng, /*allow_self_loops=*/trial % 2 == 0);
        check_csr(g);
        // the edge list rebuilt gives the same graph
        const Graph again = build_graph(n, g.edge_list());
        CHECK(again.in_src() == g.in_src());
        CHECK(again.in_offsets() == g.in_offsets());
        for (const auto& [u, v] : g.edge_list()) REQUIRE(g.has_edge(u, v));
        check_csr(g.with_self_loops());
        CHECK(g.with_self_loops().num_self_loops() == n);
    }
}

TEST_CASE("transforms: make_undirected, remove/add self-loops, drop duplicates", "[graph]") {
    const Graph g = build_graph(4, {{0, 1}, {0, 1}, {1, 1}, {2, 3}, {3, 2}, {3, 3}}, {.drop_duplicates = false});
    REQUIRE(g.num_edges() == 6);

    const Graph u = make_undirected(g);
    check_csr(u);
    CHECK(edge_set(u) == std::multiset<std::pair<NodeId, NodeId>>{{0, 1}, {1, 0}, {1, 1}, {2, 3}, {3, 2}, {3, 3}});

    const Graph r = remove_self_loops(g);
    check_csr(r);
    CHECK(r.num_self_loops() == 0);
    CHECK(r.num_edges() == 4);  // duplicates kept
    CHECK(edge_set(r).count({0, 1}) == 2);

    const Graph a = add_self_loops(g);
    check_csr(a);
    CHECK(a.num_self_loops() == 4);
    CHECK(a.num_edges() == 4 + 4);
    for (NodeId i = 0; i < 4; ++i) CHECK(edge_set(a).count({i, i}) == 1);

    const Graph d = drop_duplicate_edges(g);
    check_csr(d);
    CHECK(d.num_edges() == 5);
    CHECK(edge_set(d).count({0, 1}) == 1);
    CHECK(d.num_self_loops() == 2);
}

TEST_CASE("the Boost.Graph view is built on first use with the CSR's edges and edge ids", "[graph]") {
    Rng rng(5);
    const Graph g = gatkit::test::random_graph(40, 0.15, rng, /*allow_self_loops=*/true);
    const Graph copy = g;  // copies share the view and the identity
    CHECK(copy.identity() == g.identity());
    CHECK(build_graph(40, g.edge_list()).identity() != g.identity());
    const BglGraph& b = g.bgl();
    CHECK(&copy.bgl() == &b);
    REQUIRE(num_vertices(b) == static_cast<std::size_t>(g.num_nodes()));
    REQUIRE(num_edges(b) == static_cast<std::size_t>(g.num_edges()));
    const auto edge_index = get(boost::edge_index, b);
    for (NodeId i = 0; i < g.num_nodes(); ++i) {
        // BGL edges point destination -> source: vertex i's out-edges are row i, in edge-id order
        EdgeId e = g.in_offsets()[i];
        for (auto [it, end] = out_edges(static_cast<std::size_t>(i), b); it != end; ++it, ++e) {
            CHECK(static_cast<EdgeId>(get(edge_index, *it)) == e);
            CHECK(static_cast<NodeId>(target(*it, b)) == g.in_src()[e]);
        }
        CHECK(e == g.in_offsets()[i + 1]);
    }
}

TEST_CASE("build_from_sorted rejects unsorted edges and ids out of range, naming the edge", "[graph]") {
    CHECK(build_from_sorted(3, {{1, 0}, {2, 0}, {0, 2}}).num_edges() == 3);
    CHECK_THROWS_WITH(build_from_sorted(3, {{0, 2}, {1, 0}}),
                      Catch::Contains("edge 1") && Catch::Contains("(1, 0)") && Catch::Contains("sorted by destination"));
    CHECK_THROWS_WITH(build_from_sorted(3, {{0, 1}, {3, 2}}), Catch::Contains("edge 1") && Catch::Contains("[0, 3)"));
    CHECK_THROWS_AS(build_from_sorted(2, {{0, -1}}), GraphError);
    CHECK_THROWS_AS(build_from_sorted(-1, {}), GraphError);
}

TEST_CASE("add_self_loops gives the edge order of the stable sort, with sorted and unsorted rows", "[graph]") {
    // The definition: old loops out, (i, i) for every node in, stably sorted by (dst, src).
    auto by_definition = [](const Graph& g) {
        Edges e = g.edge_list();
        std::erase_if(e, [](const auto& p) { return p.first == p.second; });
        for (NodeId i = 0; i < g.num_nodes(); ++i) e.emplace_back(i, i);
        std::stable_sort(e.begin(), e.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second < b.second : a.first < b.first;
        });
        return e;
    };
    Rng rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        const Graph sorted_rows = gatkit::test::random_graph(30, 0.2, rng, /*allow_self_loops=*/true);
        // duplicates and loops, rows sorted by source (build_graph's order)
        Edges extra = sorted_rows.edge_list();
        for (std::size_t k = 0; k < extra.size(); k += 3) extra.push_back(extra[k]);
        extra.emplace_back(5, 5);
        extra.emplace_back(5, 5);
        const Graph dups = build_graph(30, extra, {.drop_duplicates = false});
        for (const Graph* g : {&sorted_rows, &dups}) {
            const Graph a = add_self_loops(*g);
            check_csr(a);
            CHECK(a.edge_list() == by_definition(*g));
        }
    }
    // a row not sorted by source (build_from_sorted keeps the order given): the general path
    const Graph unsorted = build_from_sorted(3, {{2, 0}, {1, 0}, {0, 0}, {0, 1}, {2, 2}, {1, 2}});
    const Graph a = add_self_loops(unsorted);
    check_csr(a);
    CHECK(a.edge_list() == by_definition(unsorted));
    CHECK(a.edge_list() == Edges{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}});
}
