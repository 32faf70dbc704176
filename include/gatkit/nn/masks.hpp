// Attention masks: who may attend to whom (ARCHITECTURE §4). A mask is itself a graph whose
// incoming row i lists the nodes i attends to; attention layers run on it unchanged, adding
// i itself when their add_self_loops option is on.
//
//   edges    the graph's own edges (neighbours; the default)
//   khop:K   every j ≠ i that reaches i in at most K steps along the graph's edges (for an
//            undirected graph: hop distance ≤ K) — the graph form of truncated/windowed
//            self-attention; on a path graph it is a sliding window of width 2K+1. Found by
//            breadth-first search on the Boost.Graph graph, stopped at depth K.
//   full     every j ≠ i of the same graph (plain self-attention within each graph of a batch;
//            never across graphs). Each graph costs n² pairs, so a graph with more than
//            max_full_nodes nodes is a GraphError naming it and its size, raised before
//            anything is allocated.
//
// Edge features follow their edge: origin[e] is the input-graph edge id of mask edge e, or −1
// for a pair that is not an edge (its attributes are zeros; gather_edge_attr).
#pragma once

#include "gatkit/graph/graph.hpp"

#include <string>
#include <vector>

namespace gatkit {

enum class MaskKind { edges, khop, full };

struct MaskSpec {
    MaskKind kind = MaskKind::edges;
    int k = 0;  // khop only, >= 1
};

// "edges" | "khop:K" (K >= 1) | "full"; anything else: ConfigError.
MaskSpec parse_mask(const std::string& text);
std::string to_string(const MaskSpec& mask);

struct AttentionMask {
    Graph graph;                 // incoming rows = who each node attends to (no self-loops)
    std::vector<EdgeId> origin;  // per mask edge: input edge id, or -1
};

// graph_offsets: B+1 node offsets of the graphs in a batch (empty: the whole graph is one
// graph); graph_names (optional, B entries) name graphs in the size error.
AttentionMask build_mask(const Graph& graph, const MaskSpec& mask, const std::vector<NodeId>& graph_offsets = {},
                         NodeId max_full_nodes = 512, const std::vector<std::string>& graph_names = {});

// Rows of edge_attr (input edges × D) for the mask's edges; zeros where origin is −1.
Matrix gather_edge_attr(const AttentionMask& mask, const Matrix& edge_attr);

}  // namespace gatkit
