// Training and evaluation of whole-graph models (molecules, TU graphs).
//
// Each epoch shuffles the training graphs (Rng from the seed) and walks them in mini-batches:
// one block-diagonal batch per step, forward, loss, backward, Adam step. After each epoch the
// validation graphs are scored; early stopping keeps the weights of the best validation epoch
// by the selection metric (default ROC-AUC for binary tasks — the mean over tasks —, accuracy
// for multi-class, RMSE for regression; GraphTrainOptions::select_metric) and stops after
// `patience` epochs without improvement. A tie in the metric goes to the lower validation loss:
// on a few dozen validation graphs ROC-AUC and accuracy tie often, and the first epoch to reach
// a value is rarely the best calibrated.
//
// Losses: binary and multi-task binary → BCE with logits over the present labels (missing
// labels are NaN and masked); multi-class → softmax cross-entropy; regression → MSE on targets
// standardised with the training set's mean and standard deviation (outputs are turned back
// into the original units for metrics and predictions).
#pragma once

#include "gatkit/io/dataset.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/train/checkpoint.hpp"
#include "gatkit/train/optimizer.hpp"
#include "gatkit/train/split.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gatkit {

struct GraphTrainOptions {
    int epochs = 100;
    int patience = 20;  // <= 0: no early stopping
    int batch_size = 64;
    AdamOptions adam{.lr = 1e-3, .weight_decay = 0.0};
    // The learning rate of each step (adam.lr is the peak), over `epochs` epochs.
    LrSchedule schedule;
    std::uint64_t seed = 0;  // shuffling and dropout
    // The validation metric that picks the kept epoch (selection_metric_for); empty: the target
    // type's default.
    std::string select_metric;
    // Applied to each training batch's node matrix (e.g. random sign flips of Laplacian PEs).
    std::function<void(Matrix&, Rng&)> augment;
    // Periodic checkpoints, resuming, and stopping between batches (train/checkpoint.hpp).
    CheckpointOptions checkpoint;
};

struct GraphEpochStats {
    int epoch = 0;
    double train_loss = 0;
    double val_score = 0;       // the selection metric
    double val_loss = 0;        // breaks ties in val_score (NLL; regression: MSE in original units)
    std::string val_metric;     // its name
    double seconds = 0;         // training pass only
    bool best = false;
    int member = 0;             // the ensemble member being trained (train_molecules; 0 otherwise)
};

using Metrics = std::map<std::string, double>;

struct GraphTrainResult {
    int epochs_run = 0;
    int best_epoch = 0;
    double train_seconds = 0;
    double epoch_seconds_median = 0;
    Metrics val, test;                                   // mean over tasks
    std::map<std::string, std::vector<double>> test_per_task;
};

// The metric early stopping selects on: `requested` when it applies to the target type, else a
// ConfigError listing those that do; empty or "auto": roc_auc (binary), accuracy (multiclass),
// rmse (regression). "loss" is the validation loss (NLL; regression: MSE in original units).
std::string selection_metric_for(const std::string& target_type, const std::string& requested);

// The inference rule for target types: every present value 0 or 1 → binary (one task per
// column); class names present (TU data) with more than 2 classes → multiclass; else regression.
std::string infer_target_type(const GraphDataset& data);

// One mini-batch: the block-diagonal graph and the stacked node / edge / graph features.
struct GraphBatchData {
    GraphBatch batch;
    Matrix x;
    Matrix edge_attr;
    Matrix u;  // B×U molecule-level features (0 columns when the graphs have none)
};
// with_x false: x is left empty (0×0), for callers that read the graphs' features themselves.
GraphBatchData make_batch_data(const GraphDataset& data, const std::vector<std::size_t>& graphs, bool with_x = true);

// A training step runs in sub-batches (docs/design.md, "Determinism"): the
// batch's graphs are cut into ceil(B / kSubBatchGraphs) consecutive runs of about equal node
// count, a cut that depends on the data only, never on the thread count. Each sub-batch runs
// forward and backward on its own replica of the model, the sub-batches in parallel; the loss is
// the whole batch's, and the gradients are summed in sub-batch order, so the step's numbers are
// the same for any number of threads.
inline constexpr std::size_t kSubBatchGraphs = 16;
// The sub-batches of `graphs` as positions: sub-batch s is [bounds[s], bounds[s + 1]), each
// non-empty (bounds = {0, B} when B <= kSubBatchGraphs).
std::vector<std::size_t> sub_batch_bounds(const GraphDataset& data, const std::vector<std::size_t>& graphs);

