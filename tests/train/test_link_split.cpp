// Link splits and negative sampling: counts, determinism, no leakage of held-out edges into the
// training graph, negatives that are never real edges, directed mode, errors.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/train/link_split.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace gatkit;
using gatkit::test::random_graph;

namespace {

// The unique undirected edges of a random graph, each once as (min, max), in a mixed orientation
// (odd positions flipped) so split_links has to normalise them.
std::vector<NodePair> undirected_edges(NodeId n, double p, std::uint64_t seed) {
    Rng rng(seed);
    const Graph g = make_undirected(random_graph(n, p, rng));
    std::vector<NodePair> edges;
    for (const auto& [u, v] : g.edge_list())
        if (u < v) edges.emplace_back(edges.size() % 2 ? NodePair{v, u} : NodePair{u, v});
    return edges;
}

std::vector<NodePair> directed_edges(NodeId n, double p, std::uint64_t seed) {
    Rng rng(seed);
    return random_graph(n, p, rng).edge_list();
}

NodePair ordered(NodePair e) { return e.first < e.second ? e : NodePair{e.second, e.first}; }

// Every real edge of the input, in both directions when undirected.
std::set<NodePair> real_edges(const std::vector<NodePair>& edges, bool directed) {
    std::set<NodePair> out;
    for (const auto& [u, v] : edges) {
        out.emplace(u, v);
        if (!directed) out.emplace(v, u);
    }
    return out;
}

void check_negatives(const std::vector<NodePair>& negatives, NodeId n, const std::set<NodePair>& real, bool directed) {
    for (const auto& [u, v] : negatives) {
        REQUIRE(u >= 0);
        REQUIRE(u < n);
        REQUIRE(v >= 0);
        REQUIRE(v < n);
        CHECK(u != v);
        CHECK(real.count({u, v}) == 0);
        if (!directed) {
            CHECK(u < v);  // stored as (min, max)
            CHECK(real.count({v, u}) == 0);
        }
    }
}

}  // namespace

TEST_CASE("split_links: counts follow floor(fraction * M), the rest trains", "[link]") {
    const auto edges = undirected_edges(200, 0.05, 1);
    const std::size_t M = edges.size();
    REQUIRE(M > 500);
    const LinkSplit s = split_links(200, edges, {});
    CHECK(s.val_pos.size() == static_cast<std::size_t>(std::floor(0.05 * static_cast<double>(M))));
    CHECK(s.test_pos.size() == static_cast<std::size_t>(std::floor(0.10 * static_cast<double>(M))));
    CHECK(s.train_pos.size() == M - s.val_pos.size() - s.test_pos.size());
    CHECK(s.val_neg.size() == s.val_pos.size());
    CHECK(s.test_neg.size() == s.test_pos.size());

    const LinkSplit t = split_links(200, edges, {.train = 0.6, .val = 0.2, .test = 0.2, .seed = 3});
    CHECK(t.val_pos.size() == static_cast<std::size_t>(std::floor(0.2 * static_cast<double>(M))));
    CHECK(t.test_pos.size() == t.val_pos.size());
    // no held-out part at all is allowed: everything trains, no negatives
    const LinkSplit all = split_links(200, edges, {.train = 1.0, .val = 0.0, .test = 0.0});
    CHECK(all.train_pos.size() == M);
    CHECK(all.val_neg.empty());
    CHECK(all.test_neg.empty());
}

TEST_CASE("split_links: train, val and test hold every edge exactly once", "[link]") {
    for (const bool directed : {false, true}) {
        const auto edges = directed ? directed_edges(120, 0.05, 2) : undirected_edges(120, 0.08, 2);
        const LinkSplit s = split_links(120, edges, {.train = 0.7, .val = 0.1, .test = 0.2, .directed = directed, .seed = 9});
        std::map<NodePair, int> seen;
        for (const auto* part : {&s.train_pos, &s.val_pos, &s.test_pos})
            for (const NodePair& e : *part) {
                if (!directed) CHECK(e.first < e.second);
                ++seen[e];
            }
        std::set<NodePair> expected;
        for (const NodePair& e : edges) expected.insert(directed ? e : ordered(e));
        CHECK(seen.size() == expected.size());
        for (const auto& [e, times] : seen) {
            CHECK(times == 1);
            CHECK(expected.count(e) == 1);
        }
    }
}

