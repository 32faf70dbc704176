// Graph readout: pools the node vectors of each graph of a batch into one vector per graph.
//
//   mean       out_b = (1/n_b) Σ_{i ∈ b} h_i                    (PyG global_mean_pool)
//   sum        out_b = Σ_{i ∈ b} h_i                            (PyG global_add_pool)
//   max        out_bc = max_{i ∈ b} h_ic                        (PyG global_max_pool)
//              backward routes dout_bc to the first node reaching the maximum
//   attention  gate_i = h_i · w + b                             (gate_nn = Linear(C → 1))
//              α_i = softmax_{i ∈ b} gate_i                     (graph max subtracted first)
//              out_b = Σ_{i ∈ b} α_i h_i                        (PyG AttentionalAggregation)
//
// Several kinds joined by '+' ("mean+max") pool side by side: out_b is their outputs
// concatenated in the order named, B×(K·C) for K kinds (PyG's MultiAggregation with its default
// concatenation). Each kind appears at most once.
//
// Graph b owns the rows graph_offsets[b] .. graph_offsets[b+1) of h (GraphBatch layout).
// Shapes: h N×C, graph_offsets B+1, out B×(K·C). An empty graph (no nodes) pools to 0 for every
// kind. Cost: O(N·C) time per kind; extra memory: B×C argmax indices (max), N gates (attention).
// Forward and backward run in parallel over graphs: each writes its own output row and its
// own rows of dh, so results do not depend on the number of threads.
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/nn/linear.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gatkit {

enum class Readout { mean, sum, max, attention };

Readout parse_readout(const std::string& name);
std::string to_string(Readout r);
// "mean", "mean+max", …: one or more kinds joined by '+', each at most once, in the order given.
// ConfigError naming the unknown, empty or repeated part.
std::vector<Readout> parse_readouts(const std::string& names);
std::string to_string(const std::vector<Readout>& kinds);

template <class T>
struct GraphPoolCache {
    std::vector<NodeId> graph_offsets;           // B+1, as given to forward
    Eigen::Index num_nodes = 0;                  // N
    Eigen::Matrix<NodeId, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> argmax;  // B×C (max; -1 for an empty graph)
    VectorT<T> alpha;                            // N attention weights (attention)
    LinearCache<T> gate;                         // gate_nn's input h (attention)
};

template <class T>
class GraphPoolT {
public:
    // rng initialises gate_nn (attention only; the other kinds draw nothing).
    GraphPoolT(Readout kind, Eigen::Index channels, Rng& rng, const std::string& name = "pool");
    // Several kinds side by side (ConfigError when none is given or one repeats).
    GraphPoolT(std::vector<Readout> kinds, Eigen::Index channels, Rng& rng, const std::string& name = "pool");

    // graph_offsets B+1 node offsets (0 .. N, non-decreasing), h N×C ⇒ B×out_width().
    MatrixT<T> forward(const std::vector<NodeId>& graph_offsets, const MatrixT<T>& h, GraphPoolCache<T>& cache) const;
    // dout B×out_width() ⇒ dh N×C; accumulates gate_nn's gradients (attention).
    MatrixT<T> backward(const MatrixT<T>& dout, const GraphPoolCache<T>& cache);

    void parameters(ParameterList<T>& out);
    const std::vector<Readout>& kinds() const { return kinds_; }
    Eigen::Index channels() const { return channels_; }
    // Columns of the pooled output: channels × the number of kinds.
    Eigen::Index out_width() const { return channels_ * static_cast<Eigen::Index>(kinds_.size()); }
    const std::string& name() const { return name_; }
    // gate_nn (attention only; ConfigError for the other kinds).
    LinearT<T>& gate_nn();

private:
    // One kind's output (B×C), and its backward (dout B×C) added into dh.
    MatrixT<T> pool_one(Readout kind, const MatrixT<T>& h, GraphPoolCache<T>& cache) const;
    void backward_one(Readout kind, const MatrixT<T>& dout, const GraphPoolCache<T>& cache, MatrixT<T>& dh);

    std::vector<Readout> kinds_;
    Eigen::Index channels_;
    std::string name_;
    std::optional<LinearT<T>> gate_nn_;  // attention: C×1 weight + bias, "<name>.gate_nn.weight" / ".bias"
};

using GraphPool = GraphPoolT<float>;

}  // namespace gatkit
