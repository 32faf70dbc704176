#include "gatkit/model/model_file.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/mol_features.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/io/tu.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include "safetensors_io.hpp"

namespace gatkit {

using nlohmann::json;

namespace {

using detail::config_from_json;
using detail::config_to_json;
using detail::float_tensors;
using detail::info_from_json;
using detail::info_to_json;
using detail::safetensors_bytes;
using detail::TensorRef;

// A gatkit model file read and checked up to its metadata; tensors are read on demand.
struct GatkitFile : detail::SafetensorsFile {
    explicit GatkitFile(const std::string& p) : SafetensorsFile("model file", p) {
        const std::string format = meta_text("format");
        if (format == "gatkit-checkpoint")
            throw bad("is a training checkpoint, not a model file (continue the run with gatkit train ... --resume " + path + ")");
        if (format != "gatkit") throw bad("unsupported model file: a safetensors file without gatkit metadata");
        const std::string version = meta_text("format_version");
        if (version != std::to_string(kModelFormatVersion) && version != std::to_string(kEnsembleFormatVersion))
            throw bad("unsupported model file format version '" + version + "' (this gatkit reads versions " +
                      std::to_string(kModelFormatVersion) + " and " + std::to_string(kEnsembleFormatVersion) + ")");
        if (version == std::to_string(kEnsembleFormatVersion)) {
            const std::string n = meta_text("ensemble_size");
            std::size_t value = 0;
            const auto r = std::from_chars(n.data(), n.data() + n.size(), value);
            if (r.ec != std::errc() || r.ptr != n.data() + n.size() || value < 2 || value > kMaxEnsembleSize)
                throw bad("format version " + version + " needs an ensemble_size from 2 to " + std::to_string(kMaxEnsembleSize) + ", got '" + n + "'");
            ensemble_size = value;
        }
    }

    std::size_t ensemble_size = 1;  // members (format version 2: "ensemble_size", else 1)

    // A config is checked against the file before any layer is built: its layers cannot have
    // many more parameters than the file holds values (ModelConfig::parameter_bound is at most
    // ~32 times the true count), so a damaged or hand-made config cannot make the loader
    // allocate gigabytes.
    void check_fits(const ModelConfig& config) const {
        const double values = static_cast<double>(bytes.size() - data_start) / 4;
        if (config.parameter_bound() > 64 * values + (1 << 22))
            throw bad("its config describes layers far larger than the " + std::to_string(bytes.size() - data_start) +
                      " bytes of tensors it holds (damaged, or not written by gatkit)");
    }

