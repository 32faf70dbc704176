// Link heuristics: hand-computed values, a brute-force set reference on random graphs, threads,
// names and errors.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/graph/link_heuristics.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

using namespace gatkit;
using gatkit::test::random_graph;

namespace {

constexpr double kExact = 1e-12;  // the same sum in the same order; only the last bit may differ

// Straight from the definitions, with std::set neighbourhoods (self-loops dropped).
std::vector<double> brute_force(const Graph& g, const std::vector<std::pair<NodeId, NodeId>>& pairs, LinkHeuristic h) {
    std::vector<std::set<NodeId>> nbrs(static_cast<std::size_t>(g.num_nodes()));
    for (const auto& [src, dst] : g.edge_list())
        if (src != dst) nbrs[dst].insert(src);
    std::vector<double> out;
    for (const auto& [u, v] : pairs) {
        std::set<NodeId> both, either = nbrs[u];
        either.insert(nbrs[v].begin(), nbrs[v].end());
        for (NodeId w : nbrs[u])
            if (nbrs[v].count(w)) both.insert(w);
        double aa = 0;
        for (NodeId w : both) aa += 1.0 / std::log(static_cast<double>(nbrs[w].size()));
        switch (h) {
            case LinkHeuristic::common_neighbours: out.push_back(static_cast<double>(both.size())); break;
            case LinkHeuristic::jaccard:
                out.push_back(either.empty() ? 0.0 : static_cast<double>(both.size()) / static_cast<double>(either.size()));
                break;
            case LinkHeuristic::adamic_adar: out.push_back(aa); break;
        }
    }
    return out;
}

std::vector<std::pair<NodeId, NodeId>> all_pairs(NodeId n) {
    std::vector<std::pair<NodeId, NodeId>> pairs;
    for (NodeId u = 0; u < n; ++u)
        for (NodeId v = 0; v < n; ++v)
            if (u != v) pairs.emplace_back(u, v);
    return pairs;
}

}  // namespace

TEST_CASE("link heuristics: hand-computed values", "[link]") {
    //   N(0) = {1,2,3}  N(1) = {0,2,3}  N(2) = {0,1,4}  N(3) = {0,1,4}
    //   N(4) = {2,3,5}  N(5) = {4,8}    N(8) = {5}      6, 7 isolated
    // plus a self-loop on 1 and a repeated edge 0–1, both of which must not count.
    std::vector<std::pair<NodeId, NodeId>> edges = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 4},
                                                    {3, 4}, {4, 5}, {5, 8}, {1, 1}, {1, 0}};
    const Graph g = build_graph(9, edges, {.undirected = true, .drop_duplicates = false});
    REQUIRE(g.num_self_loops() == 1);
    const std::vector<std::pair<NodeId, NodeId>> pairs = {{0, 1}, {2, 3}, {0, 4}, {4, 8}, {1, 5}, {5, 6}, {6, 7}};
    const double ln2 = std::log(2.0), ln3 = std::log(3.0);

    const auto cn = heuristic_scores(g, pairs, LinkHeuristic::common_neighbours);
    CHECK(cn == std::vector<double>{2, 3, 2, 1, 0, 0, 0});

    // unions: {0,1,2,3}, {0,1,4}, {1,2,3,5}, {2,3,5}, {0,2,3,4,8}, {4,8}, {}
    const auto jaccard = heuristic_scores(g, pairs, LinkHeuristic::jaccard);
    const std::vector<double> expected_jaccard = {2.0 / 4, 3.0 / 3, 2.0 / 4, 1.0 / 3, 0, 0, 0};
    for (std::size_t k = 0; k < pairs.size(); ++k) CHECK(jaccard[k] == Approx(expected_jaccard[k]).margin(kExact));

    // common neighbours of (0,1): 2 and 3, both of degree 3; of (4,8): 5, of degree 2
    const auto aa = heuristic_scores(g, pairs, LinkHeuristic::adamic_adar);
    const std::vector<double> expected_aa = {2 / ln3, 3 / ln3, 2 / ln3, 1 / ln2, 0, 0, 0};
    for (std::size_t k = 0; k < pairs.size(); ++k) CHECK(aa[k] == Approx(expected_aa[k]).margin(kExact));

    // symmetric in the pair; empty pair list
    CHECK(heuristic_scores(g, {{1, 0}, {8, 4}}, LinkHeuristic::adamic_adar) ==
          std::vector<double>{aa[0], aa[3]});
    CHECK(heuristic_scores(g, {}, LinkHeuristic::jaccard).empty());
}

