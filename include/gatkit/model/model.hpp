// gatkit's attention models.
//
// Node task (the GAT paper's transductive model):
//   h⁰ = x;  hˡ = act(GatConv_l(dropout(hˡ⁻¹)))  for the hidden layers (heads concatenated)
//   logits = GatConv_L(dropout(hᴸ⁻¹))            (out_heads averaged, K outputs)
//
// Graph task (molecules, TU graphs), on a batch of graphs as one block-diagonal graph:
//   hˡ = act(Attn_l(dropout(hˡ⁻¹), edge_attr))      for l = 1..L (heads concatenated)
//   g_b = readout_{i ∈ graph b}(hᴸ_i)               (mean | sum | max | attention)
//   out = MLP([g ‖ s(u)])                           (B×T logits or values)
// where u (B×graph_dim, absent when graph_dim = 0) are molecule-level features
// (chem/mol_features.hpp) and s standardises them with ModelInfo's graph_feature_mean/std,
// clipped to ±kFeatureClip. h⁰ = x, except that the continuous columns ModelInfo::
// node_feature_columns names (TU node attributes) are standardised the same way with
// node_feature_mean/std.
//
// Attn is the layer `conv` names (gat | gatv2 | transformer; nn/attention.hpp), optionally as a
// transformer block (`block`), run on the `mask` graph of the input (edges | khop:K | full;
// nn/masks.hpp; a node task reuses the mask of its one graph). With `pe` the last pe_dim()
// input columns are a positional encoding: used as extra inputs (pe_mode concat) or projected
// and added to the features (pe_mode add, a learned K×F matrix "pe_proj.weight").
//
// forward keeps what backward needs (each layer its own cache); backward accumulates the
// parameter gradients of every layer.
#pragma once

#include "gatkit/graph/batch.hpp"
#include "gatkit/model/config.hpp"
#include "gatkit/nn/attention.hpp"
#include "gatkit/nn/linear.hpp"
#include "gatkit/nn/masks.hpp"
#include "gatkit/nn/mlp.hpp"
#include "gatkit/nn/readout.hpp"

#include <memory>
#include <vector>

namespace gatkit {

// The options of one attention layer of a model (Model and LinkModel): a plain output layer
// averages its heads (concat off) and is never a transformer block.
AttentionOptions layer_options(const ModelConfig& config, Eigen::Index in, Eigen::Index out, Eigen::Index heads, bool plain_output,
                               Eigen::Index edge_dim);

class Model {
public:
    // Builds the layers and initialises their weights from `seed`.
    Model(const ModelConfig& config, std::uint64_t seed);
    // A deep copy: the same configuration, model information and parameters (values and
    // gradients), with fresh caches, as if no forward pass had run. predict_graphs gives each
    // thread its own copy to run separate batches on.
    Model(const Model& other);
    Model(Model&&) = default;
    Model& operator=(Model&&) = default;
    Model& operator=(const Model&) = delete;

    // Node task: logits N×K. rng is needed only when training (dropout).
    Matrix forward(const Graph& graph, const Matrix& x, bool training, Rng* rng = nullptr);
    // The same on sparse features (core/sparse.hpp; x must outlive backward): the first layer
    // runs on the stored entries only when it can (GAT), else on x densified. Same numbers as
    // the dense call up to the order of float sums.
    Matrix forward(const Graph& graph, const SparseRows& x, bool training, Rng* rng = nullptr);
    // Whether a sparse input saves work: the first layer runs on stored entries (GAT) and no
    // positional-encoding projection needs the features dense.
    bool takes_sparse_input() const { return sparse_input_ && !pe_proj_ && layers_.front()->takes_sparse(); }
    // On by default: mostly-zero inputs (graph task: the batch features; node task: what the
    // trainer passes) go to the first layer as sparse rows. Off: always dense (same numbers up
    // to the order of float sums; for comparisons and measurements).
    void set_sparse_input(bool on) { sparse_input_ = on; }
    // Graph task: B×T outputs for a batch; edge_attr E×edge_dim (nullptr when edge_dim = 0);
    // graph_attr B×graph_dim raw molecule-level features (needed when graph_dim > 0).
    Matrix forward(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, bool training, Rng* rng = nullptr,
                   const Matrix* graph_attr = nullptr);
    // Inference only: forward(batch, x, edge_attr, training = false, ...) bit for bit, faster: the
    // layers that can read their input in place and apply the activation in their last pass,
    // and no activation inputs are kept. graph_embeddings(), node_embeddings() and attention()
    // are set as by forward; backward after it throws.
    Matrix predict(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, const Matrix* graph_attr = nullptr);
    // The same with the node features as sparse rows (the column index is not needed): predict
    // on x.to_dense() bit for bit, without the dense matrix where the first layer reads stored
    // entries (takes_sparse_input(), at most kSparseInputDensity non-zero, no node attributes
    // to standardise); densified otherwise.
    Matrix predict(const GraphBatch& batch, SparseRows x, const Matrix* edge_attr, const Matrix* graph_attr = nullptr);
    // Standardised molecule-level features and node attributes beyond this many standard
    // deviations are clipped.
    static constexpr float kFeatureClip = 6.0f;
    // The gradient of the loss with respect to the last forward's output; accumulates every
    // parameter gradient.
    void backward(const Matrix& dout);

