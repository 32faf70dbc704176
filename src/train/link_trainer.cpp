#include "gatkit/train/link_trainer.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/metrics.hpp"
#include "gatkit/train/numerics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace gatkit {

std::map<std::string, double> link_metrics(const std::vector<double>& pos_scores, const std::vector<double>& neg_scores) {
    std::vector<double> scores = pos_scores;
    scores.insert(scores.end(), neg_scores.begin(), neg_scores.end());
    std::vector<int> labels(pos_scores.size(), 1);
    labels.resize(scores.size(), 0);
    if (std::any_of(scores.begin(), scores.end(), [](double s) { return std::isnan(s); })) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        return {{"roc_auc", nan}, {"pr_auc", nan}, {"hits@20", nan}, {"hits@50", nan}, {"hits@100", nan}, {"mrr", nan}};
    }
    return {{"roc_auc", roc_auc(scores, labels)},
            {"pr_auc", pr_auc(scores, labels)},
            {"hits@20", hits_at_k(pos_scores, neg_scores, 20)},
            {"hits@50", hits_at_k(pos_scores, neg_scores, 50)},
            {"hits@100", hits_at_k(pos_scores, neg_scores, 100)},
            {"mrr", mean_reciprocal_rank(pos_scores, neg_scores)}};
}

namespace {

std::vector<NodePair> concat(const std::vector<NodePair>& a, const std::vector<NodePair>& b) {
    std::vector<NodePair> out = a;
    out.insert(out.end(), b.begin(), b.end());
    return out;
}

std::vector<double> column(const Matrix& m, Eigen::Index from, Eigen::Index count) {
    std::vector<double> out(static_cast<std::size_t>(count));
    for (Eigen::Index k = 0; k < count; ++k) out[k] = m(from + k, 0);
    return out;
}

// Scores of fixed positive and negative pairs on the model's current z.
std::map<std::string, double> evaluate_links(LinkModel& model, const std::vector<NodePair>& pos, const std::vector<NodePair>& neg) {
    const Matrix s = model.decode(concat(pos, neg), /*training=*/false);
    const auto P = static_cast<Eigen::Index>(pos.size());
    return link_metrics(column(s, 0, P), column(s, P, static_cast<Eigen::Index>(neg.size())));
}

void check_options(const LinkTrainOptions& o) {
    if (o.epochs < 1) throw ConfigError("epochs must be at least 1, got " + std::to_string(o.epochs));
}

// The training-mode encode of one epoch, on an augmented copy of x when the options ask for one.
void encode_for_training(LinkModel& model, const Graph& graph, const Matrix& x, const LinkTrainOptions& options, Rng& rng) {
    if (!options.augment) {
        model.encode(graph, x, /*training=*/true, &rng);
        return;
    }
    Matrix xa = x;
    options.augment(xa, rng);
    model.encode(graph, xa, /*training=*/true, &rng);
}

}  // namespace

LinkTrainResult train_link_predictor(LinkModel& model, const Graph& graph, const Matrix& x, const LinkSplit& split,
                                     const NegativeSampler& sampler, const LinkTrainOptions& options,
                                     const LinkEpochCallback& on_epoch) {
    check_options(options);
    if (split.train_pos.empty()) throw GraphError("link training needs at least one training edge");
    if (split.val_pos.empty() || split.val_neg.empty())
        throw GraphError("link training needs validation edges for early stopping (the split gave none)");
    auto params = model.parameters();
    AdamT<float> adam(params, options.adam);
    Rng rng(options.seed);
    const auto P = static_cast<Eigen::Index>(split.train_pos.size());
    Matrix targets(2 * P, 1);
    targets.topRows(P).setOnes();
    targets.bottomRows(P).setZero();
    // An epoch's batch: the training positives, then the epoch's negatives drawn into the slots
    // after them (one buffer for every epoch, not a concatenation each time).
    std::vector<NodePair> batch = split.train_pos;
    batch.resize(2 * split.train_pos.size());

    // Kept epoch: the highest validation ROC-AUC (best_score).
    LoopState loop(params, adam, rng, options.checkpoint, -1.0, std::numeric_limits<double>::quiet_NaN());
    const DivergenceGuard<float> guard(params, loop.best_weights, loop.best_epoch);
    for (int epoch = loop.first_epoch(); epoch <= options.epochs && !loop.out_of_patience(options.patience); ++epoch) {
        const auto t0 = std::chrono::steady_clock::now();
        sampler.sample_into(split.train_pos.size(), rng, batch.data() + split.train_pos.size());
        adam.zero_grad();
        encode_for_training(model, graph, x, options, rng);
        const Matrix logits = model.decode(batch, /*training=*/true, &rng);
        const LossResult<float> loss = bce_with_logits(logits, targets);
        guard.check_loss(loss.loss, {.epoch = epoch});
        model.backward(loss.dlogits);
        guard.check_gradients({.epoch = epoch});
        adam.step();
        loop.epoch_seconds.push_back(seconds_since(t0));

        guard.check_outputs(model.encode(graph, x, /*training=*/false), "node vectors", {.epoch = epoch});
        const auto val = evaluate_links(model, split.val_pos, split.val_neg);
        LinkEpochStats s{.epoch = epoch, .loss = loss.loss, .val_metric = val.at("roc_auc"), .seconds = loop.epoch_seconds.back()};
        if (s.val_metric > loop.best_score) {
            loop.best_score = s.val_metric;
            loop.keep_best(epoch);
            s.best = true;
        } else {
            ++loop.since_best;
        }
        if (on_epoch) on_epoch(s);
        loop.end_epoch(epoch);
        if (loop.out_of_patience(options.patience)) break;
    }
    LinkTrainResult result = finish_run<LinkTrainResult>(loop);
    model.node_vectors = model.encode(graph, x, /*training=*/false);
    result.val = evaluate_links(model, split.val_pos, split.val_neg);
    if (!split.test_pos.empty() && !split.test_neg.empty()) result.test = evaluate_links(model, split.test_pos, split.test_neg);
    return result;
}

