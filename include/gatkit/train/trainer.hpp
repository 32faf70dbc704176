// The training loop for node classification (full batch, transductive).
//
// Each epoch: forward in training mode on the whole graph, cross-entropy on the training
// nodes, backward, one Adam step; then an evaluation pass (no dropout) for validation loss and
// accuracy. Early stopping as in the GAT paper (Veličković et al., reference code): the patience
// counter restarts whenever the validation accuracy reaches its best or the validation loss its
// lowest so far; training stops after `patience` epochs without either. The weights kept are
// those of the last epoch that reached both at once (the best accuracy and the lowest loss so
// far); the first epoch always qualifies.
#pragma once

#include "gatkit/io/dataset.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/train/checkpoint.hpp"
#include "gatkit/train/optimizer.hpp"
#include "gatkit/train/split.hpp"

#include <functional>

namespace gatkit {

struct NodeTrainOptions {
    int epochs = 1000;
    int patience = 100;    // <= 0: no early stopping
    AdamOptions adam{.lr = 0.005, .weight_decay = 5e-4};
    std::uint64_t seed = 0;  // dropout stream
    // Applied to a copy of the features each training epoch (e.g. Laplacian PE sign flips).
    std::function<void(Matrix&, Rng&)> augment;
    // Periodic checkpoints, resuming, and stopping between epochs (train/checkpoint.hpp).
    CheckpointOptions checkpoint;
};

struct EpochStats {
    int epoch = 0;  // 1-based
    double train_loss = 0, train_accuracy = 0, val_loss = 0, val_accuracy = 0;
    double seconds = 0;  // training pass only (forward + backward + step)
    bool best = false;   // this epoch is the best so far
};

struct NodeTrainResult {
    int epochs_run = 0;
    int best_epoch = 0;
    double val_accuracy = 0, val_loss = 0, test_accuracy = 0, train_accuracy = 0;
    double train_seconds = 0;          // whole loop, evaluation included
    double epoch_seconds_median = 0;   // training pass only
};

NodeTrainResult train_node_classifier(Model& model, const Graph& graph, const Matrix& features, const std::vector<int>& labels,
                                      const NodeSplit& split, const NodeTrainOptions& options,
                                      const std::function<void(const EpochStats&)>& on_epoch = {});

}  // namespace gatkit