    std::string model_type() const {
        const std::string t = meta_text("model_type");
        return t.empty() ? "gat" : t;
    }
};

json base_metadata(const std::string& model_type) {
    return {{"format", "gatkit"}, {"format_version", std::to_string(kModelFormatVersion)}, {"model_type", model_type}};
}

// A model with molecule-level features must name this gatkit's columns for its kind (an RDKit
// with other descriptors computes other columns) and hold one mean and std per column.
void check_graph_features(const GatkitFile& file, const ModelConfig& config, const ModelInfo& info) {
    if (config.graph_dim == 0) return;
    try {
        chem::check_molecule_features(info.graph_features);
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    const auto U = static_cast<std::size_t>(config.graph_dim);
    if (info.graph_feature_mean.size() != U || info.graph_feature_std.size() != U || info.graph_feature_names.size() != U)
        throw file.bad("graph_dim " + std::to_string(U) + " does not match its " + std::to_string(info.graph_feature_names.size()) +
                       " molecule-level feature names and " + std::to_string(info.graph_feature_mean.size()) + " scaling values");
    for (const double s : info.graph_feature_std)
        if (!(s > 0) || !std::isfinite(s)) throw file.bad("a molecule-level feature has standard deviation " + std::to_string(s));
    if (info.graph_feature_names != chem::molecule_feature_names(info.graph_features))
        throw file.bad("its " + info.graph_features + " molecule-level features (" + std::to_string(U) +
                       " columns) differ from this gatkit's (" + std::to_string(chem::molecule_feature_names(info.graph_features).size()) +
                       ", a different RDKit?); train the model again");
}

// Standardised node attributes: one mean and a positive std per named column, each column one
// of the model's inputs.
void check_node_features(const GatkitFile& file, const ModelConfig& config, const ModelInfo& info) {
    const std::size_t n = info.node_feature_columns.size();
    if (n == 0 && info.node_feature_mean.empty() && info.node_feature_std.empty()) return;
    if (config.task != "graph") throw file.bad("a " + config.task + " model with standardised node attributes (only graph models have them)");
    if (info.node_feature_mean.size() != n || info.node_feature_std.size() != n)
        throw file.bad(std::to_string(n) + " standardised node attribute columns with " + std::to_string(info.node_feature_mean.size()) +
                       " means and " + std::to_string(info.node_feature_std.size()) + " standard deviations");
    for (std::size_t k = 0; k < n; ++k) {
        const int c = info.node_feature_columns[k];
        if (c < 0 || c >= config.in_features)
            throw file.bad("node attribute column " + std::to_string(c) + " is outside its " + std::to_string(config.in_features) + " input columns");
        if (!std::isfinite(info.node_feature_mean[k]) || !(info.node_feature_std[k] > 0) || !std::isfinite(info.node_feature_std[k]))
            throw file.bad("node attribute column " + std::to_string(c) + " has mean " + std::to_string(info.node_feature_mean[k]) +
                           " and standard deviation " + std::to_string(info.node_feature_std[k]));
    }
}

// A TU model's feature layout (io/tu.hpp): four counts that give exactly its input columns
// (labels and attributes, or the constant column when there are neither; the degree columns;
// positional encodings) and, with edge features on, its edge columns.
void check_tu_layout(const GatkitFile& file, const ModelConfig& config, const ModelInfo& info) {
    const std::vector<int>& l = info.tu_layout;
    if (l.empty()) return;
    if (info.featurizer != "tu") throw file.bad("a TU feature layout in a model whose featurizer is '" + info.featurizer + "'");
    if (l.size() != 4 || std::any_of(l.begin(), l.end(), [](int v) { return v < 0 || v > 1'000'000; }))
        throw file.bad("its TU feature layout is not four counts from 0 to 1000000");
    const long node = std::max(1L, static_cast<long>(l[0]) + l[1]) + kTuMaxDegree + 1 + config.pe_dim();
    if (node != config.in_features)
        throw file.bad("its TU feature layout gives " + std::to_string(node) + " input columns, the model has " + std::to_string(config.in_features));
    if (config.edge_dim > 0 && static_cast<long>(l[2]) + l[3] != config.edge_dim)
        throw file.bad("its TU feature layout gives " + std::to_string(l[2] + l[3]) + " edge columns, the model has " + std::to_string(config.edge_dim));
}

// The names of the outputs against their number: a class name per output (node, edge and
// multiclass graph models), else a target name per output, with the scaling of each regression
// target. A file whose lists disagree with its outputs would index past them when predicting.
void check_outputs(const GatkitFile& file, const std::string& task, const std::string& target_type, Eigen::Index outputs,
                   const ModelInfo& info) {
    const auto n = static_cast<std::size_t>(std::max<Eigen::Index>(outputs, 0));
    auto count = [](std::size_t k, const std::string& one, const std::string& many) { return std::to_string(k) + " " + (k == 1 ? one : many); };
    const bool by_class = task == "node" || task == "edge" || target_type == "multiclass";
    const std::vector<std::string>& names = by_class ? info.class_names : info.target_names;
    if (names.size() != n)
        throw file.bad("it has " + count(n, "output", "outputs") + " but " +
                       count(names.size(), by_class ? "class name" : "target name", by_class ? "class names" : "target names") + " in its info");
    if (task != "graph" || target_type != "regression") return;
    if (info.target_mean.size() != n || info.target_std.size() != n)
        throw file.bad("it has " + count(n, "regression target", "regression targets") + " but " + count(info.target_mean.size(), "mean", "means") +
                       " and " + count(info.target_std.size(), "standard deviation", "standard deviations") + " in its info");
    for (std::size_t t = 0; t < n; ++t)
        if (!std::isfinite(info.target_mean[t]) || !(info.target_std[t] > 0) || !std::isfinite(info.target_std[t]))
            throw file.bad("target '" + info.target_names[t] + "' has mean " + std::to_string(info.target_mean[t]) + " and standard deviation " +
                           std::to_string(info.target_std[t]));
}

}  // namespace

void save_model(const std::string& path, Model& model) { save_model_ensemble(path, {&model}); }

void save_model_ensemble(const std::string& path, const std::vector<Model*>& members) {
    if (members.empty() || members.size() > kMaxEnsembleSize)
        throw ConfigError("save_model_ensemble: " + std::to_string(members.size()) + " members (1 to " + std::to_string(kMaxEnsembleSize) + ")");
    Model& first = *members.front();
    const json config = config_to_json(first.config());
    for (std::size_t k = 1; k < members.size(); ++k)
        if (config_to_json(members[k]->config()) != config)
            throw ConfigError("save_model_ensemble: member " + std::to_string(k) + " has another configuration than member 0");
    const bool ensemble = members.size() > 1;
    // A single model's parameters keep their own names, an ensemble's are member.<k>.<name>.
    std::vector<std::pair<std::string, const Matrix*>> tensors;
    for (std::size_t k = 0; k < members.size(); ++k)
        for (const auto* p : members[k]->parameters())
            tensors.emplace_back(ensemble ? "member." + std::to_string(k) + "." + p->name : p->name, &p->value);
    json meta = base_metadata("gat");
    if (ensemble) {
        meta["format_version"] = std::to_string(kEnsembleFormatVersion);
        meta["ensemble_size"] = std::to_string(members.size());
    }
    meta["config"] = config.dump();
    meta["info"] = info_to_json(first.info()).dump();
    if (first.info().featurizer == chem::featurizer_id()) meta["featurizer_spec"] = chem::featurizer_spec();
    write_file_atomically(path, safetensors_bytes(float_tensors(tensors), meta));
}

namespace {

std::vector<Model> read_models(const GatkitFile& file) {
    if (file.model_type() != "gat")
        throw file.bad("holds a '" + file.model_type() + "' model, not an attention model");
    ModelConfig config;
    ModelInfo info;
    try {
        config = config_from_json(file.meta_json("config"));
        config.validate();  // here, so a bad value is reported with the file's name
        file.check_fits(config);
        info = info_from_json(file.meta_json("info"));
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    if (config.task != "node" && config.task != "graph")
        throw file.bad("holds a " + config.task + " model; load it with load_link_model");
    if (file.ensemble_size > 1 && config.task != "graph") throw file.bad("an ensemble of " + config.task + " models (only graph models have ensembles)");
    if (info.featurizer == chem::featurizer_id() && file.meta().contains("featurizer_spec") &&
        file.meta()["featurizer_spec"] != chem::featurizer_spec())
        throw file.bad("its atom/bond features (featurizer '" + info.featurizer + "', layout " + file.meta()["featurizer_spec"].dump() +
                       ") differ from this gatkit's (" + chem::featurizer_spec() + "); train the model again");
    check_graph_features(file, config, info);
    check_node_features(file, config, info);
    check_tu_layout(file, config, info);
    check_outputs(file, config.task, config.target_type, config.num_classes, info);
    std::vector<Model> members;
    for (std::size_t k = 0; k < file.ensemble_size; ++k) {
        Model model(config, 0);
        model.info() = info;
        const std::string prefix = file.ensemble_size > 1 ? "member." + std::to_string(k) + "." : "";
        for (auto* p : model.parameters()) file.read(prefix + p->name, p->value);
        members.push_back(std::move(model));
    }
    return members;
}

}  // namespace

Model load_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.ensemble_size > 1)
        throw file.bad("holds an ensemble of " + std::to_string(file.ensemble_size) +
                       " models; read it with load_model_ensemble or gatkit::Predictor");
    return std::move(read_models(file).front());
}

std::vector<Model> load_model_ensemble(const std::string& path) { return read_models(GatkitFile(path)); }

namespace {

MatrixT<std::int32_t> pairs_to_matrix(const std::vector<NodePair>& pairs) {
    MatrixT<std::int32_t> m(static_cast<Eigen::Index>(pairs.size()), 2);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        m(static_cast<Eigen::Index>(k), 0) = pairs[k].first;
        m(static_cast<Eigen::Index>(k), 1) = pairs[k].second;
    }
    return m;
}

// Reads the known edges and checks every id against the node count.
std::vector<NodePair> read_edges(const GatkitFile& file, std::size_t num_nodes) {
    MatrixT<std::int32_t> m;
    file.read("graph.edges", m);
    if (m.rows() > 0 && m.cols() != 2) throw file.bad("tensor 'graph.edges' must have 2 columns");
    std::vector<NodePair> pairs(static_cast<std::size_t>(m.rows()));
    for (Eigen::Index k = 0; k < m.rows(); ++k) {
        const NodeId u = m(k, 0), v = m(k, 1);
        if (u < 0 || v < 0 || static_cast<std::size_t>(u) >= num_nodes || static_cast<std::size_t>(v) >= num_nodes)
            throw file.bad("tensor 'graph.edges' row " + std::to_string(k) + " names node " + std::to_string(std::min(u, v) < 0 ? std::min(u, v) : std::max(u, v)) +
                           ", outside the model's " + std::to_string(num_nodes) + " nodes");
        pairs[static_cast<std::size_t>(k)] = {u, v};
    }
    return pairs;
}

ModelInfo read_info(const GatkitFile& file) {
    try {
        return info_from_json(file.meta_json("info"));
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    }
}

}  // namespace

