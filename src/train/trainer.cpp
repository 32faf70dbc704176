#include "gatkit/train/trainer.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/metrics.hpp"
#include "gatkit/train/numerics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

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

    // Kept epoch: the GAT paper's rule below; best_score is the highest validation accuracy so far,
    // best_loss the lowest validation loss.
    LoopState loop(params, adam, rng, options.checkpoint, -1.0, INFINITY);
    const DivergenceGuard<float> guard(params, loop.best_weights, loop.best_epoch);
    // Mostly-zero features (bag of words: Cora is 1.3 % non-zero) go in as sparse rows: the same
    // model with an O(nnz) first-layer product and input dropout (core/sparse.hpp).
    std::optional<SparseRows> sparse;
    if (!options.augment && model.takes_sparse_input() && density(features) <= kSparseInputDensity)
        sparse = SparseRows::from_dense(features);
    const auto forward = [&](const Matrix& x, bool training, Rng* r) {
        return sparse ? model.forward(graph, *sparse, training, r) : model.forward(graph, x, training, r);
    };

    for (int epoch = loop.first_epoch(); epoch <= options.epochs && !loop.out_of_patience(options.patience); ++epoch) {
        const auto t0 = std::chrono::steady_clock::now();
        adam.zero_grad();
        Matrix augmented;
        if (options.augment) {
            augmented = features;
            options.augment(augmented, rng);
        }
        const Matrix logits = forward(options.augment ? augmented : features, /*training=*/true, &rng);
        const LossResult<float> loss = softmax_cross_entropy(logits, labels, split.train);
        guard.check_loss(loss.loss, {.epoch = epoch});
        model.backward(loss.dlogits);
        guard.check_gradients({.epoch = epoch});
        adam.step();
        loop.epoch_seconds.push_back(seconds_since(t0));

        const Matrix eval_logits = forward(features, /*training=*/false, nullptr);
        guard.check_outputs(eval_logits, "evaluation outputs", {.epoch = epoch});
        const std::vector<int> pred = argmax_rows(eval_logits);
        EpochStats s;
        s.epoch = epoch;
        s.train_loss = loss.loss;
        s.train_accuracy = accuracy(argmax_rows(logits), labels, split.train);
        s.val_loss = softmax_cross_entropy(eval_logits, labels, split.val).loss;
        s.val_accuracy = accuracy(pred, labels, split.val);
        s.seconds = loop.epoch_seconds.back();
        // The GAT paper's rule: a checkpoint needs both the best accuracy and the lowest loss
        // so far; either one alone restarts the patience counter.
        const bool acc_up = s.val_accuracy >= loop.best_score, loss_down = s.val_loss <= loop.best_loss;
        if (acc_up && loss_down) {
            loop.keep_best(epoch);
            s.best = true;
        }
        if (acc_up || loss_down) {
            loop.best_score = std::max(loop.best_score, s.val_accuracy);
            loop.best_loss = std::min(loop.best_loss, s.val_loss);
            loop.since_best = 0;
        } else {
            ++loop.since_best;
        }
        if (on_epoch) on_epoch(s);
        loop.end_epoch(epoch);
        if (loop.out_of_patience(options.patience)) break;
    }
    NodeTrainResult result = finish_run<NodeTrainResult>(loop);

    const Matrix logits = forward(features, /*training=*/false, nullptr);
    const std::vector<int> pred = argmax_rows(logits);
    result.train_accuracy = accuracy(pred, labels, split.train);
    result.val_accuracy = accuracy(pred, labels, split.val);
    result.val_loss = softmax_cross_entropy(logits, labels, split.val).loss;
    result.test_accuracy = split.test.empty() ? 0.0 : accuracy(pred, labels, split.test);
    return result;
}

}  // namespace gatkit
