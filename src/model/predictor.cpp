#include "gatkit/model/predictor.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/mol_features.hpp"
#include "gatkit/chem/fingerprint.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/io/text_reader.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/nn/masks.hpp"
#include "gatkit/nn/positional.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"
#include "gatkit/train/loss.hpp"

#include <GraphMol/ROMol.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <new>
#include <numeric>

namespace gatkit {

namespace detail {

Graph graph_from_ordered_edges(NodeId num_nodes, const std::vector<std::pair<NodeId, NodeId>>& edges,
                               std::vector<std::size_t>& order_of_edge_id) {
    for (const auto& [u, v] : edges)
        if (u < 0 || v < 0 || u >= num_nodes || v >= num_nodes)
            throw GraphError("edge (" + std::to_string(u) + ", " + std::to_string(v) + ") names a node outside 0.." +
                             std::to_string(num_nodes - 1));
    // The kernel CSR keeps edges sorted by (dst, src); edge id k is position k of that order.
    order_of_edge_id.resize(edges.size());
    std::iota(order_of_edge_id.begin(), order_of_edge_id.end(), std::size_t{0});
    std::stable_sort(order_of_edge_id.begin(), order_of_edge_id.end(), [&](std::size_t a, std::size_t b) {
        return std::pair(edges[a].second, edges[a].first) < std::pair(edges[b].second, edges[b].first);
    });
    std::vector<std::pair<NodeId, NodeId>> sorted(edges.size());
    for (std::size_t k = 0; k < edges.size(); ++k) sorted[k] = edges[order_of_edge_id[k]];
    return build_from_sorted(num_nodes, std::move(sorted));
}

Matrix repeat_rows(const Matrix& m, const std::vector<std::size_t>& source_row, std::size_t expected_rows) {
    if (static_cast<std::size_t>(m.rows()) != expected_rows)
        throw ShapeError("edge_attr has " + std::to_string(m.rows()) + " rows, the graph has " + std::to_string(expected_rows) + " edges");
    Matrix out(static_cast<Eigen::Index>(source_row.size()), m.cols());
    for (std::size_t k = 0; k < source_row.size(); ++k) out.row(static_cast<Eigen::Index>(k)) = m.row(static_cast<Eigen::Index>(source_row[k]));
    return out;
}

}  // namespace detail

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Scatters the rows predicted for the valid inputs back to one row per input.
Predictions scatter(std::vector<std::string> columns, const Matrix& predicted, const std::vector<long>& row_of_input,
                    std::vector<std::string> errors) {
    Predictions p{std::move(columns), Matrix::Constant(static_cast<Eigen::Index>(row_of_input.size()), 0, kNaN), std::move(errors)};
    p.values = Matrix::Constant(static_cast<Eigen::Index>(row_of_input.size()), static_cast<Eigen::Index>(p.columns.size()), kNaN);
    for (std::size_t i = 0; i < row_of_input.size(); ++i)
        if (row_of_input[i] >= 0) p.values.row(static_cast<Eigen::Index>(i)) = predicted.row(row_of_input[i]);
    return p;
}

// Molecules as graphs (valid ones only) plus, per input, its graph's index or -1 and the reason.
struct Featurized {
    GraphDataset data;
    std::vector<std::vector<std::uint32_t>> bits;  // fingerprint models
    std::vector<long> graph_of_input;
    std::vector<std::string> errors;
};

void append_attention(const Model& model, std::vector<AttentionWeight>& out, int member) {
    for (std::size_t l = 0; l < model.num_layers(); ++l) {
        const auto edges = model.attention_graph(l).edge_list();
        const Matrix& alpha = model.attention(l);
        for (Eigen::Index h = 0; h < alpha.cols(); ++h)
            for (std::size_t e = 0; e < edges.size(); ++e)
                out.push_back({static_cast<int>(l), static_cast<int>(h), edges[e].first, edges[e].second, edges[e].first == edges[e].second,
                               alpha(static_cast<Eigen::Index>(e), h), member});
    }
}

}  // namespace

