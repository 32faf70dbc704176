#include "gatkit/graph/algorithms.hpp"

#include "gatkit/core/error.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/visitors.hpp>

#include <string>

namespace gatkit {

std::vector<NodeId> connected_components(const Graph& g, NodeId* count) {
    // BGL's connected_components needs an undirected graph type; build one from the same edges.
    using Undirected = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    Undirected ug(static_cast<std::size_t>(g.num_nodes()));
    for (NodeId i = 0; i < g.num_nodes(); ++i)
        for (EdgeId e = g.in_offsets()[i]; e < g.in_offsets()[i + 1]; ++e)
            if (g.in_src()[e] <= i || !g.has_edge(i, g.in_src()[e])) boost::add_edge(g.in_src()[e], i, ug);
    std::vector<int> raw(static_cast<std::size_t>(g.num_nodes()));
    const int n = g.num_nodes() == 0 ? 0 : boost::connected_components(ug, raw.data());
    // Renumber so component ids follow the smallest node of each component.
    std::vector<NodeId> remap(static_cast<std::size_t>(n), -1), out(raw.size());
    NodeId next = 0;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (remap[raw[i]] < 0) remap[raw[i]] = next++;
        out[i] = remap[raw[i]];
    }
    if (count) *count = next;
    return out;
}

std::vector<NodeId> bfs_hops(const Graph& g, NodeId source) {
    if (source < 0 || source >= g.num_nodes())
        throw GraphError("bfs_hops: source " + std::to_string(source) + " outside [0, " + std::to_string(g.num_nodes()) + ")");
    std::vector<NodeId> dist(static_cast<std::size_t>(g.num_nodes()), kUnreachable);
    dist[source] = 0;
    auto recorder = boost::record_distances(dist.data(), boost::on_tree_edge());
    boost::breadth_first_search(g.bgl(), static_cast<std::size_t>(source), boost::visitor(boost::make_bfs_visitor(recorder)));
    return dist;
}

}  // namespace gatkit
