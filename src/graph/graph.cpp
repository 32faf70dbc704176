#include "gatkit/graph/graph.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"

#include <algorithm>
#include <string>

namespace gatkit {

bool Graph::has_edge(NodeId src, NodeId dst) const {
    if (dst < 0 || dst >= num_nodes() || src < 0 || src >= num_nodes()) return false;
    const auto first = in_src_.begin() + in_offsets_[dst];
    const auto last = in_src_.begin() + in_offsets_[dst + 1];
    return std::binary_search(first, last, src);
}

EdgeId Graph::num_self_loops() const {
    EdgeId n = 0;
    for (NodeId i = 0; i < num_nodes(); ++i)
        for (EdgeId e = in_offsets_[i]; e < in_offsets_[i + 1]; ++e) n += in_src_[e] == i;
    return n;
}

std::vector<std::pair<NodeId, NodeId>> Graph::edge_list() const {
    std::vector<std::pair<NodeId, NodeId>> edges;
    edges.reserve(in_src_.size());
    for (NodeId i = 0; i < num_nodes(); ++i)
        for (EdgeId e = in_offsets_[i]; e < in_offsets_[i + 1]; ++e) edges.emplace_back(in_src_[e], i);
    return edges;
}

namespace {

// add_self_loops keeps each destination row's edges in their order (a stable sort of an
// already (dst, src)-sorted list), drops the old self-loops and inserts one (i, i) at its
// sorted place. So row i of the looped graph is row i of g without self-loops, merged with
// one loop: walk both rows together.
std::vector<EdgeId> trace_self_loop_origin(const Graph& g, const Graph& looped) {
    std::vector<EdgeId> origin(static_cast<std::size_t>(looped.num_edges()), -1);
    const auto& src = g.in_src();
    const auto& looped_src = looped.in_src();
    for (NodeId i = 0; i < g.num_nodes(); ++i) {
        EdgeId e = g.in_offsets()[i];
        const EdgeId e_end = g.in_offsets()[i + 1];
        for (EdgeId k = looped.in_offsets()[i]; k < looped.in_offsets()[i + 1]; ++k) {
            if (looped_src[k] == i) continue;  // the added loop: origin stays -1
            while (e < e_end && src[e] == i) ++e;  // an old self-loop, removed
            if (e == e_end || src[e] != looped_src[k])
                throw GraphError("with_self_loops: edge " + std::to_string(k) + " (" + std::to_string(looped_src[k]) + " -> " +
                                 std::to_string(i) + ") has no matching edge in the original row of node " + std::to_string(i));
            origin[static_cast<std::size_t>(k)] = e++;
        }
    }
    return origin;
}

}  // namespace

const BglGraph& Graph::bgl() const {
    std::call_once(bgl_->once, [this] {
        // Boost's constructor counting-sorts (stably) by the BGL source, our destination: rows
        // come out in edge-id order, so BGL edge index = our edge id (checked).
        const auto n = static_cast<std::size_t>(num_nodes());
        std::vector<std::pair<std::size_t, std::size_t>> reversed(static_cast<std::size_t>(num_edges()));
        for (std::size_t i = 0; i < n; ++i)
            for (EdgeId e = in_offsets_[i]; e < in_offsets_[i + 1]; ++e)
                reversed[static_cast<std::size_t>(e)] = {i, static_cast<std::size_t>(in_src_[static_cast<std::size_t>(e)])};
        auto g = std::make_unique<const BglGraph>(boost::edges_are_unsorted_multi_pass, reversed.begin(), reversed.end(), n);
        const auto edge_index = get(boost::edge_index, *g);
        EdgeId pos = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (auto [it, end] = out_edges(i, *g); it != end; ++it, ++pos)
                if (static_cast<EdgeId>(get(edge_index, *it)) != pos)
                    throw GraphError("Graph::bgl: Boost.Graph CSR edge order differs from the graph's edge ids");
        bgl_->graph = std::move(g);
    });
    return *bgl_->graph;
}

const Graph& Graph::with_self_loops() const {
    std::call_once(derived_->once, [this] {
        auto looped = std::make_shared<const Graph>(add_self_loops(*this));
        derived_->self_loop_origin = trace_self_loop_origin(*this, *looped);
        derived_->self_looped = std::move(looped);
    });
    return *derived_->self_looped;
}

const std::vector<EdgeId>& Graph::self_loop_origin() const {
    with_self_loops();
    return derived_->self_loop_origin;
}

}  // namespace gatkit
