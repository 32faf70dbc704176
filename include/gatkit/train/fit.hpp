// Training whole-graph models (molecules, TU graphs) from options structs: what `gatkit train
// --task graph` does, as library calls that report progress through a callback and never print.
//
//   gatkit::MoleculeTrainOptions opt;
//   opt.target_columns = {"p_np"};
//   opt.split = "scaffold";
//   gatkit::MoleculeTrainResult r = gatkit::train_molecules("BBBP.csv", opt,
//       [](const gatkit::GraphEpochStats& s) { std::printf("%d %.3f\n", s.epoch, s.val_score); });
//   gatkit::save_model("bbbp.model", r.model);
//
// The seed is used as the command line uses it (a split stream, then the initial weights, then
// shuffling and dropout), so the same options give the same model as `gatkit train`.
#pragma once

#include "gatkit/io/dataset.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/train/graph_trainer.hpp"
#include "gatkit/train/split.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gatkit {

// gatkit's defaults for node classification, the GAT paper's Cora model: 2 attention layers, 8
// heads × 8 channels with ELU, one output head, dropout 0.6 on inputs and attention; a
// dot-product layer without the root skip (with it each node's own features bypass attention
// and overfit Cora: docs/results.md). in_features and num_classes come from the data.
ModelConfig node_model_defaults();

// gatkit's defaults for whole-graph models: 3 attention layers of 4 heads × 64 channels with
// residual connections (PyG's GATConv residual=True: a bias-free projection of each layer's
// input added to its output), bond features in the scores, mean readout, an MLP head with 256
// hidden units, no dropout. TU graphs (gatkit train on a TU folder) use these.
ModelConfig graph_model_defaults();

// The model defaults for molecules read through RDKit (train_molecules; gatkit train on a CSV,
// .smi or SDF file): graph_model_defaults() with the mean and the maximum of the node vectors side
// by side (readout "mean+max"), chosen on the validation sets of BBBP, Tox21, HIV and ESOL, where
// the mean alone was as good or worse (docs/results.md). MUTAG's validation accuracy fell with
// it, so TU graphs keep the mean.
ModelConfig molecule_model_defaults();

struct GraphFitOptions {
    ModelConfig model = graph_model_defaults();  // task, in_features, num_classes, edge_dim and target_type are set from the data
    GraphTrainOptions train;                     // epochs 100, patience 20, batch 64, Adam lr 1e-3
    std::string target_type;                     // binary | multiclass | regression; "" = infer_target_type
    bool edge_features = true;                   // use the data's edge (bond) features in the scores
    // Molecule-level features entering the MLP head (none | rdkit2d | morgan | rdkit2d,morgan;
    // chem/mol_features.hpp). The data must already hold them (add_molecule_features).
    std::string mol_features = "none";
};

// Everything train_molecules and `gatkit train` on molecules start from: molecule_model_defaults()
// and the rdkit2d molecule-level features in the head (Chemprop's RDKit descriptor generator, as
// Yang et al. 2019 added to their D-MPNN). Chosen on validation over BBBP, Tox21, HIV, ESOL and
// Lipophilicity, where the descriptors were as good or better (docs/results.md). TU graphs have
// no SMILES and start from GraphFitOptions{} (no molecule features).
GraphFitOptions molecule_fit_defaults();

using GraphProgress = std::function<void(const GraphEpochStats&)>;

// The seeds of one model: `init` for its initial weights, `train` for shuffling, dropout and
// (link) negative samples.
struct ModelSeeds {
    std::uint64_t init = 0, train = 0;
};
// The rule train_molecules and `gatkit train` share. `root` is the run's Rng(seed) after the
// split's stream was taken; its next two numbers are the model's seeds, unless init_seed is
// given: then they come from Rng(*init_seed) (root still advances).
ModelSeeds model_seeds(const std::optional<std::uint64_t>& init_seed, Rng& root);
// Member k of an ensemble: member 0 is `first` (model_seeds), member k ≥ 1 takes the seeds that
// a single run with init seed S+k would, S being init_seed when given, else seed.
ModelSeeds member_seeds(std::uint64_t seed, const std::optional<std::uint64_t>& init_seed, const ModelSeeds& first, int member);

// ---- the steps (the command line uses them too)

