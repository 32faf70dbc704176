#include "gatkit/graph/link_heuristics.hpp"

#include "gatkit/core/error.hpp"

#include <cmath>
#include <cstddef>

namespace gatkit {

LinkHeuristic parse_link_heuristic(const std::string& name) {
    if (name == "common-neighbours" || name == "cn") return LinkHeuristic::common_neighbours;
    if (name == "jaccard") return LinkHeuristic::jaccard;
    if (name == "adamic-adar" || name == "aa") return LinkHeuristic::adamic_adar;
    throw ConfigError("unknown link heuristic '" + name + "' (expected common-neighbours (cn), jaccard or adamic-adar (aa))");
}

std::string to_string(LinkHeuristic h) {
    switch (h) {
        case LinkHeuristic::jaccard: return "jaccard";
        case LinkHeuristic::adamic_adar: return "adamic-adar";
        case LinkHeuristic::common_neighbours: break;
    }
    return "common-neighbours";
}

namespace {

// Row x of the incoming CSR: x's neighbours, sorted, possibly with x itself and repeats.
struct Row {
    const NodeId* first;
    const NodeId* last;
};

Row neighbours(const Graph& g, NodeId x) {
    const NodeId* base = g.in_src().data();
    return {base + g.in_offsets()[x], base + g.in_offsets()[x + 1]};
}

// Advances past the current run of equal ids, and past x itself (self-loops are not neighbours).
void skip(const NodeId*& it, const NodeId* last, NodeId self) {
    const NodeId current = *it;
    while (it != last && *it == current) ++it;
    while (it != last && *it == self) ++it;
}

void skip_self(const NodeId*& it, const NodeId* last, NodeId self) {
    while (it != last && *it == self) ++it;
}

struct Overlap {
    double common = 0;       // |N(u) ∩ N(v)|
    double union_size = 0;   // |N(u) ∪ N(v)|
    double adamic_adar = 0;  // Σ over common w of 1 / ln deg(w)
};

// One merge of two sorted rows. `inverse_log_degree` is null unless Adamic–Adar is wanted.
Overlap overlap(const Graph& g, NodeId u, NodeId v, const std::vector<double>* inverse_log_degree) {
    auto [a, a_end] = neighbours(g, u);
    auto [b, b_end] = neighbours(g, v);
    skip_self(a, a_end, u);
    skip_self(b, b_end, v);
    Overlap o;
    while (a != a_end && b != b_end) {
        if (*a < *b) {
            skip(a, a_end, u);
        } else if (*b < *a) {
            skip(b, b_end, v);
        } else {
            o.common += 1;
            if (inverse_log_degree) o.adamic_adar += (*inverse_log_degree)[*a];
            skip(a, a_end, u);
            skip(b, b_end, v);
        }
        o.union_size += 1;
    }
    while (a != a_end) skip(a, a_end, u), o.union_size += 1;
    while (b != b_end) skip(b, b_end, v), o.union_size += 1;
    return o;
}

// 1 / ln |N(w)| for every node (0 where |N(w)| < 2: such a node is never a common neighbour of
// two distinct nodes, so the value is never read).
std::vector<double> inverse_log_degrees(const Graph& g) {
    const NodeId n = g.num_nodes();
    std::vector<double> out(static_cast<std::size_t>(n), 0.0);
#pragma omp parallel for schedule(static)
    for (NodeId w = 0; w < n; ++w) {
        auto [it, last] = neighbours(g, w);
        skip_self(it, last, w);
        std::size_t degree = 0;
        while (it != last) skip(it, last, w), ++degree;
        if (degree >= 2) out[static_cast<std::size_t>(w)] = 1.0 / std::log(static_cast<double>(degree));
    }
    return out;
}

}  // namespace

std::vector<double> heuristic_scores(const Graph& graph, const std::vector<std::pair<NodeId, NodeId>>& pairs,
                                     LinkHeuristic h) {
    const NodeId n = graph.num_nodes();
    // Checked before the parallel loop: an exception may not leave an OpenMP region.
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const auto [u, v] = pairs[k];
        const bool outside = u < 0 || u >= n || v < 0 || v >= n;
        if (!outside && u != v) continue;
        const std::string where = "heuristic_scores (" + to_string(h) + "): pair " + std::to_string(k) + " (" +
                                  std::to_string(u) + ", " + std::to_string(v) + ")";
        if (outside) throw GraphError(where + " names a node outside [0, " + std::to_string(n) + ")");
        throw GraphError(where + " joins a node to itself");
    }
    std::vector<double> inverse_log_degree;
    if (h == LinkHeuristic::adamic_adar) inverse_log_degree = inverse_log_degrees(graph);
    const std::vector<double>* aa = h == LinkHeuristic::adamic_adar ? &inverse_log_degree : nullptr;

    std::vector<double> scores(pairs.size());
    const auto P = static_cast<std::ptrdiff_t>(pairs.size());
    // Dynamic chunks: pair costs follow the degrees, which vary by orders of magnitude.
#pragma omp parallel for schedule(dynamic, 256)
    for (std::ptrdiff_t k = 0; k < P; ++k) {
        const auto [u, v] = pairs[static_cast<std::size_t>(k)];
        const Overlap o = overlap(graph, u, v, aa);
        double score = 0;
        switch (h) {
            case LinkHeuristic::common_neighbours: score = o.common; break;
            case LinkHeuristic::jaccard: score = o.union_size == 0 ? 0.0 : o.common / o.union_size; break;
            case LinkHeuristic::adamic_adar: score = o.adamic_adar; break;
        }
        scores[static_cast<std::size_t>(k)] = score;
    }
    return scores;
}

}  // namespace gatkit
