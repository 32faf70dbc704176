// Checkpoints: everything a training loop needs to continue exactly where it stopped, so that
// a run interrupted after k epochs and resumed reaches the same weights, bit for bit, as one
// that never stopped (same seed, any thread count).
//
// What must continue exactly: the weights, Adam's moments and step count, the Rng (its one
// 64-bit state: shuffles, negative samples, sign flips and the dropout keys all come from it —
// dropout masks are counter-based, so a key is all a mask needs), the epoch, the early-stopping
// bookkeeping (best score, patience counter, the kept weights), and for the graph task the
// training order (each epoch shuffles the previous epoch's order) and the position inside an
// epoch.
//
// The trainers (trainer.hpp, graph_trainer.hpp, link_trainer.hpp) take a CheckpointOptions:
// a callback that writes a state every `every` epochs, a state to resume from, and a stop flag
// polled between steps — when it is set, the trainer hands the state to the callback and throws
// TrainingInterrupted. The command line (apps/gatkit) sets the flag from SIGINT/SIGTERM.
//
// File: the safetensors layout of model files (docs/model-format.md), with
//   __metadata__: format "gatkit-checkpoint", format_version "1", config and info (as in model
//                 files), run (JSON: the options a resumed run must repeat, name → value),
//                 state (JSON: epoch, best_epoch, since_best, best_score, best_loss, rng, adam_t,
//                 parameters, has_best, batch_start, epoch_loss_sum, epoch_batches,
//                 epoch_seconds, train_seconds), data_hash (FNV-1a of the tensor bytes)
//   tensors:      param.<name>, best.<name>, adam.m.<name>, adam.v.<name> (F32), train.order
//                 (I32, graph task)
// An ensemble run (gatkit train --ensemble-size) adds to state "member" (the member being
// trained, 0-based) and "finished" (one object per member before it: epochs_run, best_epoch,
// train_seconds, epoch_seconds_median), and the kept weights of those members as tensors
// member.<k>.<name>. A checkpoint without them is member 0 of a run with nothing finished.
// Written atomically (io/atomic_file.hpp) like every output file.
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/model/config.hpp"
#include "gatkit/train/optimizer.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace gatkit {

inline constexpr int kCheckpointFormatVersion = 1;

struct TrainState {
    int epoch = 0;       // epochs completed
    int best_epoch = 0;  // the kept weights' epoch (0: none yet)
    int since_best = 0;  // epochs since the last improvement (the patience counter)
    // The best validation values so far, as each trainer defines them: node, the highest accuracy
    // and the lowest loss; graph, the selection metric; link, ROC-AUC; edge, accuracy and loss.
    double best_score = std::numeric_limits<double>::quiet_NaN();
    double best_loss = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t rng = 0;             // Rng::state()
    std::vector<Matrix> weights;       // the parameters now, in parameters() order
    std::vector<Matrix> best_weights;  // the kept epoch's; empty when no epoch was kept yet
    AdamState adam;
    // Graph task: the training order after the last shuffle, and where a run stopped inside an
    // epoch: the next batch starts at order[batch_start] (0: at an epoch boundary), with the
    // epoch's loss sum and batch count so far.
    std::vector<std::size_t> order;
    std::size_t batch_start = 0;
    double epoch_loss_sum = 0;
    int epoch_batches = 0;
    // Timing so far, so that a resumed run reports the whole run's median and total.
    std::vector<double> epoch_seconds;
    double train_seconds = 0;
};

struct CheckpointOptions {
    int every = 0;                                // a checkpoint at the end of every N-th epoch (0: none)
    std::function<void(const TrainState&)> save;  // writes one (periodic, and when stopped)
    const TrainState* resume_from = nullptr;      // continue from this state instead of epoch 0
    const std::atomic<bool>* stop = nullptr;      // polled between steps: when set, save and throw
};

// Thrown by a trainer whose stop flag was set: the state went to the save callback (when there
// is one) first.
class TrainingInterrupted : public Error {
public:
    TrainingInterrupted(int epochs_completed, std::size_t batch_start, bool saved);
    int epochs_completed;
    std::size_t batch_start;  // graph task: graphs of the next epoch already trained on
    bool saved;               // the state was handed to CheckpointOptions::save
};

// A member of an ensemble that finished training before the checkpoint's state began.
struct FinishedMember {
    std::vector<Matrix> weights;  // its kept weights, in parameter_names order
    int epochs_run = 0, best_epoch = 0;
    double train_seconds = 0, epoch_seconds_median = 0;
};

// A checkpoint file's content.
struct Checkpoint {
    ModelConfig config;
    ModelInfo info;
    std::map<std::string, std::string> run;  // options a resumed run must repeat (e.g. "--seed" → "0")
    std::vector<std::string> parameter_names;  // of state.weights, in order
    TrainState state;
    // Ensembles: state belongs to member `member`; members 0..member-1 are `finished`.
    int member = 0;
    std::vector<FinishedMember> finished;
};

