// Checkpoints and interrupted runs for `gatkit train` (docs/reliability.md): --checkpoint,
// --checkpoint-every and --resume turned into the trainers' CheckpointOptions, and SIGINT/SIGTERM
// turned into a stop request the trainers poll between steps. Signals are handled here only;
// the library sees an std::atomic<bool>.
#pragma once

#include "args.hpp"

#include "gatkit/model/config.hpp"
#include "gatkit/train/checkpoint.hpp"

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gatkit::cli {

// The flag the signal handler sets (false until a SIGINT/SIGTERM arrives during training).
const std::atomic<bool>* stop_flag();
// The first signal that arrived while StopOnSignals was alive (0: none).
int stop_signal();

// While alive, SIGINT and SIGTERM set stop_flag() instead of ending the process, so the trainer
// finishes its step, writes a checkpoint and stops; a second signal ends the process at once
// (the default action). The previous handlers come back when it dies.
class StopOnSignals {
public:
    StopOnSignals();
    ~StopOnSignals();
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;
};

// Runs `train()` with StopOnSignals in force, only for its duration.
template <class F>
auto with_stop_on_signals(F&& train) {
    const StopOnSignals signals;
    return std::forward<F>(train)();
}

// The checkpoint file of a run: --checkpoint, else MODEL.ckpt.
std::string checkpoint_path(const TrainArgs& a);

// The options a resumed run must repeat, as "--flag" → value: task, data and companion files
// (absolute paths), format, seed, split, targets, node inputs, and the optimiser's effective
// settings (lr, weight decay, adam/adamw) and batch size (0: not used by the task).
// A schedule other than the constant rate adds itself and --epochs (its length) to the identity.
std::map<std::string, std::string> run_identity(const TrainArgs& a, const AdamOptions& adam, int batch_size, const LrSchedule& schedule = {},
                                                int epochs = 0);

// An ensemble run's progress (--ensemble-size), kept in its checkpoints: the member being
// trained and the members finished before it.
struct EnsembleProgress {
    int member = 0;
    std::vector<FinishedMember> finished;
};

// One run's checkpoint plumbing: loads --resume (UserError when it cannot be read), and fills a
// trainer's CheckpointOptions.
class RunCheckpoints {
public:
    explicit RunCheckpoints(const TrainArgs& a);
    // Checks the resumed checkpoint against this run's model and options (UserError naming the
    // difference), then sets o: periodic saves to checkpoint_path(a), the state to resume from,
    // and the stop flag.
    // When resuming: UserError naming the first difference between the checkpoint and this run
    // (attach checks the same).
    void verify(const ModelConfig& config, const ParameterList<float>& params, const std::map<std::string, std::string>& run) const;
    // With `ensemble` (alive while training runs), the checkpoints hold its progress, and the
    // resumed state applies only to the member the checkpoint was training.
    void attach(CheckpointOptions& o, const ModelConfig& config, const ModelInfo& info, const ParameterList<float>& params,
                std::map<std::string, std::string> run, const EnsembleProgress* ensemble = nullptr);
    bool resuming() const { return resume_.has_value(); }
    int resumed_epoch() const { return resume_ ? resume_->state.epoch : 0; }
    // The member a resumed ensemble run continues with, and the members it had finished.
    int resumed_member() const { return resume_ ? resume_->member : 0; }
    const std::vector<FinishedMember>& resumed_finished() const;

private:
    std::string path_, resume_path_;
    int every_ = 0;
    std::optional<Checkpoint> resume_;
};

// The message for an interrupted run (stderr: the signal, where it stopped, the checkpoint and
// how to continue) and its exit code: 130 for SIGINT, 143 for SIGTERM (128 + signal number).
int report_interrupted(const TrainingInterrupted& e, const TrainArgs& a);

}  // namespace gatkit::cli
