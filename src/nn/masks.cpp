#include "gatkit/nn/masks.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"

#include <boost/graph/breadth_first_search.hpp>

#include <algorithm>
#include <charconv>

namespace gatkit {

MaskSpec parse_mask(const std::string& text) {
    if (text == "edges") return {MaskKind::edges, 0};
    if (text == "full") return {MaskKind::full, 0};
    if (text.rfind("khop:", 0) == 0) {
        int k = 0;
        const char* b = text.data() + 5;
        const char* e = text.data() + text.size();
        const auto [end, ec] = std::from_chars(b, e, k);
        if (ec == std::errc() && end == e && b != e && k >= 1) return {MaskKind::khop, k};
    }
    throw ConfigError("mask '" + text + "' is not one of edges, khop:K (K >= 1), full");
}

std::string to_string(const MaskSpec& mask) {
    switch (mask.kind) {
        case MaskKind::edges: return "edges";
        case MaskKind::khop: return "khop:" + std::to_string(mask.k);
        case MaskKind::full: return "full";
    }
    return "?";
}

namespace {

// Stops a breadth-first search once it examines a node at depth k: BFS examines nodes in order
// of depth, so every node within k hops has been discovered by then.
struct DepthReached {};

class BoundedVisitor : public boost::default_bfs_visitor {
public:
    BoundedVisitor(std::vector<NodeId>& dist, std::vector<NodeId>& found, NodeId k) : dist_(&dist), found_(&found), k_(k) {}
    template <class Edge, class G>
    void tree_edge(Edge e, const G& g) const {
        const auto u = static_cast<NodeId>(boost::source(e, g)), v = static_cast<NodeId>(boost::target(e, g));
        (*dist_)[v] = (*dist_)[u] + 1;
        found_->push_back(v);
    }
    template <class Vertex, class G>
    void examine_vertex(Vertex u, const G&) const {
        if ((*dist_)[static_cast<NodeId>(u)] >= k_) throw DepthReached{};
    }

private:
    std::vector<NodeId>* dist_;
    std::vector<NodeId>* found_;
    NodeId k_;
};

// Sorted sources of node i's k-hop row (nodes reaching i in <= k steps), i excluded.
std::vector<NodeId> khop_row(const Graph& g, NodeId i, NodeId k, std::vector<NodeId>& dist,
                             std::vector<boost::default_color_type>& color) {
    std::vector<NodeId> found;
    dist[i] = 0;
    found.push_back(i);
    BoundedVisitor visitor(dist, found, k);
    boost::queue<BglGraph::vertex_descriptor> queue;
    try {
        boost::breadth_first_visit(g.bgl(), static_cast<BglGraph::vertex_descriptor>(i), queue, visitor, color.data());
    } catch (const DepthReached&) {
    }
    // Reset what this search touched, so the next one starts from white/unreached.
    for (NodeId v : found) {
        color[static_cast<std::size_t>(v)] = boost::white_color;
        dist[static_cast<std::size_t>(v)] = -1;
    }
    // Nodes still queued were coloured grey; they are in `found` too (discovered = tree edge).
    found.erase(std::remove(found.begin(), found.end(), i), found.end());
    std::sort(found.begin(), found.end());
    return found;
}

// origin of each (src → dst) pair: the input edge with that pair, or -1. Rows of `g` are sorted
// by source, so each mask row is merged with the input row.
std::vector<EdgeId> origins(const Graph& input, const Graph& mask) {
    std::vector<EdgeId> origin(static_cast<std::size_t>(mask.num_edges()), -1);
    const auto& mo = mask.in_offsets();
    const auto& ms = mask.in_src();
    const auto& io = input.in_offsets();
    const auto& is = input.in_src();
#pragma omp parallel for schedule(dynamic, 256)
    for (NodeId i = 0; i < mask.num_nodes(); ++i) {
        EdgeId a = io[i];
        for (EdgeId e = mo[i]; e < mo[i + 1]; ++e) {
            while (a < io[i + 1] && is[a] < ms[e]) ++a;
            if (a < io[i + 1] && is[a] == ms[e]) origin[static_cast<std::size_t>(e)] = a;
        }
    }
    return origin;
}

}  // namespace

AttentionMask build_mask(const Graph& graph, const MaskSpec& mask, const std::vector<NodeId>& graph_offsets, NodeId max_full_nodes,
                         const std::vector<std::string>& graph_names) {
    const NodeId n = graph.num_nodes();
    AttentionMask out;
    if (mask.kind == MaskKind::edges) {
        out.graph = remove_self_loops(graph);
        out.origin = origins(graph, out.graph);
        return out;
    }
    std::vector<NodePair> edges;  // (src, dst), sorted by (dst, src)
    if (mask.kind == MaskKind::khop) {
        if (mask.k < 1) throw ConfigError("khop mask needs K >= 1, got " + std::to_string(mask.k));
        std::vector<std::vector<NodeId>> rows(static_cast<std::size_t>(n));
#pragma omp parallel
        {
            std::vector<NodeId> dist(static_cast<std::size_t>(n), -1);
            std::vector<boost::default_color_type> color(static_cast<std::size_t>(n), boost::white_color);
#pragma omp for schedule(dynamic, 64)
            for (NodeId i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = khop_row(graph, i, mask.k, dist, color);
        }
        std::size_t total = 0;
        for (const auto& r : rows) total += r.size();
        edges.reserve(total);
        for (NodeId i = 0; i < n; ++i)
            for (NodeId j : rows[static_cast<std::size_t>(i)]) edges.emplace_back(j, i);
    } else {
        std::vector<NodeId> offsets = graph_offsets.empty() ? std::vector<NodeId>{0, n} : graph_offsets;
        if (offsets.front() != 0 || offsets.back() != n)
            throw ShapeError("full mask: graph offsets cover nodes " + std::to_string(offsets.front()) + ".." +
                             std::to_string(offsets.back()) + ", the graph has " + std::to_string(n));
        std::size_t total = 0;
        for (std::size_t b = 0; b + 1 < offsets.size(); ++b) {
            const NodeId size = offsets[b + 1] - offsets[b];
            if (size > max_full_nodes)
                throw GraphError("--mask full: graph " + (b < graph_names.size() ? "'" + graph_names[b] + "'" : std::to_string(b + 1)) +
                                 " has " + std::to_string(size) + " nodes, more than --max-full-nodes " + std::to_string(max_full_nodes) +
                                 " (full attention costs n² scores per head; raise the cap or use --mask khop:K)");
            total += static_cast<std::size_t>(size) * static_cast<std::size_t>(std::max<NodeId>(size - 1, 0));
        }
        edges.reserve(total);
        for (std::size_t b = 0; b + 1 < offsets.size(); ++b)
            for (NodeId i = offsets[b]; i < offsets[b + 1]; ++i)
                for (NodeId j = offsets[b]; j < offsets[b + 1]; ++j)
                    if (j != i) edges.emplace_back(j, i);
    }
    out.graph = build_from_sorted(n, std::move(edges));
    out.origin = origins(graph, out.graph);
    return out;
}

Matrix gather_edge_attr(const AttentionMask& mask, const Matrix& edge_attr) {
    Matrix out = Matrix::Zero(mask.graph.num_edges(), edge_attr.cols());
    for (EdgeId e = 0; e < mask.graph.num_edges(); ++e) {
        const EdgeId o = mask.origin[static_cast<std::size_t>(e)];
        if (o < 0) continue;
        if (o >= edge_attr.rows())
            throw ShapeError("edge_attr has " + std::to_string(edge_attr.rows()) + " rows, the mask refers to edge " + std::to_string(o));
        out.row(e) = edge_attr.row(o);
    }
    return out;
}

}  // namespace gatkit
