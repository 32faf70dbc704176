#include "gatkit/graph/batch.hpp"

#include "gatkit/graph/build.hpp"

namespace gatkit {

std::vector<NodeId> GraphBatch::node_graph() const {
    std::vector<NodeId> owner(static_cast<std::size_t>(graph_offsets.back()));
    for (NodeId b = 0; b < num_graphs(); ++b)
        for (NodeId i = graph_offsets[b]; i < graph_offsets[b + 1]; ++i) owner[i] = b;
    return owner;
}

GraphBatch make_batch(const std::vector<const Graph*>& graphs) {
    GraphBatch batch;
    batch.graph_offsets.assign(1, 0);
    EdgeId total_edges = 0;
    for (const Graph* g : graphs) {
        batch.graph_offsets.push_back(batch.graph_offsets.back() + g->num_nodes());
        total_edges += g->num_edges();
    }
    // Each graph's edges are already sorted by (dst, src); shifting by the node offset keeps
    // the order, so the concatenation is sorted too.
    std::vector<std::pair<NodeId, NodeId>> edges;
    edges.reserve(static_cast<std::size_t>(total_edges));
    for (std::size_t b = 0; b < graphs.size(); ++b) {
        const NodeId shift = batch.graph_offsets[b];
        for (const auto& [u, v] : graphs[b]->edge_list()) edges.emplace_back(u + shift, v + shift);
    }
    batch.graph = build_from_sorted(batch.graph_offsets.back(), std::move(edges));
    return batch;
}

}  // namespace gatkit
