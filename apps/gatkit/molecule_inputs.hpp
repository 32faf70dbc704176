// Molecules as a trained graph model reads them: shared by `gatkit predict`, `explain` and
// `embed`.
#pragma once

#include "gatkit/io/dataset.hpp"
#include "gatkit/io/molecules.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace gatkit::cli {

// The prediction columns of a graph model: p_<target> (binary), pred_<target> (regression) or
// p_<class> (multiclass), as `gatkit predict` writes them.
std::vector<std::string> prediction_columns(const std::string& target_type, const ModelInfo& info);

// A molecule attention model (a graph model on this gatkit's featurizer) from `path`: its
// members, one unless it is an ensemble (they share config and info). UserError for TU-format
// models and other featurizers. `command` names the caller ("predict", ...).
std::vector<Model> load_molecule_models(const std::string& path, const std::string& command);
// The check load_molecule_models makes on the model at `path` with this info.
void check_molecule_featurizer(const std::string& path, const ModelInfo& info, const std::string& command);

// The molecules to run: `smiles` as a one-row table (header "smiles"; an invalid SMILES is that
// row's error), or else the file `data` (CSV, .smi, SDF; `format` auto|csv|smi|sdf) read with
// `smiles_column` (empty: the column the model was trained with, `info.smiles_column`). `pe` (ModelConfig::pe; "none" for
// models without one) adds the positional encodings the model expects, `mol_features`
// (ModelInfo::graph_features; "none" for models without them, or when only the rows are needed)
// its molecule-level features; a molecule whose features cannot be computed is that row's error.
MoleculeTable read_molecule_inputs(const std::string& smiles, const std::string& data, const std::string& format, const std::string& smiles_column,
                                   const ModelInfo& info, const std::string& pe, const std::string& mol_features);

// The SMILES cell of every input row, valid or not (trimmed; "" when the row has no such field),
// for outputs that name rows by it. `smiles_column` as for read_molecule_inputs.
std::vector<std::string> record_smiles(const MoleculeTable& table, const std::string& smiles_column, const ModelInfo& info);

// Runs graph g of `data` alone through the model (a one-graph batch, training = false), so that
// the model's attention (node ids = atom indices) and embeddings describe this molecule only.
// Returns that batch: keep it while reading the attention, whose graph may be the batch's own.
GraphBatchData forward_molecule(Model& model, const GraphDataset& data, std::size_t g);

}  // namespace gatkit::cli