Predictor::Predictor(Predictor&&) noexcept = default;
Predictor& Predictor::operator=(Predictor&&) noexcept = default;
Predictor::~Predictor() = default;

Predictor Predictor::load(const std::string& path, const PredictorOptions& options) {
    if (options.threads < 0) throw ConfigError("PredictorOptions::threads must be 0 (all) or at least 1, got " + std::to_string(options.threads));
    if (options.batch_size < 1) throw ConfigError("PredictorOptions::batch_size must be at least 1, got " + std::to_string(options.batch_size));
    Predictor p;
    p.options_ = options;
    p.kind_ = model_kind(path);
    if (p.kind_ == "fingerprint") {
        LoadedFingerprintModel loaded = load_fingerprint_model(path);
        p.fingerprint_ = std::make_unique<FingerprintModel>(std::move(loaded.model));
        p.info_ = std::move(loaded.info);
        p.target_type_ = loaded.target_type;
    } else if (p.kind_ == "graph" || p.kind_ == "node") {
        std::vector<Model> members = load_model_ensemble(path);
        for (auto& m : members) p.members_.push_back(std::make_unique<Model>(std::move(m)));
        p.model_ = p.members_.front().get();
        p.info_ = p.model_->info();
        p.target_type_ = p.kind_ == "node" ? "multiclass" : p.model_->config().target_type;
        if (p.kind_ == "graph" && p.info_.featurizer != "tu" && p.info_.featurizer != chem::featurizer_id())
            throw ParseError("model file '" + path + "': made with featurizer '" + p.info_.featurizer + "', this gatkit has '" +
                             chem::featurizer_id() + "'; train the model again with this version");
    } else {
        throw ParseError("model file '" + path + "' holds a " + p.kind_ + " model; read link and edge models with load_link_model");
    }
    if (p.target_type_ == "multiclass")
        for (const auto& c : p.info_.class_names) p.columns_.push_back("p_" + c);
    else
        for (const auto& t : p.info_.target_names) p.columns_.push_back((p.target_type_ == "binary" ? "p_" : "pred_") + t);
    return p;
}

const ModelConfig& Predictor::config() const {
    static const ModelConfig fingerprint_config = graph_model_defaults();
    return model_ ? model_->config() : fingerprint_config;
}

Model& Predictor::model(std::size_t member) {
    if (!model_) throw ConfigError("a fingerprint model has no attention model");
    if (member >= members_.size())
        throw ConfigError("member " + std::to_string(member) + " of a model with " + std::to_string(members_.size()) +
                          (members_.size() == 1 ? " member" : " members"));
    return *members_[member];
}

std::vector<Model*> Predictor::members() const {
    std::vector<Model*> out;
    for (const auto& m : members_) out.push_back(m.get());
    return out;
}

namespace {

void require_molecule_model(const std::string& kind, const ModelInfo& info, const char* what) {
    if (kind == "node") throw ConfigError(std::string(what) + " needs a molecule model; this is a node model (use predict_graph)");
    if (info.featurizer == "tu") throw ConfigError(std::string(what) + " needs a model trained on molecules; this one was trained on TU graphs");
}

template <class GetMol>
Featurized featurize_all(std::size_t n, bool fingerprints, const std::string& mol_features, const GetMol& get_mol) {
    Featurized f;
    std::vector<GraphSample> samples(n);
    std::vector<std::vector<std::uint32_t>> bits(fingerprints ? n : 0);
    f.errors.assign(n, "");
    // One molecule's failure is its error row: gatkit's own errors (an invalid SMILES) and what
    // RDKit throws on a molecule it cannot handle (a caller's unsanitised molecule has no implicit
    // valences computed). Running out of memory ends the call (for_each_item: the lowest such row).
    for_each_item(static_cast<std::ptrdiff_t>(n), {.chunk = 16}, [&](std::ptrdiff_t k) {
        const auto i = static_cast<std::size_t>(k);
        try {
            chem::RdkitLogCapture log;  // what RDKit logs on the way is not printed; the exception is the reason
            const auto [owned, mol] = get_mol(i);
            if (fingerprints)
                bits[i] = chem::morgan_bits(*mol);
            else
                samples[i] = chem::featurize_molecule(*mol);
            if (!fingerprints && mol_features != "none") {
                const std::vector<float> u = chem::molecule_features(*mol, mol_features);
                samples[i].u = Eigen::Map<const Matrix>(u.data(), 1, static_cast<Eigen::Index>(u.size()));
            }
        } catch (const Error& e) {
            f.errors[i] = e.what();
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) {
            f.errors[i] = "RDKit failed on this molecule: " + clip(e.what(), 300);
        }
    });
    f.graph_of_input.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        if (!f.errors[i].empty()) continue;
        f.graph_of_input[i] = static_cast<long>(fingerprints ? f.bits.size() : f.data.graphs.size());
        if (fingerprints)
            f.bits.push_back(std::move(bits[i]));
        else
            f.data.graphs.push_back(std::move(samples[i]));
    }
    return f;
}