TEST_CASE("split_links: deterministic for a seed, different for another", "[link]") {
    const auto edges = undirected_edges(150, 0.05, 4);
    const LinkSplit a = split_links(150, edges, {.seed = 11});
    const LinkSplit b = split_links(150, edges, {.seed = 11});
    const LinkSplit c = split_links(150, edges, {.seed = 12});
    CHECK(a.train_pos == b.train_pos);
    CHECK(a.val_pos == b.val_pos);
    CHECK(a.test_pos == b.test_pos);
    CHECK(a.val_neg == b.val_neg);
    CHECK(a.test_neg == b.test_neg);
    CHECK(a.test_pos != c.test_pos);
    CHECK(a.val_pos != c.val_pos);
    CHECK(a.test_neg != c.test_neg);
}

TEST_CASE("split_links: no held-out edge leaks into the training graph", "[link]") {
    for (const bool directed : {false, true}) {
        const NodeId n = 150;
        const auto edges = directed ? directed_edges(n, 0.04, 5) : undirected_edges(n, 0.06, 5);
        const LinkSplit s = split_links(n, edges, {.train = 0.7, .val = 0.15, .test = 0.15, .directed = directed, .seed = 1});
        const Graph g = training_graph(n, s, directed);
        CHECK(g.num_nodes() == n);
        CHECK(g.num_self_loops() == 0);
        CHECK(g.num_edges() == static_cast<EdgeId>((directed ? 1 : 2) * s.train_pos.size()));
        for (const auto* held_out : {&s.val_pos, &s.test_pos})
            for (const auto& [u, v] : *held_out) {
                INFO("held-out edge (" << u << ", " << v << ")");
                CHECK_FALSE(g.has_edge(u, v));
                // directed, (v, u) is another edge, which may train
                if (!directed) CHECK_FALSE(g.has_edge(v, u));
            }
        const std::set<NodePair> train(s.train_pos.begin(), s.train_pos.end());
        for (const auto& [u, v] : s.train_pos) {
            CHECK(g.has_edge(u, v));
            CHECK(g.has_edge(v, u) == (!directed || train.count({v, u}) > 0));
        }
    }
}

TEST_CASE("split_links: val/test negatives are non-edges, distinct, and val and test share none", "[link]") {
    for (const bool directed : {false, true}) {
        const NodeId n = 60;
        // dense enough that a careless sampler would hit real edges often
        const auto edges = directed ? directed_edges(n, 0.3, 6) : undirected_edges(n, 0.3, 6);
        const LinkSplit s = split_links(n, edges, {.train = 0.6, .val = 0.2, .test = 0.2, .directed = directed, .seed = 2});
        const auto real = real_edges(edges, directed);
        check_negatives(s.val_neg, n, real, directed);
        check_negatives(s.test_neg, n, real, directed);
        std::set<NodePair> val(s.val_neg.begin(), s.val_neg.end()), test(s.test_neg.begin(), s.test_neg.end());
        CHECK(val.size() == s.val_neg.size());
        CHECK(test.size() == s.test_neg.size());
        for (const NodePair& e : val) CHECK(test.count(e) == 0);
    }
}

TEST_CASE("split_links: negatives of a nearly complete graph (listed, not rejection-sampled)", "[link]") {
    // K8 minus 4 edges: 24 edges, 4 non-edges; val = test = 2 takes every non-edge.
    std::vector<NodePair> edges;
    const std::set<NodePair> missing = {{0, 1}, {2, 5}, {3, 7}, {4, 6}};
    for (NodeId u = 0; u < 8; ++u)
        for (NodeId v = u + 1; v < 8; ++v)
            if (!missing.count({u, v})) edges.emplace_back(u, v);
    // val = floor(0.1 * 24) = 2, test = floor(0.05 * 24) = 1: three of the four non-edges
    const LinkSplit s = split_links(8, edges, {.train = 0.85, .val = 0.1, .test = 0.05, .seed = 5});
    REQUIRE(s.val_neg.size() == 2);
    REQUIRE(s.test_neg.size() == 1);
    std::set<NodePair> negatives(s.val_neg.begin(), s.val_neg.end());
    negatives.insert(s.test_neg.begin(), s.test_neg.end());
    CHECK(negatives.size() == 3);
    for (const NodePair& e : negatives) CHECK(missing.count(e) == 1);
}

