#include "gatkit/graph/build.hpp"

#include "gatkit/core/error.hpp"

#include <algorithm>
#include <string>

namespace gatkit {

namespace {

bool by_dst_then_src(const std::pair<NodeId, NodeId>& a, const std::pair<NodeId, NodeId>& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
}

}  // namespace

Graph build_from_sorted(NodeId num_nodes, std::vector<std::pair<NodeId, NodeId>> sorted_edges) {
    // Boost.Graph does the CSR construction (counting sort by row, both directions). Its edges
    // point destination → source, so its forward CSR is our incoming CSR and its backward CSR
    // (with forward edge indices) is our transpose. Its counting sort is stable, so rows keep
    // the (dst, src) order of the input.
    std::vector<std::pair<std::size_t, std::size_t>> reversed(sorted_edges.size());
    for (std::size_t k = 0; k < sorted_edges.size(); ++k)
        reversed[k] = {static_cast<std::size_t>(sorted_edges[k].second), static_cast<std::size_t>(sorted_edges[k].first)};
    auto bgl = std::make_shared<BglGraph>(boost::edges_are_unsorted_multi_pass, reversed.begin(), reversed.end(),
                                          static_cast<std::size_t>(num_nodes));
    reversed.clear();
    reversed.shrink_to_fit();

    Graph g;
    const auto n = static_cast<std::size_t>(num_nodes);
    const auto m = sorted_edges.size();
    g.in_offsets_.assign(n + 1, 0);
    g.in_src_.resize(m);
    g.out_offsets_.assign(n + 1, 0);
    g.out_dst_.resize(m);
    g.out_edge_.resize(m);
    const auto edge_index = get(boost::edge_index, *bgl);
    EdgeId pos = 0;
    for (std::size_t i = 0; i < n; ++i) {
        g.in_offsets_[i] = pos;
        for (auto [it, end] = out_edges(i, *bgl); it != end; ++it) {
            const auto id = static_cast<EdgeId>(get(edge_index, *it));
            if (id != pos) throw GraphError("build_graph: Boost.Graph CSR edge order differs from input order");
            g.in_src_[pos++] = static_cast<NodeId>(target(*it, *bgl));
        }
    }
    g.in_offsets_[n] = pos;
    pos = 0;
    for (std::size_t j = 0; j < n; ++j) {
        g.out_offsets_[j] = pos;
        for (auto [it, end] = in_edges(j, *bgl); it != end; ++it) {
            g.out_dst_[pos] = static_cast<NodeId>(source(*it, *bgl));
            g.out_edge_[pos++] = static_cast<EdgeId>(get(edge_index, *it));
        }
    }
    g.out_offsets_[n] = pos;
    g.bgl_ = std::move(bgl);
    return g;
}

Graph build_graph(NodeId num_nodes, std::vector<std::pair<NodeId, NodeId>> edges, const BuildOptions& options) {
    if (num_nodes < 0) throw GraphError("build_graph: negative node count " + std::to_string(num_nodes));
    for (std::size_t k = 0; k < edges.size(); ++k) {
        const auto [u, v] = edges[k];
        if (u < 0 || u >= num_nodes || v < 0 || v >= num_nodes)
            throw GraphError("build_graph: edge " + std::to_string(k) + " (" + std::to_string(u) + ", " + std::to_string(v) +
                             ") names a node outside [0, " + std::to_string(num_nodes) + ")");
    }
    if (options.undirected) {
        const std::size_t m = edges.size();
        edges.reserve(2 * m);
        for (std::size_t k = 0; k < m; ++k)
            if (edges[k].first != edges[k].second) edges.emplace_back(edges[k].second, edges[k].first);
    }
    if (options.self_loops != SelfLoops::keep)
        std::erase_if(edges, [](const auto& e) { return e.first == e.second; });
    if (options.self_loops == SelfLoops::add)
        for (NodeId i = 0; i < num_nodes; ++i) edges.emplace_back(i, i);
    std::stable_sort(edges.begin(), edges.end(), by_dst_then_src);
    if (options.drop_duplicates) edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    return build_from_sorted(num_nodes, std::move(edges));
}

Graph make_undirected(const Graph& g) {
    return build_graph(g.num_nodes(), g.edge_list(), {.undirected = true, .drop_duplicates = true});
}

Graph remove_self_loops(const Graph& g) {
    return build_graph(g.num_nodes(), g.edge_list(), {.drop_duplicates = false, .self_loops = SelfLoops::remove});
}

Graph add_self_loops(const Graph& g) {
    return build_graph(g.num_nodes(), g.edge_list(), {.drop_duplicates = false, .self_loops = SelfLoops::add});
}

Graph drop_duplicate_edges(const Graph& g) {
    return build_graph(g.num_nodes(), g.edge_list(), {.drop_duplicates = true});
}

}  // namespace gatkit