// One row per input from predict(f.data); a graph predict() gave an error row (too large for a
// full mask) passes its reason on to its input.
Predictions scatter_graph_predictions(Predictions inner, Featurized& f) {
    for (std::size_t i = 0; i < f.graph_of_input.size(); ++i)
        if (f.graph_of_input[i] >= 0 && !inner.ok(static_cast<std::size_t>(f.graph_of_input[i])))
            f.errors[i] = inner.errors[static_cast<std::size_t>(f.graph_of_input[i])];
    return scatter(std::move(inner.columns), inner.values, f.graph_of_input, std::move(f.errors));
}

}  // namespace

Predictions Predictor::predict_smiles(const std::vector<std::string>& smiles) {
    require_molecule_model(kind_, info_, "predict_smiles");
    ThreadScope threads(options_.threads);
    // Only featurised (no fingerprint, no molecule-level features): the lighter parse suffices.
    const bool features_only = !fingerprint_ && info_.graph_features == "none";
    Featurized f = featurize_all(smiles.size(), fingerprint_ != nullptr, info_.graph_features, [&](std::size_t i) {
        std::shared_ptr<const RDKit::ROMol> mol = features_only ? chem::parse_smiles_for_features(smiles[i]) : chem::parse_smiles(smiles[i]);
        return std::pair(mol, mol.get());
    });
    if (fingerprint_) return scatter(columns_, f.bits.empty() ? Matrix() : fingerprint_->predict(f.bits), f.graph_of_input, std::move(f.errors));
    return scatter_graph_predictions(predict(f.data), f);
}

Predictions Predictor::predict_molecules(const std::vector<const RDKit::ROMol*>& molecules) {
    require_molecule_model(kind_, info_, "predict_molecules");
    ThreadScope threads(options_.threads);
    Featurized f = featurize_all(molecules.size(), fingerprint_ != nullptr, info_.graph_features, [&](std::size_t i) {
        if (!molecules[i]) throw ParseError("molecule " + std::to_string(i) + " is a null pointer");
        if (molecules[i]->getNumAtoms() == 0) throw ParseError("molecule " + std::to_string(i) + " has no atoms");
        return std::pair(std::shared_ptr<const RDKit::ROMol>(), molecules[i]);
    });
    if (fingerprint_) return scatter(columns_, f.bits.empty() ? Matrix() : fingerprint_->predict(f.bits), f.graph_of_input, std::move(f.errors));
    return scatter_graph_predictions(predict(f.data), f);
}

namespace {

// Per graph: "" or, with a full mask, why the graph is too large to attend over in full.
std::vector<std::string> full_mask_errors(const ModelConfig& c, const GraphDataset& data) {
    std::vector<std::string> errors(data.size());
    if (parse_mask(c.mask).kind != MaskKind::full) return errors;
    for (std::size_t i = 0; i < data.size(); ++i) {
        const NodeId n = data.graphs[i].graph.num_nodes();
        if (n > c.max_full_nodes)
            errors[i] = std::to_string(n) + " atoms, more than the " + std::to_string(c.max_full_nodes) +
                        " the model attends over in full (mask full, max_full_nodes)";
    }
    return errors;
}

}  // namespace