TEST_CASE("link heuristics agree with set-based brute force on random graphs", "[link]") {
    Rng rng(17);
    for (const double p : {0.03, 0.1, 0.3}) {
        // self-loops on, to check they are ignored
        const Graph g = make_undirected(random_graph(50, p, rng, /*allow_self_loops=*/true));
        const auto pairs = all_pairs(50);
        for (const auto h : {LinkHeuristic::common_neighbours, LinkHeuristic::jaccard, LinkHeuristic::adamic_adar}) {
            INFO("p = " << p << ", " << to_string(h));
            const auto fast = heuristic_scores(g, pairs, h);
            const auto slow = brute_force(g, pairs, h);
            REQUIRE(fast.size() == slow.size());
            std::size_t mismatches = 0;
            for (std::size_t k = 0; k < fast.size(); ++k) mismatches += std::abs(fast[k] - slow[k]) > kExact;
            CHECK(mismatches == 0);
        }
    }
}

TEST_CASE("link heuristics are identical with 1 and 2 threads", "[link][threads]") {
    Rng rng(3);
    const Graph g = make_undirected(random_graph(300, 0.05, rng));
    const auto pairs = all_pairs(300);
    const int saved = thread_count();
    for (const auto h : {LinkHeuristic::common_neighbours, LinkHeuristic::jaccard, LinkHeuristic::adamic_adar}) {
        set_thread_count(1);
        const auto one = heuristic_scores(g, pairs, h);
        set_thread_count(2);
        const auto two = heuristic_scores(g, pairs, h);
        CHECK(one == two);
    }
    set_thread_count(saved);
}

TEST_CASE("link heuristics: names and errors", "[link]") {
    CHECK(parse_link_heuristic("common-neighbours") == LinkHeuristic::common_neighbours);
    CHECK(parse_link_heuristic("cn") == LinkHeuristic::common_neighbours);
    CHECK(parse_link_heuristic("jaccard") == LinkHeuristic::jaccard);
    CHECK(parse_link_heuristic("adamic-adar") == LinkHeuristic::adamic_adar);
    CHECK(parse_link_heuristic("aa") == LinkHeuristic::adamic_adar);
    for (const auto h : {LinkHeuristic::common_neighbours, LinkHeuristic::jaccard, LinkHeuristic::adamic_adar})
        CHECK(parse_link_heuristic(to_string(h)) == h);
    CHECK_THROWS_AS(parse_link_heuristic("katz"), ConfigError);
    CHECK_THROWS_WITH(parse_link_heuristic("katz"), Catch::Contains("'katz'") && Catch::Contains("common-neighbours") &&
                                                        Catch::Contains("jaccard") && Catch::Contains("adamic-adar"));

    const Graph g = build_graph(4, {{0, 1}, {1, 2}}, {.undirected = true});
    CHECK_THROWS_AS(heuristic_scores(g, {{0, 1}, {2, 4}}, LinkHeuristic::jaccard), GraphError);
    CHECK_THROWS_WITH(heuristic_scores(g, {{0, 1}, {2, 4}}, LinkHeuristic::jaccard),
                      Catch::Contains("pair 1 (2, 4)") && Catch::Contains("[0, 4)"));
    CHECK_THROWS_WITH(heuristic_scores(g, {{3, 3}}, LinkHeuristic::adamic_adar), Catch::Contains("pair 0 (3, 3)"));
}