    // Graph task: the pooled graph vectors of the last forward (embeddings), B × graph_embedding_width().
    const Matrix& graph_embeddings() const { return pooled_; }
    // Graph task: the readout's output width, channels × readout kinds (the MLP head takes these
    // columns, then the molecule-level ones); 0 for the other tasks.
    Eigen::Index graph_embedding_width() const;
    // The node vectors of the last forward (N×C, embeddings): graph task, the last attention
    // layer's activated output (what the readout pools); node task, the input of the output
    // layer (the last hidden layer's activated output; the features when there is one layer).
    const Matrix& node_embeddings() const { return node_vectors_; }

    ParameterList<float> parameters();
    std::size_t parameter_count();

    const ModelConfig& config() const { return config_; }
    ModelInfo& info() { return info_; }
    const ModelInfo& info() const { return info_; }
    std::size_t num_layers() const { return layers_.size(); }
    // Attention coefficients α (E×H) of layer l from the last forward, on attention_graph(l).
    const Matrix& attention(std::size_t layer) const { return layers_.at(layer)->attention(); }
    const Graph& attention_graph(std::size_t layer) const { return layers_.at(layer)->attention_graph(); }

private:
    ModelConfig config_;
    ModelInfo info_;
    std::vector<std::unique_ptr<AttentionLayer>> layers_;
    std::unique_ptr<Linear> pe_proj_;  // pe_mode add: K → F
    LinearCache<float> pe_cache_;
    // The mask of the last graph seen (node tasks reuse it every epoch).
    std::shared_ptr<const void> mask_of_;
    AttentionMask mask_;
    // The node task on dense x or sparse x_sparse (exactly one non-null).
    Matrix node_forward(const Graph& graph, const Matrix* x, const SparseRows* x_sparse, bool training, Rng* rng);
    enum class Pass { train, evaluate, infer };
    // The graph task on dense x, or (inference) on x_sparse when it is non-null: then x is not read.
    Matrix graph_forward(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, Pass pass, Rng* rng, const Matrix* graph_attr,
                         SparseRows* x_sparse = nullptr);
    // x with the columns info_.node_feature_columns names standardised and clipped.
    Matrix standardised_node_features(const Matrix& x) const;
    void check_columns(Eigen::Index cols) const;  // ShapeError unless the model's in_features
    Matrix input(const Matrix& x);          // x as the first layer sees it (PE projected and added)
    void input_backward(const Matrix& dx);  // the PE projection's gradient
    const Graph& attend(const Graph& graph, const std::vector<NodeId>& offsets);
    std::vector<Matrix> pre_activation_;  // input of each hidden activation
    std::unique_ptr<GraphPoolT<float>> pool_;
    std::unique_ptr<MlpT<float>> head_;
    GraphPoolCache<float> pool_cache_;
    MlpCache<float> head_cache_;
    Matrix pooled_;
    Matrix node_vectors_;
    bool sparse_input_ = true;
    SparseRows batch_sparse_;  // graph task: the last batch's features as sparse rows (the first layer's cache points here)
    bool last_was_graph_ = false;
    bool inferred_ = false;  // the last pass was predict: backward has nothing to work from
};

}  // namespace gatkit
