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
    if (num_nodes < 0) throw GraphError("build_from_sorted: negative node count " + std::to_string(num_nodes));
    // Edge k = sorted_edges[k] (src, dst), sorted by destination: the incoming CSR is the input
    // order itself; the transpose is a stable counting sort by source, so each source's row lists
    // its edges by increasing id. (The Boost.Graph view is built from these on first use.)
    Graph g;
    const auto n = static_cast<std::size_t>(num_nodes);
    const auto m = sorted_edges.size();
    g.in_offsets_.assign(n + 1, 0);
    g.in_src_.resize(m);
    g.out_offsets_.assign(n + 1, 0);
    g.out_dst_.resize(m);
    g.out_edge_.resize(m);
    for (std::size_t k = 0; k < m; ++k) {
        const auto [src, dst] = sorted_edges[k];
        if (src < 0 || src >= num_nodes || dst < 0 || dst >= num_nodes)
            throw GraphError("build_from_sorted: edge " + std::to_string(k) + " (" + std::to_string(src) + ", " + std::to_string(dst) +
                             ") names a node outside [0, " + std::to_string(num_nodes) + ")");
        if (k > 0 && dst < sorted_edges[k - 1].second)
            throw GraphError("build_from_sorted: edge " + std::to_string(k) + " (" + std::to_string(src) + ", " + std::to_string(dst) +
                             ") comes after an edge into node " + std::to_string(sorted_edges[k - 1].second) +
                             ": edges must be sorted by destination");
        ++g.in_offsets_[static_cast<std::size_t>(dst) + 1];
        ++g.out_offsets_[static_cast<std::size_t>(src) + 1];
        g.in_src_[k] = src;
    }
    for (std::size_t i = 0; i < n; ++i) {
        g.in_offsets_[i + 1] += g.in_offsets_[i];
        g.out_offsets_[i + 1] += g.out_offsets_[i];
    }
    std::vector<EdgeId> next(g.out_offsets_.begin(), g.out_offsets_.end() - 1);
    for (std::size_t k = 0; k < m; ++k) {
        const auto [src, dst] = sorted_edges[k];
        const EdgeId pos = next[static_cast<std::size_t>(src)]++;
        g.out_dst_[static_cast<std::size_t>(pos)] = dst;
        g.out_edge_[static_cast<std::size_t>(pos)] = static_cast<EdgeId>(k);
    }
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
    // Rows already sorted by source (build_graph's output, and a batch of such graphs): the
    // sorted result is each row with its old loops left out and (i, i) put in its place, in one
    // pass, with no sort. Any other row order takes the general path. The same edges in the same
    // order either way (the sort is stable).
    const auto& off = g.in_offsets();
    const auto& src = g.in_src();
    const NodeId n = g.num_nodes();
    for (NodeId i = 0; i < n; ++i)
        for (EdgeId e = off[i] + 1; e < off[i + 1]; ++e)
            if (src[e] < src[e - 1])
                return build_graph(n, g.edge_list(), {.drop_duplicates = false, .self_loops = SelfLoops::add});
    std::vector<std::pair<NodeId, NodeId>> edges;
    edges.reserve(static_cast<std::size_t>(g.num_edges() + n));
    for (NodeId i = 0; i < n; ++i) {
        EdgeId e = off[i];
        for (; e < off[i + 1] && src[e] < i; ++e) edges.emplace_back(src[e], i);
        edges.emplace_back(i, i);
        for (; e < off[i + 1]; ++e)
            if (src[e] != i) edges.emplace_back(src[e], i);
    }
    return build_from_sorted(n, std::move(edges));
}

Graph drop_duplicate_edges(const Graph& g) {
    return build_graph(g.num_nodes(), g.edge_list(), {.drop_duplicates = true});
}

}  // namespace gatkit
