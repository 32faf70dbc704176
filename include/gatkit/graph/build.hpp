// Building graphs from edge lists, through Boost.Graph, and the standard transforms.
#pragma once

#include "gatkit/graph/graph.hpp"

#include <utility>
#include <vector>

namespace gatkit {

enum class SelfLoops { keep, remove, add };

struct BuildOptions {
    bool undirected = false;         // add (v,u) for every (u,v)
    bool drop_duplicates = true;     // keep one copy of repeated (u,v)
    SelfLoops self_loops = SelfLoops::keep;  // add: remove existing ones, then one per node
};

// Edges are (src, dst) with ids in [0, num_nodes); an id out of range is a GraphError naming it.
Graph build_graph(NodeId num_nodes, std::vector<std::pair<NodeId, NodeId>> edges, const BuildOptions& options = {});

// Edges must be sorted by (dst, src); the graph keeps their order (parallel edges kept).
Graph build_from_sorted(NodeId num_nodes, std::vector<std::pair<NodeId, NodeId>> sorted_edges);

// Transforms: each returns a new graph.
Graph make_undirected(const Graph& g);
Graph remove_self_loops(const Graph& g);
Graph add_self_loops(const Graph& g);  // removes existing self-loops, then adds one per node
Graph drop_duplicate_edges(const Graph& g);

}  // namespace gatkit
