// Molecules as a trained graph model reads them: shared by `gatkit predict`, `explain` and
// `embed`.
#pragma once

#include "gatkit/io/dataset.hpp"
#include "gatkit/io/molecules.hpp"
#include "gatkit/model/explain.hpp"
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

// "layer 2 (last), mean of 4 heads": which attention an explain output shows.
std::string describe_attention(const EdgeAttention& att, const Model& model, const AttentionChoice& choice);

// The graphs of `data` a model attends over: all of them, except that under --mask full a graph
// with more nodes than config.max_full_nodes is left out and why[g] says so ("<n> <unit>, more
// than the ..."; empty for the graphs kept, which are returned in order).
std::vector<std::size_t> graphs_within_full_mask(const GraphDataset& data, const ModelConfig& config, const std::string& unit,
                                                 std::vector<std::string>& why);

// α of each listed graph run alone through each member, as predict --attention writes it: the
// header, then one row per graph, member (ensembles only), layer, head and edge. A row starts with
// the graph's id (`graphs`: (graph of `data`, its id)); nodes are the indices within the graph.
// `id_column` and `unit` name the columns: <id_column>[,member],layer,head,src_<unit>,dst_<unit>,...
std::string per_graph_attention(std::vector<Model>& members, const GraphDataset& data,
                                const std::vector<std::pair<std::size_t, std::string>>& graphs, const std::string& id_column,
                                const std::string& unit);

// The pooled vector of each graph of `data` that `run` marks, run alone through each member (the
// readout's output), members side by side: row g of the result (other rows zero; no columns when
// no graph runs). `columns` gets the header names: g<c>, or m<k>_g<c> for an ensemble.
Matrix pooled_embeddings(std::vector<Model>& members, const GraphDataset& data, const std::vector<bool>& run,
                         std::vector<std::string>& columns);

}  // namespace gatkit::cli
