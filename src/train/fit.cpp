#include "gatkit/train/fit.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/mol_features.hpp"
#include "gatkit/chem/scaffold.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/io/molecules.hpp"
#include "gatkit/io/text_reader.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/nn/masks.hpp"
#include "gatkit/nn/positional.hpp"

#include <GraphMol/ROMol.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>

namespace gatkit {

ModelConfig node_model_defaults() {
    ModelConfig c;
    c.task = "node";
    c.layers = 2;
    c.heads = 8;
    c.hidden = 8;
    c.dropout = 0.6;
    c.attn_dropout = 0.6;
    c.root_weight = false;
    return c;
}

ModelConfig graph_model_defaults() {
    ModelConfig c;
    c.task = "graph";
    c.layers = 3;
    c.heads = 4;
    c.hidden = 64;
    c.dropout = 0.0;
    c.attn_dropout = 0.0;
    c.residual = true;
    return c;
}

ModelConfig molecule_model_defaults() {
    ModelConfig c = graph_model_defaults();
    c.readout = "mean+max";
    return c;
}

GraphFitOptions molecule_fit_defaults() {
    GraphFitOptions o;
    o.model = molecule_model_defaults();
    o.mol_features = "rdkit2d";
    return o;
}

void add_positional_encodings(GraphDataset& data, const std::string& spec) {
    if (spec == "none") return;
    for (GraphSample& s : data.graphs) s.x = with_positional_encoding(s.graph, std::move(s.x), spec);
}

std::vector<std::string> try_add_molecule_features(GraphDataset& data, const std::string& kind) {
    std::vector<std::string> errors(data.size());
    chem::check_molecule_features(kind);
    if (kind == "none") return errors;
    if (data.smiles.size() != data.size() && data.size() > 0)
        throw ConfigError("molecule features (" + kind + ") need molecules (SMILES); " + (data.name.empty() ? std::string("these graphs") : data.name) +
                          " has none");
    const auto width = static_cast<Eigen::Index>(chem::molecule_feature_names(kind).size());
    const auto n = static_cast<std::ptrdiff_t>(data.size());
    // A molecule RDKit fails on gets its error (and zeros); out of memory ends the call.
    for_each_item(n, {.chunk = 16}, [&](std::ptrdiff_t i) {
        const auto k = static_cast<std::size_t>(i);
        try {
            chem::RdkitLogCapture log;  // the exception, not RDKit's log text, is the reason
            const std::vector<float> v = chem::molecule_features(*chem::parse_smiles(data.smiles[k]), kind);
            data.graphs[k].u = Eigen::Map<const Matrix>(v.data(), 1, static_cast<Eigen::Index>(v.size()));
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) {
            errors[k] = "molecule features (" + kind + "): " + e.what();
            data.graphs[k].u = Matrix::Zero(1, width);
        }
    });
    return errors;
}

void add_molecule_features(GraphDataset& data, const std::string& kind) {
    const std::vector<std::string> errors = try_add_molecule_features(data, kind);
    for (std::size_t k = 0; k < errors.size(); ++k)
        if (!errors[k].empty())
            throw ParseError("'" + clip(data.smiles[k], 60) + "'" + (k < data.source_rows.size() ? " (row " + std::to_string(data.source_rows[k]) + ")" : "") +
                             ": " + errors[k]);
}

void check_full_mask_sizes(const GraphDataset& data, int max_nodes) {
    for (std::size_t g = 0; g < data.size(); ++g) {
        const NodeId n = data.graphs[g].graph.num_nodes();
        if (n <= max_nodes) continue;
        const std::string what = g < data.smiles.size() && !data.smiles[g].empty() ? "'" + clip(data.smiles[g], 60) + "'" : "graph " + std::to_string(g + 1);
        const std::string row = g < data.source_rows.size() ? " (row " + std::to_string(data.source_rows[g]) + ")" : "";
        throw ConfigError("--mask full: " + what + row + " has " + std::to_string(n) + " nodes, more than --max-full-nodes " +
                          std::to_string(max_nodes) + " (full attention costs n² scores per head; raise --max-full-nodes or use --mask khop:K)");
    }
}

namespace {

std::vector<int> class_labels(const GraphDataset& data) {
    std::vector<int> labels(data.size());
    for (std::size_t i = 0; i < data.size(); ++i) {
        const float v = data.targets(static_cast<Eigen::Index>(i), 0);
        labels[i] = std::isnan(v) ? -1 : static_cast<int>(v);
    }
    return labels;
}

// K of "kfold:K" (the whole rest must be an integer; the range is checked by stratified_kfold).
int kfold_count(const std::string& kind) {
    const std::string digits = kind.substr(6);
    int k = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size())
        throw ConfigError("--split " + kind + ": expected kfold:K with an integer K >= 3");
    return k;
}

}  // namespace

