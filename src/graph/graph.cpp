#include "gatkit/graph/graph.hpp"

#include "gatkit/graph/build.hpp"

#include <algorithm>

namespace gatkit {

bool Graph::has_edge(NodeId src, NodeId dst) const {
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

const Graph& Graph::with_self_loops() const {
    std::call_once(derived_->once, [this] { derived_->self_looped = std::make_shared<const Graph>(add_self_loops(*this)); });
    return *derived_->self_looped;
}

}  // namespace gatkit