TEST_CASE("split_links: directed mode keeps orientation", "[link]") {
    // A DAG (u < v only): the reverse of every edge is a legal directed negative.
    std::vector<NodePair> edges;
    Rng rng(8);
    for (NodeId u = 0; u < 40; ++u)
        for (NodeId v = u + 1; v < 40; ++v)
            if (rng.uniform() < 0.5) edges.emplace_back(v, u);  // all point from high to low
    const LinkSplit s = split_links(40, edges, {.train = 0.5, .val = 0.25, .test = 0.25, .directed = true, .seed = 4});
    for (const auto* part : {&s.train_pos, &s.val_pos, &s.test_pos})
        for (const auto& [u, v] : *part) CHECK(u > v);
    const Graph g = training_graph(40, s, true);
    for (const auto& [u, v] : s.train_pos) {
        CHECK(g.has_edge(u, v));
        CHECK_FALSE(g.has_edge(v, u));
    }
    // negatives come from both orientations; some are reverses of real edges
    const auto real = real_edges(edges, true);
    check_negatives(s.test_neg, 40, real, true);
    std::size_t reversed = 0;
    for (const auto& [u, v] : s.test_neg) reversed += real.count({v, u});
    CHECK(reversed > 0);
}

TEST_CASE("split_links: errors name the numbers", "[link]") {
    const std::vector<NodePair> none;
    CHECK_THROWS_AS(split_links(5, none, {}), GraphError);
    CHECK_THROWS_WITH(split_links(5, none, {}), Catch::Contains("no edges") && Catch::Contains("5 nodes"));

    // two edges, half val and half test: nothing left for training
    const std::vector<NodePair> two = {{0, 1}, {1, 2}};
    CHECK_THROWS_AS(split_links(3, two, {.train = 0.0, .val = 0.5, .test = 0.5}), GraphError);
    CHECK_THROWS_WITH(split_links(3, two, {.train = 0.0, .val = 0.5, .test = 0.5}),
                      Catch::Contains("2 edges") && Catch::Contains("leaving no training edge"));

    // K5: every pair is an edge, so no negative exists
    std::vector<NodePair> k5;
    for (NodeId u = 0; u < 5; ++u)
        for (NodeId v = u + 1; v < 5; ++v) k5.emplace_back(u, v);
    CHECK_THROWS_AS(split_links(5, k5, {.train = 0.8, .val = 0.1, .test = 0.1}), GraphError);
    CHECK_THROWS_WITH(split_links(5, k5, {.train = 0.8, .val = 0.1, .test = 0.1}),
                      Catch::Contains("1 validation + 1 test negatives") && Catch::Contains("only 0 non-edges") &&
                          Catch::Contains("10 node pairs"));
    // K8 minus 4 edges has 4 non-edges; 2 + 3 negatives do not fit
    std::vector<NodePair> k8_minus;
    const std::set<NodePair> missing = {{0, 1}, {2, 5}, {3, 7}, {4, 6}};
    for (NodeId u = 0; u < 8; ++u)
        for (NodeId v = u + 1; v < 8; ++v)
            if (!missing.count({u, v})) k8_minus.emplace_back(u, v);
    CHECK_THROWS_WITH(split_links(8, k8_minus, {.train = 0.75, .val = 0.1, .test = 0.15}),
                      Catch::Contains("2 validation + 3 test negatives") && Catch::Contains("only 4 non-edges"));

    // bad fractions, ids, self-loops, repeats
    CHECK_THROWS_AS(split_links(3, two, {.train = 0.5, .val = 0.1, .test = 0.1}), ConfigError);
    CHECK_THROWS_WITH(split_links(3, two, {.train = 0.5, .val = 0.1, .test = 0.1}), Catch::Contains("sum to 0.7"));
    CHECK_THROWS_WITH(split_links(3, two, {.train = 1.1, .val = -0.1, .test = 0.0}), Catch::Contains("val fraction -0.1"));
    CHECK_THROWS_WITH(split_links(3, {{0, 1}, {1, 3}}, {}), Catch::Contains("edge 1 (1, 3)") && Catch::Contains("[0, 3)"));
    CHECK_THROWS_WITH(split_links(3, {{0, 1}, {2, 2}}, {}), Catch::Contains("edge 1 (2, 2) is a self-loop"));
    CHECK_THROWS_WITH(split_links(3, {{0, 1}, {1, 0}}, {}), Catch::Contains("edge (0, 1) is listed twice"));
    CHECK_NOTHROW(split_links(3, {{0, 1}, {1, 0}, {1, 2}}, {.train = 1.0, .val = 0.0, .test = 0.0, .directed = true}));
}