Predictions Predictor::predict(const GraphDataset& data) {
    if (kind_ == "node") throw ConfigError("predict(GraphDataset) needs a graph model; this is a node model (use predict_graph)");
    ThreadScope threads(options_.threads);
    Predictions p{columns_, Matrix(static_cast<Eigen::Index>(data.size()), static_cast<Eigen::Index>(columns_.size())),
                  std::vector<std::string>(data.size())};
    if (data.size() == 0) return p;
    if (fingerprint_) {
        if (data.smiles.size() != data.size()) throw ConfigError("a fingerprint model needs the SMILES of every graph (GraphDataset::smiles)");
        std::vector<std::vector<std::uint32_t>> bits(data.size());
        for (std::size_t i = 0; i < data.size(); ++i) bits[i] = chem::morgan_bits(*chem::parse_smiles(data.smiles[i]));
        p.values = fingerprint_->predict(bits);
        return p;
    }
    const Eigen::Index expected = model_->config().in_features - model_->config().pe_dim();
    for (std::size_t i = 0; i < data.size(); ++i)
        if (data.graphs[i].x.cols() != expected)
            throw ShapeError("graph " + std::to_string(i) + " has " + std::to_string(data.graphs[i].x.cols()) +
                             " feature columns, the model expects " + std::to_string(expected));
    // With a full mask, a graph above max_full_nodes cannot be attended over in full: its row is
    // an error (NaN values), as an invalid SMILES is, and the other graphs are still predicted.
    const ModelConfig& c = model_->config();
    p.errors = full_mask_errors(c, data);
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < data.size(); ++i)
        if (p.errors[i].empty()) kept.push_back(i);
    p.values.setConstant(kNaN);
    if (kept.empty()) return p;
    // Molecule-level features the graphs do not hold yet are computed from their SMILES.
    const bool need_u = c.graph_dim > 0 && data.graphs.front().u.size() != c.graph_dim;
    if (need_u && data.smiles.size() != data.size())
        throw ConfigError("this model also takes " + info_.graph_features + " molecule-level features (GraphSample::u); the graphs have neither them nor SMILES");
    Matrix values;
    if (c.pe == "none" && !need_u) {
        values = predict_graphs(members(), data, kept, options_.batch_size);
    } else {
        GraphDataset with = data;
        add_positional_encodings(with, c.pe);
        if (need_u) add_molecule_features(with, info_.graph_features);
        values = predict_graphs(members(), with, kept, options_.batch_size);
    }
    for (std::size_t k = 0; k < kept.size(); ++k) p.values.row(static_cast<Eigen::Index>(kept[k])) = values.row(static_cast<Eigen::Index>(k));
    return p;
}

