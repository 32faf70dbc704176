#include "gatkit/model/explain.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/model/model.hpp"

#include <algorithm>
#include <string>

namespace gatkit {

namespace {

void check_weights(const Graph& graph, const std::vector<double>& weight, const char* what) {
    if (static_cast<EdgeId>(weight.size()) != graph.num_edges())
        throw ShapeError(std::string(what) + ": " + std::to_string(weight.size()) + " edge weights for a graph of " +
                         std::to_string(graph.num_edges()) + " edges");
}

// The id of edge (src → dst), or -1. Incoming rows are sorted by source.
EdgeId edge_id(const Graph& graph, NodeId src, NodeId dst) {
    if (dst < 0 || dst >= graph.num_nodes()) return -1;
    const auto& in_src = graph.in_src();
    const auto first = in_src.begin() + graph.in_offsets()[dst];
    const auto last = in_src.begin() + graph.in_offsets()[dst + 1];
    const auto it = std::lower_bound(first, last, src);
    return it != last && *it == src ? static_cast<EdgeId>(it - in_src.begin()) : -1;
}

}  // namespace

std::vector<double> head_weights(const Matrix& alpha, std::optional<int> head) {
    const Eigen::Index H = alpha.cols();
    if (head && (*head < 0 || *head >= H))
        throw ConfigError("attention head " + std::to_string(*head) + " does not exist: the layer has " +
                          (H == 1 ? std::string("1 head (0)") : std::to_string(H) + " heads (0.." + std::to_string(H - 1) + ")"));
    std::vector<double> w(static_cast<std::size_t>(alpha.rows()));
    for (Eigen::Index e = 0; e < alpha.rows(); ++e) {
        if (head) {
            w[static_cast<std::size_t>(e)] = alpha(e, *head);
            continue;
        }
        // Summed in double, in head order, so the mean does not depend on anything else.
        double sum = 0;
        for (Eigen::Index h = 0; h < H; ++h) sum += alpha(e, h);
        w[static_cast<std::size_t>(e)] = sum / static_cast<double>(H);
    }
    return w;
}

EdgeAttention edge_attention(const Model& model, const AttentionChoice& choice) {
    const auto L = static_cast<int>(model.num_layers());
    const int layer = choice.layer.value_or(L - 1);
    if (layer < 0 || layer >= L)
        throw ConfigError("attention layer " + std::to_string(layer) + " does not exist: the model has " + std::to_string(L) +
                          " attention layers (0.." + std::to_string(L - 1) + ")");
    EdgeAttention out;
    out.layer = static_cast<std::size_t>(layer);
    out.graph = &model.attention_graph(out.layer);
    const Matrix& alpha = model.attention(out.layer);
    if (alpha.rows() != out.graph->num_edges() || alpha.cols() == 0)
        throw ShapeError("attention layer " + std::to_string(layer) + ": α is " + std::to_string(alpha.rows()) + "×" +
                         std::to_string(alpha.cols()) + " for an attention graph of " + std::to_string(out.graph->num_edges()) + " edges");
    out.heads = static_cast<int>(alpha.cols());
    out.weight = head_weights(alpha, choice.head);
    return out;
}

std::vector<double> attention_received(const Graph& graph, const std::vector<double>& weight) {
    check_weights(graph, weight, "attention_received");
    // Row j of the transpose lists the edges leaving source j: a fixed summation order per node.
    std::vector<double> score(static_cast<std::size_t>(graph.num_nodes()), 0.0);
    for (NodeId j = 0; j < graph.num_nodes(); ++j)
        for (EdgeId k = graph.out_offsets()[j]; k < graph.out_offsets()[j + 1]; ++k)
            score[static_cast<std::size_t>(j)] += weight[static_cast<std::size_t>(graph.out_edge()[k])];
    return score;
}

std::vector<double> pair_attention(const Graph& graph, const std::vector<double>& weight, const std::vector<NodePair>& pairs) {
    check_weights(graph, weight, "pair_attention");
    std::vector<double> score(pairs.size());
    for (std::size_t p = 0; p < pairs.size(); ++p) {
        const auto [u, v] = pairs[p];
        double sum = 0;
        int found = 0;
        for (const EdgeId e : {edge_id(graph, u, v), edge_id(graph, v, u)}) {
            if (e < 0) continue;
            sum += weight[static_cast<std::size_t>(e)];
            ++found;
        }
        if (found == 0)
            throw GraphError("pair_attention: neither " + std::to_string(u) + " → " + std::to_string(v) + " nor " + std::to_string(v) +
                             " → " + std::to_string(u) + " is an edge of the attention graph (" + std::to_string(graph.num_nodes()) +
                             " nodes)");
        // A pair that is also a self-loop (u == v) is found twice as the same edge: the mean is that edge.
        score[p] = sum / found;
    }
    return score;
}

std::vector<AttendedNeighbor> attended_neighbors(const Graph& graph, const std::vector<double>& weight, NodeId node) {
    check_weights(graph, weight, "attended_neighbors");
    if (node < 0 || node >= graph.num_nodes())
        throw GraphError("attended_neighbors: node " + std::to_string(node) + " is outside the graph's " + std::to_string(graph.num_nodes()) +
                         " nodes");
    std::vector<AttendedNeighbor> out;
    for (EdgeId e = graph.in_offsets()[node]; e < graph.in_offsets()[node + 1]; ++e) {
        const NodeId j = graph.in_src()[static_cast<std::size_t>(e)];
        out.push_back({.node = j, .alpha = weight[static_cast<std::size_t>(e)], .self_loop = j == node});
    }
    // Sources come sorted by id, so a stable sort keeps the lower id first among ties.
    std::stable_sort(out.begin(), out.end(), [](const AttendedNeighbor& a, const AttendedNeighbor& b) { return a.alpha > b.alpha; });
    return out;
}

}  // namespace gatkit