void check_binary_targets(const GraphDataset& data) {
    for (Eigen::Index i = 0; i < data.targets.rows(); ++i)
        for (Eigen::Index t = 0; t < data.targets.cols(); ++t) {
            const float v = data.targets(i, t);
            if (std::isnan(v) || v == 0.0f || v == 1.0f) continue;
            char value[32];
            std::snprintf(value, sizeof value, "%g", static_cast<double>(v));
            const auto k = static_cast<std::size_t>(t), g = static_cast<std::size_t>(i);
            const std::string column = k < data.target_names.size() ? " in column '" + data.target_names[k] + "'" : "";
            const std::string row = g < data.source_rows.size() ? " on row " + std::to_string(data.source_rows[g]) : "";
            throw ConfigError("target type binary: label " + std::string(value) + column + row +
                              " is not 0 or 1 (binary labels are 0, 1 or empty; --target-type regression takes any number)");
        }
}

namespace {

}  // namespace

void check_split_kind(const std::string& kind) {
    if (kind == "random" || kind == "stratified" || kind == "scaffold") return;
    if (kind.rfind("kfold:", 0) == 0) {
        kfold_count(kind);
        return;
    }
    throw ConfigError("--split " + kind + " is not available for whole-graph tasks (available: random, stratified, scaffold, kfold:K)");
}

std::vector<IndexSplit> split_graphs(const GraphDataset& data, const std::string& kind, const std::array<double, 3>& sizes, Rng& rng) {
    if (kind == "random") return {random_split(data.size(), sizes, rng)};
    if (kind == "stratified") {
        if (data.targets.cols() != 1) throw ConfigError("--split stratified needs exactly one target column");
        return {stratified_split(class_labels(data), sizes, rng)};
    }
    if (kind == "scaffold") {
        if (data.smiles.empty()) throw ConfigError("--split scaffold needs molecules (SMILES), not " + data.name);
        std::vector<std::string> scaffolds(data.size());
        for_each_item(static_cast<std::ptrdiff_t>(data.size()), {.chunk = 64}, [&](std::ptrdiff_t i) {
            const auto k = static_cast<std::size_t>(i);
            scaffolds[k] = chem::murcko_scaffold(*chem::parse_smiles(data.smiles[k]));
        });
        return {scaffold_split(scaffolds, sizes, rng)};
    }
    if (kind.rfind("kfold:", 0) == 0) {
        const int k = kfold_count(kind);
        if (data.targets.cols() != 1) throw ConfigError("--split kfold:K needs exactly one target column");
        return stratified_kfold(class_labels(data), k, rng);
    }
    check_split_kind(kind);
    return {};
}

Model make_graph_model(const GraphDataset& data, const GraphFitOptions& options, std::uint64_t init_seed) {
    if (data.size() == 0) throw ConfigError((data.name.empty() ? std::string("data") : data.name) + ": no graphs to train on");
    const std::string target_type = options.target_type.empty() ? infer_target_type(data) : options.target_type;
    if (target_type != "binary" && target_type != "multiclass" && target_type != "regression")
        throw ConfigError("target type " + target_type + " (expected binary, multiclass or regression)");
    const int outputs = target_type == "multiclass" ? static_cast<int>(data.class_names.size()) : static_cast<int>(data.targets.cols());
    if (target_type == "multiclass" && outputs < 2) throw ConfigError("target type multiclass needs class names (TU data)");
    if (target_type == "binary") check_binary_targets(data);
    ModelConfig config = options.model;
    config.task = "graph";
    config.in_features = static_cast<int>(data.graphs.front().x.cols());
    config.num_classes = outputs;
    config.edge_dim = options.edge_features ? static_cast<int>(data.graphs.front().edge_attr.cols()) : 0;
    config.target_type = target_type;
    const std::vector<std::string>& feature_names = chem::molecule_feature_names(options.mol_features);
    config.graph_dim = static_cast<int>(feature_names.size());
    if (data.graphs.front().u.size() != config.graph_dim)
        throw ConfigError("molecule features " + options.mol_features + " have " + std::to_string(config.graph_dim) + " columns, the data's graphs hold " +
                          std::to_string(data.graphs.front().u.size()) + " (add_molecule_features first)");
    Model model(config, init_seed);
    model.info().graph_features = options.mol_features;
    model.info().graph_feature_names = feature_names;
    model.info().target_names = data.target_names;
    model.info().class_names = data.class_names;
    model.info().featurizer = data.smiles.empty() ? "tu" : chem::featurizer_id();
    model.info().tu_layout = data.tu_layout;
    model.info().data_name = data.name;
    return model;
}