void save_link_model(const std::string& path, LinkModel& model) {
    std::vector<std::pair<std::string, const Matrix*>> named;
    for (const auto* p : model.parameters()) named.emplace_back(p->name, &p->value);
    named.emplace_back("node_vectors", &model.node_vectors);
    std::vector<TensorRef> tensors = float_tensors(named);
    const MatrixT<std::int32_t> edges = pairs_to_matrix(model.known_edges);
    tensors.push_back({"graph.edges", "I32", edges.rows(), 2, edges.data()});
    json meta = base_metadata("gat");
    meta["config"] = config_to_json(model.config()).dump();
    meta["info"] = info_to_json(model.info()).dump();
    write_file_atomically(path, safetensors_bytes(tensors, meta));
}

LinkModel load_link_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() != "gat") throw file.bad("holds a '" + file.model_type() + "' model, not an attention model");
    ModelConfig config;
    try {
        config = config_from_json(file.meta_json("config"));
        config.validate();
        file.check_fits(config);
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    if (config.task != "link" && config.task != "edge") throw file.bad("holds a " + config.task + " model, not a link or edge model");
    LinkModel model(config, 0);
    model.info() = read_info(file);
    if (config.task == "edge") check_outputs(file, config.task, "multiclass", config.num_classes, model.info());
    for (auto* p : model.parameters()) file.read(p->name, p->value);
    const std::size_t n = model.info().node_ids.size();
    model.node_vectors.resize(static_cast<Eigen::Index>(n), config.out_channels);
    file.read("node_vectors", model.node_vectors);
    model.known_edges = read_edges(file, n);
    return model;
}

