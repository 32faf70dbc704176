// The kernel graph: a CSR of incoming edges plus its transpose.
//
//   in_offsets  (N+1)  row i = destination i; its incoming edges are ids in_offsets[i] .. in_offsets[i+1)
//   in_src      (E)    source node of each edge; the edge id is the position in this array
//   out_offsets (N+1)  row j = source j (the transpose)
//   out_dst     (E)    destination of each outgoing entry
//   out_edge    (E)    the edge id of that entry, so backward can scatter to sources row by row
//                      (parallel over sources, disjoint writes, no atomics)
//
// Incoming rows are sorted by source, so every per-edge array (scores, α: E×H) is laid out
// destination-major and forward passes stream through it.
//
// build.hpp fills both CSRs with stable counting sorts. The Boost.Graph view of the same graph
// (a compressed_sparse_row_graph, for the BGL algorithms in algorithms.hpp and the k-hop masks)
// is built from them on the first call of bgl() and shared by the graph's copies: graphs that
// never run a BGL algorithm (every batch, every self-looped copy) do not pay its time and memory
// (about 25 bytes per edge). In the BGL graph edges point destination → source: its out-edges
// are our incoming rows, with the same edge ids.
#pragma once

#include "gatkit/core/types.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <memory>
#include <mutex>
#include <vector>

namespace gatkit {

using BglGraph = boost::compressed_sparse_row_graph<boost::bidirectionalS>;

class Graph {
public:
    Graph() = default;

    NodeId num_nodes() const { return static_cast<NodeId>(in_offsets_.empty() ? 0 : in_offsets_.size() - 1); }
    EdgeId num_edges() const { return static_cast<EdgeId>(in_src_.size()); }

    const std::vector<EdgeId>& in_offsets() const { return in_offsets_; }
    const std::vector<NodeId>& in_src() const { return in_src_; }
    const std::vector<EdgeId>& out_offsets() const { return out_offsets_; }
    const std::vector<NodeId>& out_dst() const { return out_dst_; }
    const std::vector<EdgeId>& out_edge() const { return out_edge_; }

    EdgeId in_degree(NodeId i) const { return in_offsets_[i + 1] - in_offsets_[i]; }
    EdgeId out_degree(NodeId j) const { return out_offsets_[j + 1] - out_offsets_[j]; }
    bool has_edge(NodeId src, NodeId dst) const;  // false for ids outside [0, N)
    EdgeId num_self_loops() const;

    // The (src, dst) pairs in edge-id order.
    std::vector<std::pair<NodeId, NodeId>> edge_list() const;

    // This graph with every existing self-loop removed and exactly one added per node
    // (PyG's remove_self_loops + add_self_loops). Built once on first use and kept.
    const Graph& with_self_loops() const;
    // For each edge id of with_self_loops(), the id of the edge of this graph it came from, or
    // -1 for the added self-loop (per-edge data such as edge attributes follow their edge).
    // Computed once, together with with_self_loops().
    const std::vector<EdgeId>& self_loop_origin() const;

    // The Boost.Graph view of this graph (edges point destination → source, same edge ids),
    // built on first use; thread-safe.
    const BglGraph& bgl() const;
    // Shared by this graph and its copies, and by no other graph while someone holds it: lets a
    // model cache what it derives from a graph (an attention mask) and recognise the graph later.
    std::shared_ptr<const void> identity() const { return bgl_; }

private:
    friend Graph build_from_sorted(NodeId, std::vector<std::pair<NodeId, NodeId>>);

    std::vector<EdgeId> in_offsets_;
    std::vector<NodeId> in_src_;
    std::vector<EdgeId> out_offsets_;
    std::vector<NodeId> out_dst_;
    std::vector<EdgeId> out_edge_;
    struct Bgl {
        std::once_flag once;
        std::unique_ptr<const BglGraph> graph;
    };
    std::shared_ptr<Bgl> bgl_ = std::make_shared<Bgl>();

    struct Derived {
        std::once_flag once;
        std::shared_ptr<const Graph> self_looped;
        std::vector<EdgeId> self_loop_origin;  // self_looped->num_edges() entries
    };
    std::shared_ptr<Derived> derived_ = std::make_shared<Derived>();
};

}  // namespace gatkit
