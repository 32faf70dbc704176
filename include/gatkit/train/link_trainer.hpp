// Training loops for the link task (which pairs are edges) and the edge task (which class an
// edge has), full batch on one network.
//
// Link, each epoch: fresh training negatives (as many as the training positives, from the
// NegativeSampler: never a real edge), encode the training graph in training mode, decode
// positives and negatives, BCE with logits (mean over both), backward, one Adam step. Then an
// evaluation pass (eval mode) scores the fixed validation positives and negatives; the weights
// with the best validation ROC-AUC are kept, and training stops after `patience` epochs without
// a better one. Test metrics are computed once, with the kept weights.
//
// Edge, each epoch: encode, decode the training edges, softmax cross-entropy over their labels,
// backward, Adam; early stopping on validation accuracy (ties: lower validation loss wins).
#pragma once

#include "gatkit/model/link_model.hpp"
#include "gatkit/train/checkpoint.hpp"
#include "gatkit/train/link_split.hpp"
#include "gatkit/train/optimizer.hpp"

#include <functional>
#include <map>
#include <string>

namespace gatkit {

// roc_auc, pr_auc (average precision), hits@20, hits@50, hits@100 (shared negatives, OGB rule), mrr.
// All NaN when a score is NaN (a ranking of NaN is undefined).
std::map<std::string, double> link_metrics(const std::vector<double>& pos_scores, const std::vector<double>& neg_scores);

struct LinkTrainOptions {
    int epochs = 200;
    int patience = 50;  // <= 0: no early stopping
    AdamOptions adam{.lr = 0.005};
    std::uint64_t seed = 0;  // negatives, dropout, augmentation
    // Applied to a copy of the input each training epoch (e.g. random sign flips of Laplacian PEs).
    std::function<void(Matrix&, Rng&)> augment;
    // Periodic checkpoints, resuming, and stopping between epochs (train/checkpoint.hpp).
    CheckpointOptions checkpoint;
};

struct LinkEpochStats {
    int epoch = 0;  // 1-based
    double loss = 0;
    double val_metric = 0;  // link: validation ROC-AUC; edge: validation accuracy
    double seconds = 0;     // training pass only (sampling + forward + backward + step)
    bool best = false;
};

struct LinkTrainResult {
    int epochs_run = 0, best_epoch = 0;
    double train_seconds = 0, epoch_seconds_median = 0;
    std::map<std::string, double> val, test;  // metric name → value
};

using LinkEpochCallback = std::function<void(const LinkEpochStats&)>;

// Leaves the best weights in the model and its eval-mode node vectors in model.node_vectors.
LinkTrainResult train_link_predictor(LinkModel& model, const Graph& graph, const Matrix& x, const LinkSplit& split,
                                     const NegativeSampler& sampler, const LinkTrainOptions& options,
                                     const LinkEpochCallback& on_epoch = {});

// Labelled edges of one network, split into train/val/test (labels index the model's classes).
struct EdgeSplit {
    std::vector<NodePair> train, val, test;
    std::vector<int> train_labels, val_labels, test_labels;
};

// Metrics: accuracy, macro_f1, loss; and majority_accuracy / majority_macro_f1 (always predicting
// the most frequent training class), so users see what the model adds.
LinkTrainResult train_edge_classifier(LinkModel& model, const Graph& graph, const Matrix& x, const EdgeSplit& split,
                                      const LinkTrainOptions& options, const LinkEpochCallback& on_epoch = {});

}  // namespace gatkit