TEST_CASE("NegativeSampler: sampled negatives are never real edges nor self-loops", "[link]") {
    for (const bool directed : {false, true}) {
        const NodeId n = 50;
        const auto edges = directed ? directed_edges(n, 0.2, 10) : undirected_edges(n, 0.2, 10);
        const LinkSplit s = split_links(n, edges, {.directed = directed, .seed = 3});
        // the training loop's sampler: every real edge is forbidden, not only the training ones
        std::vector<NodePair> all = s.train_pos;
        all.insert(all.end(), s.val_pos.begin(), s.val_pos.end());
        all.insert(all.end(), s.test_pos.begin(), s.test_pos.end());
        const NegativeSampler sampler(n, all, directed);
        Rng rng(21);
        const auto negatives = sampler.sample(5000, rng);
        CHECK(negatives.size() == 5000);
        const auto real = real_edges(edges, directed);
        check_negatives(negatives, n, real, directed);
        for (const auto& [u, v] : s.test_pos) {
            CHECK(sampler.forbidden(u, v));
            CHECK(sampler.forbidden(v, u) == (real.count({v, u}) > 0));
        }
        CHECK(sampler.forbidden(3, 3));
    }
}

TEST_CASE("NegativeSampler: same Rng state, same samples", "[link]") {
    const auto edges = undirected_edges(80, 0.1, 12);
    const NegativeSampler sampler(80, edges, false);
    Rng a(7), b(7), c(8);
    const auto x = sampler.sample(300, a);
    CHECK(x == sampler.sample(300, b));
    CHECK(x != sampler.sample(300, c));
    CHECK(sampler.sample(300, a) != x);  // the Rng moved on
    CHECK(sampler.sample(0, a).empty());
}

TEST_CASE("NegativeSampler: uniform over allowed pairs, by rejection and from the list", "[link]") {
    // 6 nodes, 15 unordered pairs. Sparse: 3 forbidden (rejection). Dense: 12 forbidden (listed).
    const std::vector<NodePair> few = {{0, 1}, {2, 3}, {4, 5}};
    const std::vector<NodePair> many = [] {  // every pair but (0,5), (1,4), (2,3), given as (max, min)
        std::vector<NodePair> out;
        for (NodeId u = 0; u < 6; ++u)
            for (NodeId v = u + 1; v < 6; ++v)
                if (!(u == 0 && v == 5) && !(u == 1 && v == 4) && !(u == 2 && v == 3)) out.emplace_back(v, u);
        return out;
    }();
    for (const auto* forbidden : {&few, &many}) {
        const NegativeSampler sampler(6, *forbidden, false);
        CHECK(sampler.total_pairs() == 15);
        CHECK(sampler.allowed_pairs() == 15 - forbidden->size());
        Rng rng(99);
        const std::size_t draws = 60000;
        std::map<NodePair, double> count;
        for (const NodePair& p : sampler.sample(draws, rng)) count[p] += 1;
        CHECK(count.size() == sampler.allowed_pairs());
        const double expected = static_cast<double>(draws) / static_cast<double>(sampler.allowed_pairs());
        for (const auto& [p, c] : count) {
            INFO("pair (" << p.first << ", " << p.second << ") drawn " << c << " times, expected " << expected);
            CHECK(!sampler.forbidden(p.first, p.second));
            CHECK(std::abs(c - expected) < 0.05 * expected);  // > 6 standard deviations
        }
    }
}