// IoError when the file cannot be written.
void save_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// IoError/ParseError naming the file and what is wrong: not a checkpoint (a model file, a
// foreign file), another format version, truncated or damaged (the data hash), malformed state.
Checkpoint load_checkpoint(const std::string& path);

// ConfigError naming the first difference between a checkpoint and the run about to resume
// from it: an option of `run` (both directions), a model setting of `config`, or a parameter's
// name or shape.
void check_resume(const Checkpoint& checkpoint, const std::string& path, const ModelConfig& config, const ParameterList<float>& params,
                  const std::map<std::string, std::string>& run);

// ---- for training loops

// The state every trainer fills the same way; the trainer adds its own bookkeeping.
TrainState capture_state(int epochs_completed, const ParameterList<float>& params, const AdamT<float>& adam, const Rng& rng);
// Puts a state's weights, Adam state and Rng back; ShapeError when it does not fit `params`.
void restore_state(const TrainState& state, const ParameterList<float>& params, AdamT<float>& adam, Rng& rng);
inline bool stop_requested(const CheckpointOptions& o) { return o.stop && o.stop->load(std::memory_order_relaxed); }
inline bool checkpoint_due(const CheckpointOptions& o, int epoch) { return o.save && o.every > 0 && epoch % o.every == 0; }
// Hands the state to the save callback (when there is one) and throws TrainingInterrupted.
[[noreturn]] void interrupt_training(const CheckpointOptions& o, const TrainState& state);

// The bookkeeping every training loop shares — the kept epoch and its weights, the patience
// counter, the epoch timings — and the checkpoint plumbing around it. A trainer decides what
// "better" means; the loop state remembers it, writes it into checkpoints and puts it back on
// resume:
//
//   LoopState loop(params, adam, rng, options.checkpoint, <initial best score>, <initial best loss>);
//   for (int epoch = loop.first_epoch(); epoch <= epochs && !loop.out_of_patience(patience); ++epoch) {
//       ... train; loop.epoch_seconds.push_back(...); evaluate ...
//       if (better) loop.keep_best(epoch); else ++loop.since_best;
//       loop.end_epoch(epoch);      // periodic checkpoint; a stop request throws TrainingInterrupted
//       if (loop.out_of_patience(patience)) break;
//   }
//   loop.restore_best();
class LoopState {
public:
    // A fresh run starts from `best_score` and `best_loss`; with options.resume_from the run
    // continues that state instead (weights, Adam, Rng and all of the bookkeeping put back).
    LoopState(const ParameterList<float>& params, AdamT<float>& adam, Rng& rng, const CheckpointOptions& options, double best_score,
              double best_loss);

    int first_epoch() const { return epochs_run + 1; }
    // Patience used up: stop (also true for a resumed state that had already stopped early).
    bool out_of_patience(int patience) const { return patience > 0 && since_best >= patience; }
    // The parameters now become the kept weights of `epoch`; the patience counter restarts.
    void keep_best(int epoch);
    // Ends `epoch`: counts it, writes a periodic checkpoint when one is due, and hands the state to
    // the checkpoint callback and throws TrainingInterrupted when a stop was requested.
    void end_epoch(int epoch);
    // The whole state after `epochs_completed` epochs, with what `extend` adds.
    TrainState state(int epochs_completed) const;
    // Puts the kept weights into the parameters (no-op before any epoch was kept).
    void restore_best() const;
    // Seconds since the run began, a resumed run's earlier part included.
    double train_seconds() const;

    double best_score, best_loss;  // as each trainer defines them (TrainState)
    int best_epoch = 0;            // 0: no epoch kept yet
    int since_best = 0;
    int epochs_run = 0;
    std::vector<Matrix> best_weights;
    std::vector<double> epoch_seconds;  // training pass of each epoch
    // Adds a trainer's own fields to every state (the graph trainer: its training order).
    std::function<void(TrainState&)> extend;

private:
    ParameterList<float> params_;
    AdamT<float>& adam_;
    Rng& rng_;
    const CheckpointOptions& options_;
    double seconds_before_ = 0;  // a resumed run's earlier part
    std::chrono::steady_clock::time_point start_;
};

// The end of a run: the kept weights go back into the parameters, and a trainer's result type
// (NodeTrainResult, GraphTrainResult, LinkTrainResult) gets the run's bookkeeping.
template <class Result>
Result finish_run(const LoopState& loop) {
    loop.restore_best();
    Result r;
    r.epochs_run = loop.epochs_run;
    r.best_epoch = loop.best_epoch;
    r.train_seconds = loop.train_seconds();
    r.epoch_seconds_median = median(loop.epoch_seconds);
    return r;
}

}  // namespace gatkit