Matrix Predictor::graph_embeddings(const std::vector<std::string>& smiles, std::vector<std::string>* errors) {
    require_molecule_model(kind_, info_, "graph_embeddings");
    if (!model_) throw ConfigError("graph_embeddings needs an attention model; this is a fingerprint model");
    ThreadScope threads(options_.threads);
    Featurized f = featurize_all(smiles.size(), false, info_.graph_features, [&](std::size_t i) {
        std::shared_ptr<const RDKit::ROMol> mol = chem::parse_smiles(smiles[i]);
        return std::pair(mol, mol.get());
    });
    add_positional_encodings(f.data, model_->config().pe);
    // As in predict: with a full mask, a molecule above max_full_nodes is an error row.
    const ModelConfig& c = model_->config();
    const std::vector<std::string> too_large = full_mask_errors(c, f.data);
    std::vector<std::size_t> kept;
    for (std::size_t g = 0; g < f.data.size(); ++g)
        if (too_large[g].empty()) kept.push_back(g);
    // An ensemble's members each give their vector, side by side (member k: columns k·C..k·C+C-1).
    Matrix pooled;
    for (std::size_t start = 0; start < kept.size(); start += static_cast<std::size_t>(options_.batch_size)) {
        const std::vector<std::size_t> idx(kept.begin() + static_cast<std::ptrdiff_t>(start),
                                           kept.begin() + static_cast<std::ptrdiff_t>(std::min(kept.size(), start + options_.batch_size)));
        const GraphBatchData b = make_batch_data(f.data, idx);
        for (std::size_t k = 0; k < members_.size(); ++k) {
            members_[k]->forward(b.batch, b.x, &b.edge_attr, /*training=*/false, nullptr, &b.u);
            const Matrix& g = members_[k]->graph_embeddings();
            if (pooled.size() == 0) pooled.resize(static_cast<Eigen::Index>(kept.size()), g.cols() * static_cast<Eigen::Index>(members_.size()));
            pooled.block(static_cast<Eigen::Index>(start), static_cast<Eigen::Index>(k) * g.cols(), g.rows(), g.cols()) = g;
        }
    }
    if (pooled.size() == 0) pooled.resize(0, model_->graph_embedding_width() * static_cast<Eigen::Index>(members_.size()));
    std::vector<Eigen::Index> row_of_graph(f.data.size(), -1);
    for (std::size_t k = 0; k < kept.size(); ++k) row_of_graph[kept[k]] = static_cast<Eigen::Index>(k);
    Matrix out = Matrix::Constant(static_cast<Eigen::Index>(smiles.size()), pooled.cols(), kNaN);
    for (std::size_t i = 0; i < smiles.size(); ++i) {
        const long g = f.graph_of_input[i];
        if (g < 0) continue;
        if (row_of_graph[static_cast<std::size_t>(g)] >= 0)
            out.row(static_cast<Eigen::Index>(i)) = pooled.row(row_of_graph[static_cast<std::size_t>(g)]);
        else
            f.errors[i] = too_large[static_cast<std::size_t>(g)];
    }
    if (errors) *errors = std::move(f.errors);
    return out;
}

std::vector<AttentionWeight> Predictor::molecule_attention(const std::string& smiles) {
    require_molecule_model(kind_, info_, "molecule_attention");
    if (!model_) throw ConfigError("molecule_attention needs an attention model; this is a fingerprint model");
    ThreadScope threads(options_.threads);
    const auto mol = chem::parse_smiles(smiles);
    GraphSample s = chem::featurize_molecule(*mol);
    const std::vector<float> u = chem::molecule_features(*mol, info_.graph_features);
    const Matrix u_row = Eigen::Map<const Matrix>(u.data(), 1, static_cast<Eigen::Index>(u.size()));
    run_graph(s.graph, s.x, &s.edge_attr, &u_row);
    std::vector<AttentionWeight> out;
    for (std::size_t k = 0; k < members_.size(); ++k) append_attention(*members_[k], out, static_cast<int>(k));
    return out;
}

