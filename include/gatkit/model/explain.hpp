// Reading a trained model's attention: which nodes, pairs and neighbours one layer attends to
// (what `gatkit explain` draws and lists).
//
// α (E×H) of layer l lives on that layer's attention graph (Model::attention_graph(l)): edge
// e = (j → i) holds how much destination i attends to source j, and for each head every
// destination's weights sum to 1 (its self-loop included when the layer adds one). Then
//
//   edge weight  a_e     = α_e,h for one head h, or (1/H) Σ_h α_e,h (the mean over heads)
//   node score   s_j     = Σ_{i : (j → i) ∈ E} a_(j→i)    the attention node j receives as a
//                          source, its own self-loop included; Σ_j s_j = N when every node
//                          attends to something
//   pair score   p_(u,v) = mean of a_(u→v) and a_(v→u) over the directions the graph has
//
// With a khop or full mask the attention graph also holds non-neighbour pairs: they count in
// the node scores; pair scores read only the pairs asked for (e.g. a molecule's bonds).
//
// Cost: O(E·H) for the edge weights, O(E) for the node scores, O(P log d) for P pairs.
#pragma once

#include "gatkit/core/types.hpp"
#include "gatkit/graph/graph.hpp"

#include <optional>
#include <vector>

namespace gatkit {

class Model;

struct AttentionChoice {
    std::optional<int> layer{};  // 0-based; empty: the last layer
    std::optional<int> head{};   // 0-based; empty: the mean over the layer's heads
};

// The edge weights of one layer of a model's last forward.
struct EdgeAttention {
    std::size_t layer = 0;         // the layer read
    int heads = 0;                 // H of that layer
    const Graph* graph = nullptr;  // its attention graph (the model's mask, or derived from the input
                                   // graph: valid while that graph lives and until the next forward)
    std::vector<double> weight;    // a_e per edge id of *graph
};

// a_e per row of alpha (E×H): column `head`, or the mean of the columns. ConfigError naming the
// head and the valid range when it is outside [0, H).
std::vector<double> head_weights(const Matrix& alpha, std::optional<int> head);

// The chosen layer of the model's last forward. ConfigError naming the layer (or head) and the
// valid range; Error when the model has not run a forward yet.
EdgeAttention edge_attention(const Model& model, const AttentionChoice& choice = {});

// s_j for every node of `graph` (N values). ShapeError when weight has not E entries.
std::vector<double> attention_received(const Graph& graph, const std::vector<double>& weight);

// p_(u,v) for every pair (u, v) (order within a pair does not matter). GraphError naming the
// pair when neither direction is an edge of `graph`.
std::vector<double> pair_attention(const Graph& graph, const std::vector<double>& weight, const std::vector<NodePair>& pairs);

struct AttendedNeighbor {
    NodeId node = 0;         // the source j that `node` attends to
    double alpha = 0;        // a_(j → node)
    bool self_loop = false;  // j == node
};

// Every source that `node` attends to, by weight descending (ties: lower id first); the weights
// sum to 1 for one head. GraphError when node is outside [0, N).
std::vector<AttendedNeighbor> attended_neighbors(const Graph& graph, const std::vector<double>& weight, NodeId node);

}  // namespace gatkit
