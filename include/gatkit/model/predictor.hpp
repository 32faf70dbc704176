// Predictor: a trained model file, loaded once, answering questions about new inputs.
//
//   gatkit::Predictor p = gatkit::Predictor::load("bbbp.model", {.threads = 2});
//   gatkit::Predictions r = p.predict_smiles({"CCO", "c1ccccc1O", "not a molecule"});
//   // r.columns = {"p_p_np"}, r.values: 3×1 (row 2 is NaN), r.errors[2] = the parse error
//
// It holds a molecule (graph) model, a node model or a fingerprint baseline (`kind()`); link and
// edge models are read with load_link_model (model/model_file.hpp). A graph model may be an
// ensemble (gatkit train --ensemble-size N): predictions are then the mean of its members'
// (probabilities, class probabilities or values), embeddings put each member's vector side by
// side (N·C columns, member k from column k·C), and attention lists every member's α
// (AttentionWeight::member). Every entry point checks its
// inputs and throws a gatkit::Error subclass (core/error.hpp) that names what is wrong; nothing
// prints. Inputs that cannot be predicted one by one (an invalid SMILES) are not errors: their
// row holds NaN and `errors` says why, so outputs always line up with inputs.
//
// Threads: PredictorOptions::threads bounds the OpenMP threads of this predictor's calls and is
// restored afterwards; it does not change the thread count of the rest of the program. Results
// do not depend on it (core/parallel.hpp). A Predictor is not safe to call from two threads at
// once (it keeps the last forward's activations); use one per thread.
#pragma once

#include "gatkit/graph/graph.hpp"
#include "gatkit/io/dataset.hpp"
#include "gatkit/model/config.hpp"

#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>

#include <memory>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

namespace RDKit {
class ROMol;
}

namespace gatkit {

class Model;
class FingerprintModel;
struct GraphBatchData;

struct PredictorOptions {
    int threads = 0;         // 0: as many as OpenMP offers the calling thread; n >= 1: at most n
    int batch_size = 32;     // graphs per forward pass (predict_graphs; other sizes can change the last bits, ~1e-7)
};

// One row per input, in input order.
struct Predictions {
    // Graph models: p_<target> (binary: probability of 1), pred_<target> (regression, in the
    // training units) or p_<class> (multiclass). Node models: p_<class>.
    std::vector<std::string> columns;
    Matrix values;                    // inputs × columns; a row of NaN where errors[i] is set
    std::vector<std::string> errors;  // "" when predicted, else why not
    bool ok(std::size_t i) const { return errors.at(i).empty(); }
};

// α of one attention layer and head on one edge: `dst` attends to `src` with weight alpha (the
// weights over every src of one dst and head sum to 1). Node indices are atom indices for a
// molecule, row indices of the feature matrix for a user's graph.
struct AttentionWeight {
    int layer = 0;
    int head = 0;
    NodeId src = 0;
    NodeId dst = 0;
    bool self_loop = false;
    float alpha = 0;
    int member = 0;  // the ensemble member (0-based; always 0 for a single model)
};

class Predictor {
public:
    // Reads and checks a model file (model/model_file.hpp). Throws IoError when it cannot be
    // read, ParseError when it is damaged, foreign, of another format version or featurizer, or a
    // link/edge model.
    static Predictor load(const std::string& path, const PredictorOptions& options = {});

    Predictor(Predictor&&) noexcept;
    Predictor& operator=(Predictor&&) noexcept;
    ~Predictor();

    // "graph" (molecules or TU graphs), "node" or "fingerprint".
    const std::string& kind() const { return kind_; }
    // The model's configuration (a fingerprint model: a default config with task "graph").
    const ModelConfig& config() const;
    // Names, class names, target scaling, featurizer, training metrics.
    const ModelInfo& info() const { return info_; }
    // The output columns of every Predictions this model returns.
    const std::vector<std::string>& columns() const { return columns_; }
    const PredictorOptions& options() const { return options_; }

    // ---- molecules (graph models trained on SMILES, and fingerprint models)
    // One row per SMILES; an invalid SMILES gets a NaN row and RDKit's reason.
    Predictions predict_smiles(const std::vector<std::string>& smiles);
    // One row per molecule (a null pointer is an error row). The molecules are not modified.
    Predictions predict_molecules(const std::vector<const RDKit::ROMol*>& molecules);
    // Graphs already featurised, e.g. load_molecules(path).data or load_tu(path) (positional
    // encodings are added here when the model uses them; do not add them yourself). Fingerprint
    // models need data.smiles. With a full mask, a graph above the model's max_full_nodes is an
    // error row (here and in predict_smiles / predict_molecules), not a failure of the call.
    Predictions predict(const GraphDataset& data);
    // The pooled graph vector (the readout's output: channels × readout kinds columns, before the
    // molecule-level features the MLP head also takes) of each SMILES: NaN rows for invalid ones and, with a full mask, for molecules above
    // max_full_nodes (their reasons in *errors when given).
    Matrix graph_embeddings(const std::vector<std::string>& smiles, std::vector<std::string>* errors = nullptr);
    // Every attention coefficient of every layer and head for one molecule (atom indices as
    // RDKit numbers them). Throws ParseError for an invalid SMILES.
    std::vector<AttentionWeight> molecule_attention(const std::string& smiles);

