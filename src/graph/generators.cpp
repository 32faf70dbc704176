#include "gatkit/graph/generators.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/graph/build.hpp"

namespace gatkit {

NodeDataset generate_planted_partition(const PlantedPartitionOptions& o) {
    if (o.nodes < 2 || o.classes < 2 || o.classes > o.nodes)
        throw ConfigError("planted partition: need 2 <= classes <= nodes, got nodes = " + std::to_string(o.nodes) +
                          ", classes = " + std::to_string(o.classes));
    if (o.features < o.classes || o.words_per_node < 1)
        throw ConfigError("planted partition: need features >= classes and words_per_node >= 1, got features = " +
                          std::to_string(o.features) + ", words_per_node = " + std::to_string(o.words_per_node));
    if (!(o.homophily >= 0 && o.homophily <= 1) || !(o.feature_signal >= 0 && o.feature_signal <= 1) || !(o.avg_degree > 0))
        throw ConfigError("planted partition: homophily and feature_signal must be in [0, 1] and avg_degree > 0");
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

}  // namespace gatkit