TEST_CASE("NegativeSampler: distinct samples and the errors instead of endless loops", "[link]") {
    std::vector<NodePair> k5;
    for (NodeId u = 0; u < 5; ++u)
        for (NodeId v = u + 1; v < 5; ++v) k5.emplace_back(v, u);
    Rng rng(1);
    const NegativeSampler undirected(5, k5, false);
    CHECK(undirected.allowed_pairs() == 0);
    CHECK(undirected.sample(0, rng).empty());
    CHECK_THROWS_AS(undirected.sample(1, rng), GraphError);
    CHECK_THROWS_WITH(undirected.sample(3, rng), Catch::Contains("3 negatives") && Catch::Contains("10 node pairs"));
    CHECK_THROWS_WITH(undirected.sample_distinct(1, rng), Catch::Contains("only 0 of the 10"));

    // directed, the same pairs (v > u) forbidden: exactly the 10 pairs u < v are allowed
    const NegativeSampler directed(5, k5, true);
    CHECK(directed.total_pairs() == 20);
    CHECK(directed.allowed_pairs() == 10);
    auto all = directed.sample_distinct(10, rng);
    std::sort(all.begin(), all.end());
    std::vector<NodePair> upper;
    for (NodeId u = 0; u < 5; ++u)
        for (NodeId v = u + 1; v < 5; ++v) upper.emplace_back(u, v);
    CHECK(all == upper);
    CHECK_THROWS_WITH(directed.sample_distinct(11, rng), Catch::Contains("11 distinct negatives") && Catch::Contains("only 10"));

    // sparse graph, many distinct draws: rejection path and the listed path both give distinct pairs
    const auto edges = undirected_edges(30, 0.1, 13);
    const NegativeSampler sparse(30, edges, false);
    for (const std::size_t count : {std::size_t{50}, static_cast<std::size_t>(sparse.allowed_pairs())}) {
        const auto picked = sparse.sample_distinct(count, rng);
        CHECK(std::set<NodePair>(picked.begin(), picked.end()).size() == count);
        check_negatives(picked, 30, real_edges(edges, false), false);
    }

    CHECK_THROWS_WITH(NegativeSampler(4, {{0, 4}}, false), Catch::Contains("(0, 4)") && Catch::Contains("[0, 4)"));
    CHECK_THROWS_AS(undirected.forbidden(0, 5), GraphError);
    const NegativeSampler tiny(1, {}, false);
    CHECK(tiny.total_pairs() == 0);
    CHECK_THROWS_AS(tiny.sample(1, rng), GraphError);
}

TEST_CASE("NegativeSampler: the bitmap (N <= 16,384) and the sorted keys (larger N) answer alike", "[link]") {
    // The same forbidden pairs among the first 300 nodes, in a 16,384-node space (one bit per
    // pair) and a 16,385-node one (binary search over sorted keys).
    const auto edges = undirected_edges(300, 0.05, 17);
    for (const bool directed : {false, true}) {
        const NegativeSampler bits(16384, edges, directed), keys(16385, edges, directed);
        for (NodeId u = 0; u < 300; ++u)
            for (NodeId v = 0; v < 300; ++v) REQUIRE(bits.forbidden(u, v) == keys.forbidden(u, v));
        CHECK(bits.forbidden(16383, 16383));
        CHECK_FALSE(keys.forbidden(16384, 0));
        const std::set<NodePair> real(edges.begin(), edges.end());
        Rng rng(3);
        for (const auto& [u, v] : keys.sample(20000, rng)) {
            REQUIRE(u != v);
            REQUIRE(real.count({u, v}) == 0);
            if (!directed) REQUIRE(real.count({v, u}) == 0);
        }
    }
}

TEST_CASE("NegativeSampler: parallel draws equal one-by-one draws and leave the Rng where they do", "[link]") {
    const int saved_threads = thread_count();
    // sparse: rejection tries; dense (fewer than half the pairs allowed): drawn from the list
    const auto sparse = undirected_edges(200, 0.05, 13);
    std::vector<NodePair> dense;
    for (NodeId u = 0; u < 40; ++u)
        for (NodeId v = u + 1; v < 40; ++v)
            if ((u * 7 + v * 3) % 5 != 0) dense.emplace_back(u, v);
    const NegativeSampler a(200, sparse, false), b(40, dense, false), c(200, directed_edges(200, 0.05, 14), true);
    // a fair share of the pairs forbidden: rejection tries still, but a span of tries falls short of the
    // count and further spans follow
    const NegativeSampler d(200, undirected_edges(200, 0.15, 15), false);
    REQUIRE(2 * b.allowed_pairs() < b.total_pairs());
    REQUIRE(2 * d.allowed_pairs() >= d.total_pairs());
    REQUIRE(10 * d.allowed_pairs() < 9 * d.total_pairs());
    for (const NegativeSampler* sampler : {&a, &b, &c, &d}) {
        for (const std::size_t count : {NegativeSampler::kParallelDraws, std::size_t{20011}}) {
            Rng one_by_one(31);
            std::vector<NodePair> expect;
            for (std::size_t k = 0; k < count; ++k) expect.push_back(sampler->sample(1, one_by_one).front());
            for (const int threads : {1, 2}) {
                set_thread_count(threads);
                Rng rng(31);
                const auto got = sampler->sample(count, rng);
                CHECK(got == expect);
                CHECK(rng.state() == one_by_one.state());
            }
        }
    }
    set_thread_count(saved_threads);
}
