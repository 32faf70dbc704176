#include "gatkit/train/trainer.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/metrics.hpp"
#include "gatkit/train/numerics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace gatkit {

NodeTrainResult train_node_classifier(Model& model, const Graph& graph, const Matrix& features, const std::vector<int>& labels,
                                      const NodeSplit& split, const NodeTrainOptions& options,
                                      const std::function<void(const EpochStats&)>& on_epoch) {
    if (options.epochs < 1) throw ConfigError("epochs must be at least 1, got " + std::to_string(options.epochs));
    if (split.train.empty() || split.val.empty())
        throw ConfigError("training needs at least one training and one validation node");
    auto params = model.parameters();
    AdamT<float> adam(params, options.adam);
    Rng rng(options.seed);

    NodeTrainResult result;
    std::vector<Matrix> best_weights;
    const DivergenceGuard<float> guard(params, best_weights, result.best_epoch);
    double max_acc = -1, min_loss = INFINITY;
    int since_improvement = 0;
    std::vector<double> epoch_seconds;
    int first_epoch = 1;
    double seconds_before = 0;  // a resumed run's earlier part
    if (const TrainState* r = options.checkpoint.resume_from) {
        restore_state(*r, params, adam, rng);
        best_weights = r->best_weights;
        max_acc = r->best_score;
        min_loss = r->best_loss;
        since_improvement = r->since_best;
        epoch_seconds = r->epoch_seconds;
        seconds_before = r->train_seconds;
        result.best_epoch = r->best_epoch;
        result.epochs_run = r->epoch;
        first_epoch = r->epoch + 1;
    }
    const auto t_start = std::chrono::steady_clock::now();
    const auto state_after = [&](int epoch) {
        TrainState st = capture_state(epoch, params, adam, rng);
        st.best_epoch = result.best_epoch;
        st.since_best = since_improvement;
        st.best_score = max_acc;
        st.best_loss = min_loss;
        st.best_weights = best_weights;
        st.epoch_seconds = epoch_seconds;
        st.train_seconds = seconds_before + seconds_since(t_start);
        return st;
    };
    // A run resumed from a state that had already stopped early trains no further epoch.
    const bool stopped_early = options.patience > 0 && since_improvement >= options.patience;

    for (int epoch = first_epoch; epoch <= options.epochs && !stopped_early; ++epoch) {
        const auto t0 = std::chrono::steady_clock::now();
        adam.zero_grad();
        Matrix augmented;
        if (options.augment) {
            augmented = features;
            options.augment(augmented, rng);
        }
        const Matrix logits = model.forward(graph, options.augment ? augmented : features, /*training=*/true, &rng);
        const LossResult<float> loss = softmax_cross_entropy(logits, labels, split.train);
        guard.check_loss(loss.loss, {.epoch = epoch});
        model.backward(loss.dlogits);
        guard.check_gradients({.epoch = epoch});
        adam.step();
        epoch_seconds.push_back(seconds_since(t0));

        const Matrix eval_logits = model.forward(graph, features, /*training=*/false);
        guard.check_outputs(eval_logits, "evaluation outputs", {.epoch = epoch});
        const std::vector<int> pred = argmax_rows(eval_logits);
        EpochStats s;
        s.epoch = epoch;
        s.train_loss = loss.loss;
        s.train_accuracy = accuracy(argmax_rows(logits), labels, split.train);
        s.val_loss = softmax_cross_entropy(eval_logits, labels, split.val).loss;
        s.val_accuracy = accuracy(pred, labels, split.val);
        s.seconds = epoch_seconds.back();
        // The GAT paper's rule: a checkpoint needs both the best accuracy and the lowest loss
        // so far; either one alone restarts the patience counter.
        const bool acc_up = s.val_accuracy >= max_acc, loss_down = s.val_loss <= min_loss;
        if (acc_up && loss_down) {
            result.best_epoch = epoch;
            best_weights.clear();
            for (const auto* p : params) best_weights.push_back(p->value);
            s.best = true;
        }
        if (acc_up || loss_down) {
            max_acc = std::max(max_acc, s.val_accuracy);
            min_loss = std::min(min_loss, s.val_loss);
            since_improvement = 0;
        } else {
            ++since_improvement;
        }
        result.epochs_run = epoch;
        if (on_epoch) on_epoch(s);
        if (checkpoint_due(options.checkpoint, epoch)) options.checkpoint.save(state_after(epoch));
        if (stop_requested(options.checkpoint)) interrupt_training(options.checkpoint, state_after(epoch));
        if (options.patience > 0 && since_improvement >= options.patience) break;
    }
    for (std::size_t k = 0; k < params.size(); ++k) params[k]->value = best_weights[k];
    result.train_seconds = seconds_before + seconds_since(t_start);
    result.epoch_seconds_median = median(epoch_seconds);

    const Matrix logits = model.forward(graph, features, /*training=*/false);
    const std::vector<int> pred = argmax_rows(logits);
    result.train_accuracy = accuracy(pred, labels, split.train);
    result.val_accuracy = accuracy(pred, labels, split.val);
    result.val_loss = softmax_cross_entropy(logits, labels, split.val).loss;
    result.test_accuracy = split.test.empty() ? 0.0 : accuracy(pred, labels, split.test);
    return result;
}

}  // namespace gatkit
