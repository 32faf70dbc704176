// Options of `gatkit train` and `gatkit predict`, shared by the node and graph task code.
#pragma once

#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"
#include "gatkit/model/explain.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gatkit {
class Model;
class Graph;
struct ModelConfig;
struct ModelSeeds;
}

namespace gatkit::cli {

struct TrainArgs {
    std::string task = "node", data, format = "auto", split, split_file, split_sizes, split_column;
    std::string conv = "gat", mask = "edges", pe = "none", pe_mode = "concat", block = "plain", optimizer = "adam", activation = "elu";
    int max_full_nodes = 512;
    std::string metric;  // graph: the selection metric ("" = the default, see graph_task.cpp)
    std::string smiles_column, target_type, readout, model_type = "gat", on_invalid = "skip", invalid_out;
    std::string split_out;  // graph: --split-out, the rows of each part
    std::vector<std::string> target_columns;
    // Defaults differ per task (node: the GAT paper's Cora settings; graph: see docs/cli.md).
    std::optional<int> layers, heads, hidden, epochs, patience;
    std::optional<double> dropout, attn_dropout, lr, weight_decay, warmup_epochs;
    std::string lr_schedule = "constant";  // graph: constant | noam | cosine
    std::string mol_features;              // graph, molecules: none | rdkit2d | morgan (chem/mol_features.hpp); "": rdkit2d for molecules, none otherwise
    int out_heads = 1, batch_size = 64, threads = 0, mlp_hidden = 256;
    double negative_slope = 0.2;
    std::uint64_t seed = 0;
    std::optional<std::uint64_t> init_seed;  // --init-seed: the model's own stream (Chemprop's --pytorch_seed)
    int ensemble_size = 1;                   // graph, gat: --ensemble-size, members averaged (Chemprop's --ensemble_size)
    bool residual = false, no_residual = false;  // neither: the task's default (graph on, others off)
    bool quiet = false, no_edge_features = false;
    std::string root_weight;  // --conv transformer: on | off ("" = the task's default)
    bool beta = false;        // --conv transformer
    std::string out, metrics_json;
    // Link and edge tasks (networks).
    std::string node_features, feature_file, label_file, decoder = "dot";
    std::optional<int> out_channels;
    bool directed = false;
    // Checkpoints (apps/gatkit/checkpointing.hpp): where (default OUT.ckpt), how often, resume from.
    std::string checkpoint, resume;
    int checkpoint_every = 0;
};

struct PredictArgs {
    std::string model, data, out, smiles, smiles_column;
    std::string format = "auto";  // molecule models: --format of the --data file
    int threads = 0;
    // Link and edge models.
    std::string task, pairs, embeddings, attention;
    std::vector<std::string> recommend;
    int top_k = 10;
    bool top_k_given = false;  // --top-k on the command line: refused without --recommend
    // Node models on an edge list: the same companion files as in training.
    std::string feature_file, label_file;
};

struct EvaluateArgs {
    std::string model, data, smiles_column, metrics_json;
    std::string format = "auto";  // molecule models: --format of the --data file
    int threads = 0;
    // Node models: the companion files of an edge list, and a split file naming which nodes are
    // train, val and test (without one every labelled node is evaluated, as the test set).
    std::string feature_file, label_file, split_file;
};

// The layer flags every task shares, over the task's defaults already in `c`: sizes and dropout
// when given, conv, mask, block, PE, slope, residual (--residual, --no-residual; without either
// the task's default, except that --block transformer and --conv transformer, which have their
// own skips, get none), activation, root weight and beta.
void apply_model_args(const TrainArgs& a, ModelConfig& c);

// The seeds of the initial weights and of the training stream (shuffling, dropout, negatives):
// the next two draws of `root`, the --seed stream, after the split's; with --init-seed M the
// first two of M's own stream instead, so the split stays that of --seed while the model varies
// (Chemprop's --pytorch_seed beside --seed; several models on one split, an ensemble).
ModelSeeds model_seeds(const TrainArgs& a, Rng& root);
// Member k of an ensemble (--ensemble-size): member 0 is `first` (model_seeds), member k ≥ 1
// takes the seeds a single run with --init-seed S+k would, S = --init-seed or else --seed.
ModelSeeds member_seeds(const TrainArgs& a, const ModelSeeds& first, int member);

int run_node_train(const TrainArgs& a);
int run_graph_train(const TrainArgs& a);
int run_link_train(const TrainArgs& a);  // --task link and --task edge
int run_node_predict(const PredictArgs& a);
int run_link_predict(const PredictArgs& a);  // link, edge and heuristic models
// gatkit evaluate for link, edge and heuristic models: their metrics on a CSV of labelled pairs
// (--data; src,dst,...,label: 1/0 for links, the class for edges).
int run_link_evaluate(const EvaluateArgs& a);
// The attention coefficients of the model's last forward, one CSV row per layer, head and edge
// of the graph attention ran on: <prefix columns>,layer,head,src,dst,self_loop,alpha. `names`
// maps node rows to the ids written (user ids, or atom indices).
std::string attention_rows(const Model& model, const std::vector<std::string>& names, const std::string& prefix);
// The same for any list of layers: (attention graph, α E×H) per layer.
std::string attention_rows(const std::vector<std::pair<const Graph*, const Matrix*>>& layers, const std::vector<std::string>& names,
                           const std::string& prefix);
int run_graph_predict(const PredictArgs& a);
// predict --embeddings FILE for node and molecule attention models: what `gatkit embed` writes
// for the same inputs (node_id,z0,...; or row,smiles,g0,...,error), to a.embeddings.
int write_predict_embeddings(const PredictArgs& a, const std::string& kind);
// gatkit evaluate for graph models (molecule attention models and fingerprint baselines): the
// model's metrics on a labelled file.
int run_graph_evaluate(const EvaluateArgs& a);
// predict and evaluate for graph models trained on a TU folder (tu_task.cpp): `members` from the
// model file (one unless it is an ensemble).
int run_tu_predict(const PredictArgs& a, std::vector<Model>& members);
int run_tu_evaluate(const EvaluateArgs& a, std::vector<Model>& members);
// gatkit embed (and predict --embeddings) for TU graph models: graph_id,g0,...,error to `out`.
// --smiles-column and --format (molecule file options) are refused.
int run_tu_embed(const std::string& model_path, const std::string& data, const std::string& smiles_column, const std::string& format,
                 const std::string& out, std::vector<Model>& members);
// gatkit explain for TU graph models: the attention each node of a graph receives (Σ α,
// model/explain.hpp), as graph_id,node,node_label,received,rank,error for every graph of the
// folder or the one `graph` names, to `out` ("" or "-": stdout).
struct TuExplainArgs {
    std::string model, data, graph, out, smiles_column, format = "auto";
    AttentionChoice choice;
};
int run_tu_explain(const TuExplainArgs& a, std::vector<Model>& members);

}  // namespace gatkit::cli
