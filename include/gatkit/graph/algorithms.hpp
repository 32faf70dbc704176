// Graph algorithms, run by Boost.Graph on the graph's BGL form.
#pragma once

#include "gatkit/graph/graph.hpp"

#include <vector>

namespace gatkit {

// Connected components, treating every edge as undirected. Returns the component id of each
// node (0 .. count-1, numbered in order of their smallest node) and sets *count.
std::vector<NodeId> connected_components(const Graph& g, NodeId* count = nullptr);

inline constexpr NodeId kUnreachable = -1;

// Hop distances from `source` following edges from destination to source (for an undirected
// graph: plain hop distance). Nodes not reached get kUnreachable.
std::vector<NodeId> bfs_hops(const Graph& g, NodeId source);

}  // namespace gatkit