    // ---- a user's own graph: nodes 0..N-1, x N×F with F = config().in_features minus the
    // positional-encoding columns (added here). Graph models: one graph, one row; edge_attr is
    // E×edge_dim in the order of `graph`'s edge ids when the model uses edge features. Node
    // models: one row per node. A model with molecule-level features (--mol-features) needs
    // the molecule for its predictions (predict_smiles, predict_molecules): its
    // predict_graph is a ConfigError, while node_embeddings and attention work on any graph.
    Predictions predict_graph(const Graph& graph, const Matrix& x, const Matrix* edge_attr = nullptr);
    // The same from any Boost.Graph graph with a vertex_index property (adjacency_list with
    // vecS vertices, compressed_sparse_row_graph, ...). Undirected BGL graphs give both
    // directions of every edge; directed ones one (src → dst: dst attends to src). edge_attr
    // rows follow the order of boost::edges(g) (each row used for both directions when
    // undirected).
    template <class BglGraph>
    Predictions predict_graph_bgl(const BglGraph& g, const Matrix& x, const Matrix* edge_attr = nullptr);
    // Node vectors of the last attention layer that feeds the head (N×C; node models: the input
    // of the output layer) for a user's graph.
    Matrix node_embeddings(const Graph& graph, const Matrix& x, const Matrix* edge_attr = nullptr);
    // α of every layer, head and edge for a user's graph (node indices = rows of x).
    std::vector<AttentionWeight> attention(const Graph& graph, const Matrix& x, const Matrix* edge_attr = nullptr);

    // Members: 1, or N for an ensemble (0 for a fingerprint model).
    std::size_t ensemble_size() const { return members_.size(); }
    // The underlying model (an ensemble's member `member`), for what this class does not cover
    // (ConfigError for fingerprint models and a member outside [0, ensemble_size())).
    Model& model(std::size_t member = 0);

private:
    Predictor() = default;
    std::string kind_;
    PredictorOptions options_;
    ModelInfo info_;
    std::vector<std::string> columns_;
    std::vector<std::unique_ptr<Model>> members_;  // the attention model: one, or an ensemble's members
    Model* model_ = nullptr;                        // members_.front() (null for a fingerprint model)
    std::unique_ptr<FingerprintModel> fingerprint_;
    std::string target_type_;
    // The batch of the last run_graph: the layers' attention graphs point into it.
    std::unique_ptr<GraphBatchData> batch_;
    std::vector<Model*> members() const;
    // head_used false (node vectors, attention): a model with molecule-level features runs
    // without them, its head's output unused.
    std::vector<Matrix> run_graph(const Graph& graph, const Matrix& x, const Matrix* edge_attr, const Matrix* graph_attr = nullptr,
                                  bool head_used = true);
};

// Converts a Boost.Graph graph to gatkit's Graph, keeping the order of boost::edges(g) as
// edge ids (undirected graphs: edge k gives ids 2k (u→v) and 2k+1 (v→u)). Self-loops are kept.
template <class BglGraph>
std::pair<Graph, std::vector<std::size_t>> graph_from_bgl(const BglGraph& g);

// ---- implementation of the templates
namespace detail {
Graph graph_from_ordered_edges(NodeId num_nodes, const std::vector<std::pair<NodeId, NodeId>>& edges,
                               std::vector<std::size_t>& order_of_edge_id);
// Row k of the result is row source_row[k] of m; m must have `expected_rows` rows.
Matrix repeat_rows(const Matrix& m, const std::vector<std::size_t>& source_row, std::size_t expected_rows);
}  // namespace detail

template <class BglGraph>
std::pair<Graph, std::vector<std::size_t>> graph_from_bgl(const BglGraph& g) {
    using Traits = boost::graph_traits<BglGraph>;
    constexpr bool undirected = std::is_convertible_v<typename Traits::directed_category, boost::undirected_tag>;
    // Unqualified calls: argument-dependent lookup finds the functions of the user's graph type,
    // declared after this header.
    const auto index = get(boost::vertex_index, g);
    std::vector<std::pair<NodeId, NodeId>> list;
    for (auto [it, end] = edges(g); it != end; ++it) {
        const auto u = static_cast<NodeId>(get(index, source(*it, g)));
        const auto v = static_cast<NodeId>(get(index, target(*it, g)));
        list.emplace_back(u, v);
        if constexpr (undirected) list.emplace_back(v, u);
    }
    // row_of_edge[k]: the BGL edge that gatkit edge k came from.
    std::vector<std::size_t> order;
    Graph graph = detail::graph_from_ordered_edges(static_cast<NodeId>(num_vertices(g)), list, order);
    if constexpr (undirected)
        for (auto& k : order) k /= 2;
    return {std::move(graph), std::move(order)};
}

template <class BglGraph>
Predictions Predictor::predict_graph_bgl(const BglGraph& g, const Matrix& x, const Matrix* edge_attr) {
    auto [graph, bgl_edge] = graph_from_bgl(g);
    if (!edge_attr) return predict_graph(graph, x, nullptr);
    const Matrix attr = detail::repeat_rows(*edge_attr, bgl_edge, static_cast<std::size_t>(num_edges(g)));
    return predict_graph(graph, x, &attr);
}

}  // namespace gatkit