void save_heuristic_model(const std::string& path, const HeuristicLinkModel& model) {
    const MatrixT<std::int32_t> edges = pairs_to_matrix(model.edges);
    json meta = base_metadata("heuristic");
    meta["heuristic"] = to_string(model.heuristic);
    meta["info"] = info_to_json(model.info).dump();
    write_file_atomically(path, safetensors_bytes({{"graph.edges", "I32", edges.rows(), 2, edges.data()}}, meta));
}

HeuristicLinkModel load_heuristic_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() != "heuristic") throw file.bad("holds a '" + file.model_type() + "' model, not a link heuristic");
    HeuristicLinkModel model;
    try {
        model.heuristic = parse_link_heuristic(GatkitFile::text_of(file.meta(), "heuristic"));
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    model.info = read_info(file);
    model.edges = read_edges(file, model.info.node_ids.size());
    return model;
}

std::string model_kind(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() == "fingerprint" || file.model_type() == "heuristic") return file.model_type();
    try {
        return file.meta_json("config").at("task").get<std::string>();
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    }
}

void save_fingerprint_model(const std::string& path, const FingerprintModel& model, const ModelInfo& info, const std::string& target_type) {
    const auto named = model.tensors();
    std::vector<std::pair<std::string, const Matrix*>> tensors;
    for (const auto& [name, m] : named) tensors.emplace_back(name, &m);
    json meta = base_metadata("fingerprint");
    meta["target_type"] = target_type;
    meta["info"] = info_to_json(info).dump();
    write_file_atomically(path, safetensors_bytes(float_tensors(tensors), meta));
}

LoadedFingerprintModel load_fingerprint_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() != "fingerprint") throw file.bad("holds a '" + file.model_type() + "' model, not a fingerprint model");
    std::vector<std::pair<std::string, Matrix>> tensors;
    for (const char* name : {"fingerprint.weight", "fingerprint.bias", "fingerprint.options"}) {
        Matrix m;
        file.read(name, m);
        tensors.emplace_back(name, std::move(m));
    }
    ModelInfo info = read_info(file);
    std::string target_type = GatkitFile::text_of(file.meta(), "target_type");
    if (target_type != "binary" && target_type != "regression")
        throw file.bad("target_type '" + target_type + "' (a fingerprint model is binary or regression)");
    check_outputs(file, "fingerprint", target_type, tensors.front().second.rows(), info);
    try {
        return {FingerprintModel(tensors), std::move(info), std::move(target_type)};
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const Error& e) {
        throw file.bad(e.what());
    }
}

}  // namespace gatkit
