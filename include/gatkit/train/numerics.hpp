// Numerical faults while training. A loss, a gradient or an evaluation output that is not finite
// (NaN or ±Inf) stops training at once with a TrainingDiverged error that says where (epoch,
// batch) and what (the first parameter backward reached whose gradient is not finite; for a loss
// or outputs, a parameter whose weights are not finite or else the largest weight), instead of
// letting NaN spread into the weights, the metrics and the model file. docs/reliability.md.
//
// Every trainer (node, graph, link, edge) runs the same checks through one DivergenceGuard:
//
//   guard.check_loss(loss, at);     before backward
//   model.backward(dloss);
//   guard.check_gradients(at);      after backward, before the optimiser step
//   adam.step();
//   ... evaluation forward ...
//   guard.check_outputs(val, "validation outputs", at);   before the epoch can become the best
//
// so a failing loss or gradient never changes a weight. On failure the guard puts back the
// weights of the best epoch so far (what a normal end of training keeps) and the message says
// which weights the model holds; before there is a best epoch it keeps the current ones. The cost
// is one pass over the parameters (and the evaluation outputs) per step, nothing per edge.
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/core/parameter.hpp"

#include <string>
#include <vector>

namespace gatkit {

// Training stopped because the loss, a gradient or an evaluation output was not finite. The
// typical cause is a learning rate that is too large (or inputs of a huge magnitude).
class TrainingDiverged : public Error {
public:
    TrainingDiverged(const std::string& what, int epoch, int batch, std::string parameter, int best_epoch)
        : Error(what), epoch(epoch), batch(batch), parameter(std::move(parameter)), best_epoch(best_epoch) {}
    int epoch = 0;          // 1-based
    int batch = 0;          // 1-based within the epoch (full-batch trainers: 1)
    std::string parameter;  // the parameter named in the message ("" when none could be named)
    int best_epoch = 0;     // the epoch whose weights the model holds now; 0: no best epoch yet
};

// Where a training step is: epoch and batch 1-based, batches per epoch (1 for full batch).
struct StepPosition {
    int epoch = 0;
    int batch = 1;
    int batches = 1;
};

template <class T>
class DivergenceGuard {
public:
    // params: what the optimiser updates, listed input to output. best: the values of params at
    // the best epoch so far (empty before there is one) and best_epoch its number. Both are held
    // by reference and read only when a check fails, so the trainer keeps updating them.
    DivergenceGuard(ParameterList<T> params, const std::vector<MatrixT<T>>& best, const int& best_epoch)
        : params_(std::move(params)), slices_(params_), best_(best), best_epoch_(best_epoch) {}

    // Throws TrainingDiverged when loss is NaN or ±Inf, naming the parameter with a non-finite
    // value, else the one with the largest magnitude (huge weights are what a too large learning
    // rate leaves behind).
    void check_loss(double loss, const StepPosition& at) const;
    // Call on the evaluation outputs computed after the optimiser step (validation logits, the
    // node vectors a decoder scores): throws TrainingDiverged, naming parameters as check_loss
    // does, when an entry is NaN or ±Inf. The step just taken made the model overflow, and a
    // model whose outputs are not finite must become neither the best epoch nor the result.
    // `what` names the outputs in the message ("validation outputs").
    void check_outputs(const MatrixT<T>& outputs, const std::string& what, const StepPosition& at) const;
    // Throws TrainingDiverged when a gradient entry is NaN or ±Inf, naming the first parameter
    // backward reached (scanning params from the last) whose gradient is not finite: the fault
    // started there and spread to the parameters before it.
    void check_gradients(const StepPosition& at) const;

private:
    [[noreturn]] void fail(const std::string& what, const std::string& parameter, const StepPosition& at, bool after_step) const;
    [[noreturn]] void fail_on_outputs(const std::string& what, const StepPosition& at, bool after_step) const;

    ParameterList<T> params_;
    ParameterSlices slices_;  // the gradient scan runs over these in parallel
    const std::vector<MatrixT<T>>& best_;
    const int& best_epoch_;
};

}  // namespace gatkit