// One forward of a user's graph (x without PE columns) through every member; node models: the
// node forward (N×K logits), graph models: a batch of one graph (1×T raw outputs), one per member.
std::vector<Matrix> Predictor::run_graph(const Graph& graph, const Matrix& x, const Matrix* edge_attr, const Matrix* graph_attr, bool head_used) {
    if (!model_) throw ConfigError("a fingerprint model predicts from SMILES only");
    const ModelConfig& c = model_->config();
    // Node vectors and attention come before the head: without the molecule's own features the
    // head is fed zeros, and its output is not used.
    Matrix no_graph_attr;
    if (c.graph_dim > 0 && !graph_attr && !head_used) {
        no_graph_attr = Matrix::Zero(1, c.graph_dim);
        graph_attr = &no_graph_attr;
    }
    if (c.graph_dim > 0 && !graph_attr)
        throw ConfigError("this model also takes " + info_.graph_features + " molecule-level features computed from the molecule; use predict_smiles or predict_molecules");
    if (x.rows() != graph.num_nodes())
        throw ShapeError("x has " + std::to_string(x.rows()) + " rows, the graph has " + std::to_string(graph.num_nodes()) + " nodes");
    Matrix in;
    if (kind_ == "node" && c.node_input != "features") {
        if (c.node_input.rfind("embedding", 0) == 0)
            throw ConfigError("this node model learned one vector per node of its training graph (node_input " + c.node_input +
                              "); it cannot predict other graphs");
        in = c.node_input == "degree" ? degree_features(graph) : positional_encoding(graph, c.node_input);
    } else {
        in = x;
        if (kind_ == "node" && info_.feature_normalization == "row") row_normalize(in);
    }
    in = with_positional_encoding(graph, std::move(in), c.pe);
    if (in.cols() != c.in_features)
        throw ShapeError("the model expects " + std::to_string(c.in_features - c.pe_dim()) + " feature columns per node, x has " +
                         std::to_string(x.cols()));
    if (kind_ == "node") return {model_->forward(graph, in, /*training=*/false)};
    Matrix attr;
    if (c.edge_dim > 0) {
        if (!edge_attr) throw ShapeError("the model scores edges with " + std::to_string(c.edge_dim) + " edge features; edge_attr is missing");
        if (edge_attr->rows() != graph.num_edges() || edge_attr->cols() != c.edge_dim)
            throw ShapeError("edge_attr is " + std::to_string(edge_attr->rows()) + "×" + std::to_string(edge_attr->cols()) + ", expected " +
                             std::to_string(graph.num_edges()) + "×" + std::to_string(c.edge_dim));
        attr = *edge_attr;
    }
    GraphDataset one;
    one.graphs.push_back({graph, std::move(in), std::move(attr), graph_attr ? *graph_attr : Matrix()});
    batch_ = std::make_unique<GraphBatchData>(make_batch_data(one, {0}));
    std::vector<Matrix> raw;
    for (const auto& m : members_)
        raw.push_back(m->forward(batch_->batch, batch_->x, c.edge_dim > 0 ? &batch_->edge_attr : nullptr, /*training=*/false, nullptr, &batch_->u));
    return raw;
}

Predictions Predictor::predict_graph(const Graph& graph, const Matrix& x, const Matrix* edge_attr) {
    ThreadScope threads(options_.threads);
    const std::vector<Matrix> raw = run_graph(graph, x, edge_attr);
    Matrix values = output_values(target_type_, info_, raw.front());
    for (std::size_t k = 1; k < raw.size(); ++k) values += output_values(target_type_, info_, raw[k]);
    if (raw.size() > 1) values /= static_cast<float>(raw.size());
    std::vector<std::string> errors(static_cast<std::size_t>(values.rows()));
    return {columns_, std::move(values), std::move(errors)};
}

Matrix Predictor::node_embeddings(const Graph& graph, const Matrix& x, const Matrix* edge_attr) {
    ThreadScope threads(options_.threads);
    run_graph(graph, x, edge_attr, nullptr, /*head_used=*/false);
    if (members_.size() == 1) return model_->node_embeddings();
    const Eigen::Index width = model_->node_embeddings().cols();
    Matrix out(model_->node_embeddings().rows(), width * static_cast<Eigen::Index>(members_.size()));
    for (std::size_t k = 0; k < members_.size(); ++k) out.middleCols(static_cast<Eigen::Index>(k) * width, width) = members_[k]->node_embeddings();
    return out;
}

std::vector<AttentionWeight> Predictor::attention(const Graph& graph, const Matrix& x, const Matrix* edge_attr) {
    ThreadScope threads(options_.threads);
    run_graph(graph, x, edge_attr, nullptr, /*head_used=*/false);
    std::vector<AttentionWeight> out;
    for (std::size_t k = 0; k < members_.size(); ++k) append_attention(*members_[k], out, static_cast<int>(k));
    return out;
}

}  // namespace gatkit