std::function<void(Matrix&, Rng&)> pe_augmentation(const ModelConfig& config) {
    if (config.pe.rfind("lap:", 0) != 0) return {};
    const Eigen::Index k = config.pe_dim();
    return [k](Matrix& x, Rng& rng) { random_sign_flip_last(x, k, rng); };
}

ModelSeeds model_seeds(const std::optional<std::uint64_t>& init_seed, Rng& root) {
    const std::uint64_t init = root.next_u64(), train = root.next_u64();
    if (!init_seed) return {.init = init, .train = train};
    Rng own(*init_seed);
    const std::uint64_t own_init = own.next_u64();
    return {.init = own_init, .train = own.next_u64()};
}

ModelSeeds member_seeds(std::uint64_t seed, const std::optional<std::uint64_t>& init_seed, const ModelSeeds& first, int member) {
    if (member == 0) return first;
    Rng own(init_seed.value_or(seed) + static_cast<std::uint64_t>(member));
    const std::uint64_t init = own.next_u64();
    return {.init = init, .train = own.next_u64()};
}

std::vector<Model*> MoleculeTrainResult::members() {
    std::vector<Model*> out{&model};
    for (auto& m : more_members) out.push_back(&m);
    return out;
}

MoleculeTrainResult train_molecules(const std::string& path, const MoleculeTrainOptions& options, const GraphProgress& progress) {
    ThreadScope threads(options.threads);
    if (options.target_columns.empty()) throw ConfigError("train_molecules: target_columns is empty (name the label columns of " + path + ")");
    MoleculeTable table = load_molecules(path, {.format = options.format, .smiles_column = options.smiles_column,
                                                .target_columns = options.target_columns});
    GraphDataset data = std::move(table.data);
    if (options.fail_on_invalid && data.report.n_skipped() > 0) {
        const auto& s = data.report.skipped.front();
        throw ParseError(s.file + ":" + std::to_string(s.line) + ": " + s.reason);
    }
    if (options.ensemble_size < 1 || static_cast<std::size_t>(options.ensemble_size) > kMaxEnsembleSize)
        throw ConfigError("train_molecules: ensemble_size " + std::to_string(options.ensemble_size) + " (expected 1 to " +
                          std::to_string(kMaxEnsembleSize) + ")");
    Rng root(options.seed);
    Rng split_rng = root.split();
    const ModelSeeds first = model_seeds(options.init_seed, root);
    if (options.split.rfind("kfold:", 0) == 0) throw ConfigError("train_molecules trains one model; loop over split_graphs(..., \"kfold:K\", ...) for folds");
    IndexSplit split = split_graphs(data, options.split, options.split_sizes, split_rng).front();

    const ModelConfig& wanted = options.fit.model;
    add_positional_encodings(data, wanted.pe);
    add_molecule_features(data, options.fit.mol_features);
    if (parse_mask(wanted.mask).kind == MaskKind::full) check_full_mask_sizes(data, wanted.max_full_nodes);
    std::vector<Model> members;
    std::vector<GraphTrainResult> results;
    for (int k = 0; k < options.ensemble_size; ++k) {
        const ModelSeeds seeds = member_seeds(options.seed, options.init_seed, first, k);
        Model model = make_graph_model(data, options.fit, seeds.init);
        model.info().smiles_column = options.smiles_column;
        GraphTrainOptions train = options.fit.train;
        train.seed = seeds.train;
        if (!train.augment) train.augment = pe_augmentation(model.config());
        GraphProgress told;
        if (progress)
            told = [&progress, k](const GraphEpochStats& s) {
                GraphEpochStats with = s;
                with.member = k;
                progress(with);
            };
        results.push_back(train_graph_model(model, data, split, train, told));
        members.push_back(std::move(model));
    }
    GraphTrainResult result = results.front();
    if (members.size() > 1) result = ensemble_result(model_pointers(members), results, data, split);
    for (const auto& [k, v] : result.test) members.front().info().metrics["test_" + k] = v;
    const std::string target_type = members.front().config().target_type;
    MoleculeTrainResult out{std::move(members.front()), std::move(result), std::move(split), std::move(data.report), target_type};
    for (std::size_t k = 1; k < members.size(); ++k) out.more_members.push_back(std::move(members[k]));
    out.member_results = std::move(results);
    return out;
}

}  // namespace gatkit