namespace {

std::map<std::string, double> edge_metrics(const Matrix& logits, const std::vector<int>& labels, int num_classes) {
    const std::vector<int> pred = argmax_rows(logits);
    std::vector<NodeId> rows(labels.size());
    for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = static_cast<NodeId>(k);
    return {{"accuracy", accuracy(pred, labels, rows)},
            {"macro_f1", macro_f1(pred, labels, num_classes)},
            {"loss", softmax_cross_entropy(logits, labels, rows).loss}};
}

}  // namespace

LinkTrainResult train_edge_classifier(LinkModel& model, const Graph& graph, const Matrix& x, const EdgeSplit& split,
                                      const LinkTrainOptions& options, const LinkEpochCallback& on_epoch) {
    check_options(options);
    if (split.train.empty() || split.val.empty()) throw GraphError("edge classification needs training and validation edges");
    const int K = model.config().num_classes;
    auto params = model.parameters();
    AdamT<float> adam(params, options.adam);
    Rng rng(options.seed);
    std::vector<NodeId> rows(split.train.size());
    for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = static_cast<NodeId>(k);

    // Kept epoch: the highest validation accuracy (best_score), a tie going to the lower loss (best_loss).
    LoopState loop(params, adam, rng, options.checkpoint, -1.0, INFINITY);
    const DivergenceGuard<float> guard(params, loop.best_weights, loop.best_epoch);
    for (int epoch = loop.first_epoch(); epoch <= options.epochs && !loop.out_of_patience(options.patience); ++epoch) {
        const auto t0 = std::chrono::steady_clock::now();
        adam.zero_grad();
        encode_for_training(model, graph, x, options, rng);
        const Matrix logits = model.decode(split.train, /*training=*/true, &rng);
        const LossResult<float> loss = softmax_cross_entropy(logits, split.train_labels, rows);
        guard.check_loss(loss.loss, {.epoch = epoch});
        model.backward(loss.dlogits);
        guard.check_gradients({.epoch = epoch});
        adam.step();
        loop.epoch_seconds.push_back(seconds_since(t0));

        model.encode(graph, x, /*training=*/false);
        const Matrix val_logits = model.decode(split.val, false);
        guard.check_outputs(val_logits, "validation outputs", {.epoch = epoch});
        const auto val = edge_metrics(val_logits, split.val_labels, K);
        LinkEpochStats s{.epoch = epoch, .loss = loss.loss, .val_metric = val.at("accuracy"), .seconds = loop.epoch_seconds.back()};
        if (s.val_metric > loop.best_score || (s.val_metric == loop.best_score && val.at("loss") < loop.best_loss)) {
            loop.best_score = s.val_metric;
            loop.best_loss = val.at("loss");
            loop.keep_best(epoch);
            s.best = true;
        } else {
            ++loop.since_best;
        }
        if (on_epoch) on_epoch(s);
        loop.end_epoch(epoch);
        if (loop.out_of_patience(options.patience)) break;
    }
    LinkTrainResult result = finish_run<LinkTrainResult>(loop);
    model.node_vectors = model.encode(graph, x, /*training=*/false);
    // The majority class of the training edges: the baseline every edge classifier must beat.
    std::vector<int> counts(static_cast<std::size_t>(K), 0);
    for (int y : split.train_labels) ++counts[static_cast<std::size_t>(y)];
    const int majority = static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
    const auto fill = [&](const std::vector<NodePair>& pairs, const std::vector<int>& labels) {
        std::map<std::string, double> m = edge_metrics(model.decode(pairs, false), labels, K);
        const std::vector<int> constant(labels.size(), majority);
        std::vector<NodeId> all(labels.size());
        for (std::size_t k = 0; k < all.size(); ++k) all[k] = static_cast<NodeId>(k);
        m["majority_accuracy"] = accuracy(constant, labels, all);
        m["majority_macro_f1"] = macro_f1(constant, labels, K);
        return m;
    };
    result.val = fill(split.val, split.val_labels);
    if (!split.test.empty()) result.test = fill(split.test, split.test_labels);
    return result;
}

}  // namespace gatkit