// Appends the positional encoding `spec` (none | lap:K | rw:K; nn/positional.hpp) to every
// graph's node features.
void add_positional_encodings(GraphDataset& data, const std::string& spec);
// Binary targets are 0 or 1 (NaN: missing). Another value (a 2, a 0.5) has no BCE target to
// train towards, nor a class to score against: a ConfigError naming the first one, its column
// and its input row.
void check_binary_targets(const GraphDataset& data);
// Sets every graph's molecule-level features u (spec none | rdkit2d | morgan | rdkit2d,morgan;
// chem/mol_features.hpp) from data.smiles, in parallel. ConfigError for data without SMILES
// (TU graphs) unless kind is none.
void add_molecule_features(GraphDataset& data, const std::string& kind);
// The same, but a molecule whose features cannot be computed gets a row of zeros and its reason
// in the returned list (one entry per graph, empty when it worked) instead of an exception:
// prediction turns those into error rows.
std::vector<std::string> try_add_molecule_features(GraphDataset& data, const std::string& kind);
// With --mask full every graph must have at most max_nodes nodes: ConfigError naming the first
// that does not (its SMILES or number, and its input row), before anything large is allocated.
void check_full_mask_sizes(const GraphDataset& data, int max_nodes);
// ConfigError unless kind is random, stratified, scaffold or kfold:K with an integer K (checked
// before data are read, so a typo fails at once).
void check_split_kind(const std::string& kind);
// random | stratified | scaffold (needs data.smiles) | kfold:K (stratified, one target): one
// IndexSplit, or K folds. ConfigError for an unknown kind or one the data cannot have.
std::vector<IndexSplit> split_graphs(const GraphDataset& data, const std::string& kind, const std::array<double, 3>& sizes, Rng& rng);
// The config of a model for `data` (the data-dependent fields filled in) and the model's info
// (target and class names, featurizer, data name). data must already hold its PE columns.
Model make_graph_model(const GraphDataset& data, const GraphFitOptions& options, std::uint64_t init_seed);
// Random sign flips of the Laplacian PE columns while training (none for other encodings).
std::function<void(Matrix&, Rng&)> pe_augmentation(const ModelConfig& config);

// ---- everything at once

struct MoleculeTrainOptions {
    std::string format = "auto";             // auto | csv | smi | sdf (auto: from the extension, .gz allowed)
    std::string smiles_column = "smiles";    // CSV
    std::vector<std::string> target_columns; // CSV columns or SD properties (required)
    bool fail_on_invalid = false;            // true: ParseError at the first invalid molecule; false: skip (see report)
    std::string split = "random";            // random | stratified | scaffold
    std::array<double, 3> split_sizes{0.8, 0.1, 0.1};
    GraphFitOptions fit = molecule_fit_defaults();
    std::uint64_t seed = 0;
    std::optional<std::uint64_t> init_seed;  // the model's own stream (weights, shuffling, dropout); the split stays seed's
    int ensemble_size = 1;                   // models trained on the split, predictions averaged (gatkit train --ensemble-size)
    int threads = 0;                         // 0: as OpenMP offers; n: at most n during this call
};

struct MoleculeTrainResult {
    Model model;                 // the best validation epoch's weights; info().metrics has test_<metric>
                                 // (an ensemble: its first member, with the ensemble's metrics)
    GraphTrainResult result;     // epochs, times, validation and test metrics (an ensemble: of the
                                 // averaged predictions; epochs are the first member's, time all members')
    IndexSplit split;            // indices into the loaded graphs
    LoadReport report;           // rows that did not become graphs, and why
    std::string target_type;
    std::vector<Model> more_members;              // an ensemble's members after `model` (ensemble_size − 1)
    std::vector<GraphTrainResult> member_results;  // each member's own run (ensemble_size entries)
    // Every member, `model` first: save_model_ensemble(path, r.members()) writes what `gatkit
    // train --ensemble-size` writes.
    std::vector<Model*> members();
};

// Loads `path` (io/molecules.hpp), splits, trains and evaluates (each member in turn, the
// progress callback told which by GraphEpochStats::member). Throws IoError/ParseError for
// unreadable data, ConfigError for impossible options.
MoleculeTrainResult train_molecules(const std::string& path, const MoleculeTrainOptions& options, const GraphProgress& progress = {});

}  // namespace gatkit
