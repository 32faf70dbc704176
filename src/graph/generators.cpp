#include "gatkit/graph/generators.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/graph/build.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/erdos_renyi_generator.hpp>
#include <boost/graph/plod_generator.hpp>
#include <boost/graph/small_world_generator.hpp>
#include <boost/random/mersenne_twister.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gatkit {

namespace {

// A number as a user would type it ("0.1", not std::to_string's "0.100000").
std::string num(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
}

}  // namespace

NodeDataset generate_planted_partition(const PlantedPartitionOptions& o) {
    if (o.nodes < 2 || o.classes < 2 || o.classes > o.nodes)
        throw ConfigError("planted partition: need 2 <= classes <= nodes, got nodes = " + std::to_string(o.nodes) +
                          ", classes = " + std::to_string(o.classes));
    if (o.features < o.classes || o.words_per_node < 1)
        throw ConfigError("planted partition: need features >= classes and words_per_node >= 1, got features = " +
                          std::to_string(o.features) + ", words_per_node = " + std::to_string(o.words_per_node));
    if (!(o.homophily >= 0 && o.homophily <= 1) || !(o.feature_signal >= 0 && o.feature_signal <= 1) ||
        !(o.avg_degree > 0 && o.avg_degree < static_cast<double>(o.nodes)))
        throw ConfigError("planted partition: homophily and feature_signal must be in [0, 1] and avg_degree > 0 and below nodes = " +
                          std::to_string(o.nodes) + ", got homophily = " + num(o.homophily) + ", feature_signal = " + num(o.feature_signal) +
                          ", avg_degree = " + num(o.avg_degree));
    Rng rng(o.seed);
    NodeDataset ds;
    ds.name = "planted_partition";
    ds.labels.resize(static_cast<std::size_t>(o.nodes));
    std::vector<std::vector<NodeId>> members(static_cast<std::size_t>(o.classes));
    for (NodeId i = 0; i < o.nodes; ++i) {
        // the first `classes` nodes seed every class, so none is empty
        ds.labels[i] = i < o.classes ? i : static_cast<int>(rng.below(static_cast<std::uint64_t>(o.classes)));
        members[ds.labels[i]].push_back(i);
        ds.node_ids.push_back("n" + std::to_string(i));
    }
    for (int c = 0; c < o.classes; ++c) ds.class_names.push_back("class" + std::to_string(c));

    const auto m = static_cast<std::size_t>(o.nodes * o.avg_degree / 2.0);
    std::vector<std::pair<NodeId, NodeId>> edges;
    edges.reserve(m);
    while (edges.size() < m) {
        const auto u = static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(o.nodes)));
        int c = ds.labels[u];
        if (rng.uniform() >= o.homophily) c = static_cast<int>((c + 1 + rng.below(static_cast<std::uint64_t>(o.classes - 1))) % o.classes);
        const auto& pool = members[c];
        const NodeId v = pool[rng.below(pool.size())];
        if (u != v) edges.emplace_back(u, v);
    }
    ds.graph = build_graph(o.nodes, std::move(edges), {.undirected = true, .drop_duplicates = true, .self_loops = SelfLoops::remove});

    const int topic = o.features / o.classes;
    ds.features = Matrix::Zero(o.nodes, o.features);
    for (NodeId i = 0; i < o.nodes; ++i)
        for (int w = 0; w < o.words_per_node; ++w) {
            const auto word = rng.uniform() < o.feature_signal
                                  ? ds.labels[i] * topic + static_cast<int>(rng.below(static_cast<std::uint64_t>(topic)))
                                  : static_cast<int>(rng.below(static_cast<std::uint64_t>(o.features)));
            ds.features(i, word) = 1.0f;
        }
    return ds;
}

namespace {

// The Boost generators read only the directed/undirected category from these types.
using UndirectedTraits = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
using DirectedTraits = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using Engine = boost::random::mt19937_64;

void check_nodes(const char* generator, NodeId nodes) {
    if (nodes < 2) throw ConfigError(std::string(generator) + ": need nodes >= 2, got " + std::to_string(nodes));
}

// (u, v) pairs from a Boost generator → unique (min, max) pairs without self-loops, sorted.
template <class Iterator>
EdgePairs collect_undirected(Iterator first, Iterator last) {
    EdgePairs edges;
    for (; first != last; ++first) {
        auto u = static_cast<NodeId>(first->first), v = static_cast<NodeId>(first->second);
        if (u == v) continue;
        edges.emplace_back(std::min(u, v), std::max(u, v));
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    return edges;
}

}  // namespace

EdgePairs generate_erdos_renyi(NodeId nodes, double avg_degree, std::uint64_t seed) {
    check_nodes("erdos-renyi", nodes);
    if (!(avg_degree > 0 && avg_degree < nodes - 1))
        throw ConfigError("erdos-renyi: need 0 < avg_degree < nodes - 1 = " + std::to_string(nodes - 1) + ", got avg_degree = " +
                          num(avg_degree));
    Engine engine(seed);
    using Iterator = boost::sorted_erdos_renyi_iterator<Engine, UndirectedTraits>;
    const double p = avg_degree / (nodes - 1);
    return collect_undirected(Iterator(engine, static_cast<std::size_t>(nodes), p, false), Iterator());
}

EdgePairs generate_power_law(NodeId nodes, double alpha, double beta, std::uint64_t seed) {
    check_nodes("power-law", nodes);
    // beta is the largest out-degree; more than `nodes` would only draw repeats
    if (!(alpha > 0 && std::isfinite(alpha)) || !(beta > 0 && beta <= nodes))
        throw ConfigError("power-law: need alpha > 0 and 0 < beta <= nodes = " + std::to_string(nodes) + ", got alpha = " +
                          num(alpha) + ", beta = " + num(beta));
    Engine engine(seed);
    // The directed PLOD draws each node's out-degree and then its targets, so a node's degree
    // budget is met. The undirected one pairs budgets by picking endpoints uniformly among the
    // nodes with budget left, so the hubs are left at the end, paired with each other, and merged
    // away: for 2000 nodes, alpha 0.5, beta 150 its largest degree came out near 45, not 150.
    using Iterator = boost::plod_iterator<Engine, DirectedTraits>;
    return collect_undirected(Iterator(engine, static_cast<std::size_t>(nodes), alpha, beta, false), Iterator());
}

EdgePairs generate_small_world(NodeId nodes, int k, double rewire, std::uint64_t seed) {
    check_nodes("small-world", nodes);
    if (k < 2 || k % 2 != 0 || k > nodes - 2)
        throw ConfigError("small-world: need an even k with 2 <= k <= nodes - 2 = " + std::to_string(nodes - 2) + ", got k = " +
                          std::to_string(k));
    if (!(rewire >= 0 && rewire <= 1))
        throw ConfigError("small-world: need 0 <= rewire <= 1, got rewire = " + num(rewire));
    Engine engine(seed);
    using Iterator = boost::small_world_iterator<Engine, UndirectedTraits>;
    return collect_undirected(Iterator(engine, static_cast<std::size_t>(nodes), static_cast<std::size_t>(k), rewire, false),
                              Iterator());
}

EdgePairs generate_planted_partition_edges(const PlantedPartitionOptions& options) {
    const NodeDataset data = generate_planted_partition(options);
    EdgePairs edges;
    for (const auto& [u, v] : data.graph.edge_list())
        if (u < v) edges.emplace_back(u, v);
    std::sort(edges.begin(), edges.end());
    return edges;
}

}  // namespace gatkit
