// Node classification data for `gatkit train/predict --task node`: a LINQS data set (Cora), or an
// edge list with a node label file (and optionally a feature file); the inputs the model sees
// (the data's own features, degree encodings or Laplacian PEs); the train/val/test split over
// the labelled nodes. docs/cli.md describes the rules.
#pragma once

#include "args.hpp"

#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/train/split.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace gatkit::cli {

struct NodeTaskData {
    std::string name;       // the data set's name (file stem)
    std::string path;       // --data as given
    bool linqs = false;     // a LINQS folder/prefix; else an edge list
    bool directed = false;  // edge list read with --directed: node i attends to its in-neighbours
    Graph graph;            // the attention graph (undirected: both directions), no self-loops
    std::size_t num_edges = 0;    // unique edges (undirected: counted once)
    std::size_t num_skipped = 0;  // rows the loader skipped (its report)
    Matrix features;              // N×F, the data's own features as read; F = 0 when it has none
    std::vector<int> labels;      // N entries; -1 = unlabelled (no part in training or evaluation)
    std::vector<std::string> node_ids, class_names, notes;

    NodeId num_nodes() const { return static_cast<NodeId>(node_ids.size()); }
    std::size_t num_labelled() const;
};

// train: --data LINQS as always; otherwise an edge list with --label-file (required),
// --feature-file, --directed and --format auto|edgelist|snap|csv.
NodeTaskData load_node_training_data(const TrainArgs& a);
// predict: the same files as in training (the label file only adds the nodes it names), read
// directed or not as the model was trained.
NodeTaskData load_node_prediction_data(const PredictArgs& a, const ModelInfo& info);

struct NodeTaskInputs {
    std::string spec;           // features | degree | lap:K (ModelConfig::node_input)
    Matrix x;                   // N×F as the model sees it
    std::string normalization;  // row | none (ModelInfo::feature_normalization)
};

// --node-features as asked; "" is the default: features when the data has them, else degree.
NodeTaskInputs make_node_task_inputs(const std::string& requested, const NodeTaskData& data);
// The inputs a trained model expects, rebuilt from `data` (UserError on a width mismatch).
Matrix node_task_inputs_for(const Model& model, const NodeTaskData& data);

struct ChosenSplit {
    std::string name;  // planetoid | random | stratified | file
    NodeSplit split;   // labelled nodes only
};

// --split-file, --split and --split-sizes over the labelled nodes (default: see docs/cli.md).
ChosenSplit make_node_split(const TrainArgs& a, const NodeTaskData& data, Rng& rng);

}  // namespace gatkit::cli
