// Random-graph generators (Boost.Graph's Erdős–Rényi, PLOD power-law and small-world iterators,
// and the planted partition as an edge list): sizes and degrees in the expected range, unique
// undirected edges without self-loops, determinism for a seed, and bad arguments.
#include "gatkit/core/error.hpp"
#include "gatkit/graph/generators.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace gatkit;
using Catch::Contains;

namespace {

// Every edge has u < v (so no self-loops), ids are in range, and no pair repeats.
void check_simple(const EdgePairs& edges, NodeId nodes) {
    for (const auto& [u, v] : edges) {
        REQUIRE(u >= 0);
        REQUIRE(u < v);
        REQUIRE(v < nodes);
    }
    EdgePairs sorted = edges;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

std::vector<int> degrees(const EdgePairs& edges, NodeId nodes) {
    std::vector<int> d(static_cast<std::size_t>(nodes), 0);
    for (const auto& [u, v] : edges) ++d[u], ++d[v];
    return d;
}

double average_degree(const EdgePairs& edges, NodeId nodes) { return 2.0 * static_cast<double>(edges.size()) / nodes; }

}  // namespace

TEST_CASE("generate_erdos_renyi: G(n, p) with the requested average degree", "[graph][generators]") {
    const NodeId n = 2000;
    const EdgePairs e = generate_erdos_renyi(n, 8.0, 1);
    check_simple(e, n);
    // E ~ Binomial(n(n-1)/2, p): mean 8000, sd ≈ 89
    CHECK(e.size() > 7500);
    CHECK(e.size() < 8500);
    CHECK(std::is_sorted(e.begin(), e.end()));
    // the edges spread over the whole graph, not a corner of it
    const auto d = degrees(e, n);
    CHECK(*std::max_element(d.begin(), d.end()) < 30);
    CHECK(std::count(d.begin(), d.end(), 0) < 10);  // expected n·e^-8 ≈ 0.7

    CHECK(generate_erdos_renyi(n, 8.0, 1) == e);
    CHECK(generate_erdos_renyi(n, 8.0, 2) != e);
    CHECK(generate_erdos_renyi(2, 0.5, 3).size() <= 1);
}

TEST_CASE("generate_power_law: heavy-tailed degrees", "[graph][generators]") {
    const NodeId n = 3000;
    const EdgePairs e = generate_power_law(n, 0.5, 100.0, 7);
    check_simple(e, n);
    auto d = degrees(e, n);
    const double avg = average_degree(e, n);
    // out-degrees floor(100/√x), x uniform in [0, n): mean ≈ 2·100/√3000 ≈ 3.65, both ends count
    CHECK(avg > 6.0);
    CHECK(avg < 8.0);
    // hubs near beta, far above the mean and the median; almost no isolated nodes
    std::sort(d.begin(), d.end());
    CHECK(d.back() > 80);
    CHECK(d[n / 2] < avg);
        CHECK(std::count(d.begin(), d.end(), 0) < 5);

    CHECK(generate_power_law(n, 0.5, 100.0, 7) == e);
    CHECK(generate_power_law(n, 0.5, 100.0, 8) != e);
    // larger alpha: a faster decay, fewer edges
    CHECK(generate_power_law(n, 1.0, 100.0, 7).size() < e.size() / 2);
}

TEST_CASE("generate_small_world: a rewired ring lattice", "[graph][generators]") {
    const NodeId n = 1000;
    SECTION("no rewiring is the ring lattice itself") {
        const EdgePairs e = generate_small_world(n, 4, 0.0, 3);
        check_simple(e, n);
        CHECK(e.size() == static_cast<std::size_t>(n) * 2);
        const auto d = degrees(e, n);
        CHECK(std::all_of(d.begin(), d.end(), [](int k) { return k == 4; }));
        CHECK(std::binary_search(e.begin(), e.end(), std::pair<NodeId, NodeId>{0, 2}));
        CHECK(std::binary_search(e.begin(), e.end(), std::pair<NodeId, NodeId>{0, n - 1}));
    }
    SECTION("rewiring keeps about n·k/2 edges but moves some far away") {
        const EdgePairs e = generate_small_world(n, 6, 0.2, 3);
        check_simple(e, n);
        CHECK(e.size() <= static_cast<std::size_t>(n) * 3);
        CHECK(e.size() > static_cast<std::size_t>(n) * 3 * 95 / 100);
        const auto far = std::count_if(e.begin(), e.end(), [n](const auto& p) {
            const NodeId gap = p.second - p.first;
            return std::min(gap, n - gap) > 3;
        });
        // each of the 3000 lattice edges is rewired with probability 0.2 (sd ≈ 22)
        CHECK(far > 450);
        CHECK(far < 750);
        CHECK(generate_small_world(n, 6, 0.2, 3) == e);
        CHECK(generate_small_world(n, 6, 0.2, 4) != e);
    }
}

TEST_CASE("generate_planted_partition_edges: the planted graph as unique pairs", "[graph][generators]") {
    const PlantedPartitionOptions o{.nodes = 500, .classes = 4, .avg_degree = 6.0, .seed = 5};
    const EdgePairs e = generate_planted_partition_edges(o);
    check_simple(e, o.nodes);
    const NodeDataset ds = generate_planted_partition(o);
    CHECK(static_cast<EdgeId>(e.size()) * 2 == ds.graph.num_edges());
    for (const auto& [u, v] : e) REQUIRE(ds.graph.has_edge(u, v));
    CHECK(generate_planted_partition_edges(o) == e);
}

TEST_CASE("generators: bad arguments are ConfigErrors naming the value", "[graph][generators]") {
    CHECK_THROWS_AS(generate_erdos_renyi(1, 2.0, 0), ConfigError);
    CHECK_THROWS_WITH(generate_erdos_renyi(1, 2.0, 0), Contains("nodes >= 2") && Contains("got 1"));
    CHECK_THROWS_WITH(generate_erdos_renyi(100, 0.0, 0), Contains("avg_degree = 0"));
    CHECK_THROWS_WITH(generate_erdos_renyi(100, 99.0, 0), Contains("nodes - 1 = 99"));
    CHECK_THROWS_AS(generate_power_law(0, 2.0, 10.0, 0), ConfigError);
    CHECK_THROWS_WITH(generate_power_law(100, -1.0, 10.0, 0), Contains("alpha = -1"));
    CHECK_THROWS_WITH(generate_power_law(100, 1.0, 0.0, 0), Contains("beta = 0"));
    CHECK_THROWS_WITH(generate_power_law(100, 1.0, 101.0, 0), Contains("beta <= nodes = 100") && Contains("beta = 101"));
    CHECK_THROWS_WITH(generate_small_world(100, 3, 0.1, 0), Contains("k = 3"));
    CHECK_THROWS_WITH(generate_small_world(10, 10, 0.1, 0), Contains("k = 10"));
    CHECK_THROWS_WITH(generate_small_world(100, 4, 1.5, 0), Contains("rewire = 1.5"));
    CHECK_THROWS_WITH(generate_small_world(100, 4, -0.1, 0), Contains("rewire = -0.1"));
}
