// A batch of small graphs as one block-diagonal graph: graph b owns nodes
// graph_offsets[b] .. graph_offsets[b+1). Node matrices of the batch stack the graphs' rows.
#pragma once

#include "gatkit/graph/graph.hpp"

#include <vector>

namespace gatkit {

struct GraphBatch {
    Graph graph;                        // block-diagonal, N = graph_offsets.back()
    std::vector<NodeId> graph_offsets;  // B+1 node offsets
    NodeId num_graphs() const { return static_cast<NodeId>(graph_offsets.size()) - 1; }
    // Which graph each node belongs to (N entries).
    std::vector<NodeId> node_graph() const;
};

GraphBatch make_batch(const std::vector<const Graph*>& graphs);

}  // namespace gatkit