// One training step in sub-batches, as train_graph_model takes it (a building block for callers
// that run their own loop). Sub-batch 0 runs on the model itself, sub-batch s ≥ 1 on a replica:
// a copy whose weights are the model's again after every weights_stepped(). The model and params
// (model.parameters()), data and options must outlive this object.
class SubBatchSteps {
public:
    // Makes ceil(o.batch_size / kSubBatchGraphs) − 1 replicas of the model.
    SubBatchSteps(Model& model, const ParameterList<float>& params, const GraphDataset& data, const GraphTrainOptions& o);
    // The training-mode outputs of a batch of at most o.batch_size graphs (B×T, in chunk
    // order), each sub-batch's from its own forward; keeps each sub-batch's data for backward.
    // Randomness (dropout keys, o.augment): a batch of one sub-batch draws from rng itself; with
    // several, each draws from a generator of its own seeded from rng's next value, and rng moves
    // past that value when some sub-batch drew (a step that draws nothing leaves rng as it was).
    Matrix forward(const std::vector<std::size_t>& chunk, Rng& rng);
    // dlogits (B×T, the whole batch's loss gradient) back through each sub-batch's replica; the
    // model's gradients (zeroed by the caller) then hold the sum over the sub-batches, added in
    // sub-batch order.
    void backward(const Matrix& dlogits);
    // After the optimiser step: every replica takes the model's new weights.
    void weights_stepped();

private:
    Model& replica(std::size_t s) { return s == 0 ? model_ : replicas_[s - 1]; }

    Model& model_;
    const ParameterList<float>& params_;
    ParameterSlices slices_;
    const GraphDataset& data_;
    const GraphTrainOptions& o_;
    std::vector<Model> replicas_;
    std::vector<ParameterList<float>> replica_params_;
    std::vector<std::size_t> bounds_;        // the last forward's sub-batches
    std::vector<GraphBatchData> batches_;    // their data, which the replicas' caches read in backward
};

// Raw model outputs → predictions: sigmoid (binary), softmax rows (multiclass), or values in
// the original units (regression: info's target_mean/target_std undo the standardisation).
Matrix output_values(const std::string& target_type, const ModelInfo& info, Matrix raw);

// Predictions for the given graphs (B×T): probabilities (binary), class probabilities
// (multiclass, B×K) or values in the original units (regression). batch_size graphs per forward
// pass; with several threads, each thread runs whole batches on its own copy of the model. The
// numbers do not depend on the thread count. The batch size can change their last bits (about
// 1e-7: a row's place among the dense products' row blocks changes its summation order). 32
// molecules (500–800 atoms × 256 channels, 0.5–0.8 MB a matrix) keep a batch's working set in a core's
// L2 cache; with 256 the forward phase of `gatkit predict` took 1.35× longer (docs/design.md).
inline constexpr int kPredictBatchSize = 32;
Matrix predict_graphs(Model& model, const GraphDataset& data, const std::vector<std::size_t>& graphs, int batch_size = kPredictBatchSize);
// Pointers to every model of `models` (an ensemble's members), for the calls below.
std::vector<Model*> model_pointers(std::vector<Model>& models);
// An ensemble's predictions: the mean of its members' predict_graphs (probabilities, class
// probabilities or values in the original units averaged, as Chemprop averages its members).
// One member gives exactly that member's predictions.
Matrix predict_graphs(const std::vector<Model*>& members, const GraphDataset& data, const std::vector<std::size_t>& graphs,
                      int batch_size = kPredictBatchSize);

// Metrics of predictions against targets (rows = graphs). Binary: roc_auc, pr_auc, accuracy,
// f1, mcc (mean over tasks with both classes present); multiclass: accuracy, f1 (macro);
// regression: rmse, mae, r2 (mean over tasks). Per-task values go to *per_task when given.
Metrics evaluate_predictions(const std::string& target_type, const Matrix& predictions, const Matrix& targets,
                             std::map<std::string, std::vector<double>>* per_task = nullptr);

// The metrics of a model, or of an ensemble's averaged predictions, on a split: val, test and
// test_per_task as train_graph_model reports them (test empty when the split has no test part).
void evaluate_split(const std::vector<Model*>& members, const GraphDataset& data, const IndexSplit& split, GraphTrainResult& result);
// An ensemble's result from its members' runs: the metrics of the averaged predictions, the
// first member's epochs and median epoch time, all members' training time.
GraphTrainResult ensemble_result(const std::vector<Model*>& members, const std::vector<GraphTrainResult>& member_results,
                                 const GraphDataset& data, const IndexSplit& split);

// The model's training-set statistics in ModelInfo, from the graphs `train`: regression targets'
// mean and standard deviation, the scaling of molecule-level features and of continuous node
// attributes. train_graph_model sets them first; a member whose weights come from elsewhere (an
// ensemble member finished before a checkpoint) needs them before it predicts.
void fit_training_statistics(Model& model, const GraphDataset& data, const std::vector<std::size_t>& train);

GraphTrainResult train_graph_model(Model& model, const GraphDataset& data, const IndexSplit& split, const GraphTrainOptions& options,
                                   const std::function<void(const GraphEpochStats&)>& on_epoch = {});

}  // namespace gatkit
