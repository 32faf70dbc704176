#include "gatkit/train/trainer.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/metrics.hpp"

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
    double max_acc = -1, min_loss = INFINITY;
    int since_improvement = 0;
    std::vector<double> epoch_seconds;
    const auto t_start = std::chrono::steady_clock::now();

    for (int epoch = 1; epoch <= options.epochs; ++epoch) {
        const auto t0 = std::chrono::steady_clock::now();
        adam.zero_grad();
        Matrix augmented;
        if (options.augment) {
            augmented = features;
            options.augment(augmented, rng);
        }
        const Matrix logits = model.forward(graph, options.augment ? augmented : features, /*training=*/true, &rng);
        const LossResult<float> loss = softmax_cross_entropy(logits, labels, split.train);
        if (!std::isfinite(loss.loss))
            throw Error("training diverged at epoch " + std::to_string(epoch) + ": loss is " + std::to_string(loss.loss) +
                        " (try a smaller --lr)");
        model.backward(loss.dlogits);
        adam.step();
        epoch_seconds.push_back(seconds_since(t0));

        const Matrix eval_logits = model.forward(graph, features, /*training=*/false);
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
        if (options.patience > 0 && since_improvement >= options.patience) break;
    }
    for (std::size_t k = 0; k < params.size(); ++k) params[k]->value = best_weights[k];
    result.train_seconds = seconds_since(t_start);
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
