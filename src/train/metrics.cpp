#include "gatkit/train/metrics.hpp"

#include "gatkit/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>

namespace gatkit {

std::vector<int> argmax_rows(const Matrix& scores) {
    std::vector<int> out(static_cast<std::size_t>(scores.rows()));
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        Eigen::Index k = 0;
        scores.row(i).maxCoeff(&k);
        out[i] = static_cast<int>(k);
    }
    return out;
}

double accuracy(const std::vector<int>& predicted, const std::vector<int>& labels, const std::vector<NodeId>& rows) {
    if (rows.empty()) return 0.0;
    std::size_t hit = 0;
    for (const NodeId i : rows) hit += predicted[i] == labels[i];
    return static_cast<double>(hit) / static_cast<double>(rows.size());
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class A, class B>
void check_same_length(const char* what, const std::vector<A>& a, const std::vector<B>& b) {
    if (a.size() != b.size())
        throw ShapeError(std::string(what) + ": " + std::to_string(a.size()) + " predictions but " + std::to_string(b.size()) +
                         " labels");
}

void check_binary_labels(const char* what, const std::vector<int>& labels) {
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] != 0 && labels[i] != 1)
            throw ConfigError(std::string(what) + ": label " + std::to_string(labels[i]) + " at index " + std::to_string(i) +
                              ", expected 0 or 1");
}

bool any_nan(const std::vector<double>& scores) {
    return std::any_of(scores.begin(), scores.end(), [](double s) { return std::isnan(s); });
}

// Row order by descending score; ties keep index order (the grouping below does not depend on it).
std::vector<std::size_t> order_by_descending_score(const std::vector<double>& scores) {
    std::vector<std::size_t> order(scores.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    return order;
}

struct Confusion {
    double tp = 0, fp = 0, tn = 0, fn = 0;
};

Confusion confusion(const char* what, const std::vector<double>& scores, const std::vector<int>& labels, double threshold) {
    check_same_length(what, scores, labels);
    check_binary_labels(what, labels);
    Confusion c;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        const bool predicted = scores[i] > threshold;
        if (labels[i] == 1)
            (predicted ? c.tp : c.fn) += 1;
        else
            (predicted ? c.fp : c.tn) += 1;
    }
    return c;
}

}  // namespace

double roc_auc(const std::vector<double>& scores, const std::vector<int>& labels) {
    check_same_length("roc_auc", scores, labels);
    check_binary_labels("roc_auc", labels);
    // NaN has no rank (and would stall the tie grouping below: NaN != NaN)
    if (any_nan(scores)) return kNaN;
    const auto order = order_by_descending_score(scores);
    const double n = static_cast<double>(scores.size());
    // Mann–Whitney: AUC = (sum of the positives' ascending ranks - P(P+1)/2) / (P N). A group of
    // tied scores shares the average of the ranks it spans, which counts each positive–negative
    // tie as one half, as the trapezoid through a tied ROC segment does.
    double positives = 0, rank_sum = 0;
    std::size_t start = 0;
    while (start < order.size()) {
        std::size_t end = start;
        double group_positives = 0;
        while (end < order.size() && scores[order[end]] == scores[order[start]]) group_positives += labels[order[end++]];
        // descending positions start..end-1 are ascending ranks n-end+1 .. n-start
        const double average_rank = n - 0.5 * static_cast<double>(start + end - 1);
        rank_sum += group_positives * average_rank;
        positives += group_positives;
        start = end;
    }
    const double negatives = n - positives;
    if (positives == 0 || negatives == 0) return kNaN;
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives);
}

double pr_auc(const std::vector<double>& scores, const std::vector<int>& labels) {
    check_same_length("pr_auc", scores, labels);
    check_binary_labels("pr_auc", labels);
    const double positives = std::accumulate(labels.begin(), labels.end(), 0.0);
    if (positives == 0 || any_nan(scores)) return kNaN;
    const auto order = order_by_descending_score(scores);
    double tp = 0, seen = 0, recall_before = 0, ap = 0;
    std::size_t start = 0;
    while (start < order.size()) {
        std::size_t end = start;
        while (end < order.size() && scores[order[end]] == scores[order[start]]) tp += labels[order[end++]];
        seen = static_cast<double>(end);
        const double recall = tp / positives;
        ap += (recall - recall_before) * (tp / seen);
        recall_before = recall;
        start = end;
    }
    return ap;
}

double binary_accuracy(const std::vector<double>& scores, const std::vector<int>& labels, double threshold) {
    const Confusion c = confusion("binary_accuracy", scores, labels, threshold);
    if (scores.empty()) return 0.0;
    return (c.tp + c.tn) / static_cast<double>(scores.size());
}

double f1_binary(const std::vector<double>& scores, const std::vector<int>& labels, double threshold) {
    const Confusion c = confusion("f1_binary", scores, labels, threshold);
    const double denominator = 2 * c.tp + c.fp + c.fn;
    return denominator == 0 ? 0.0 : 2 * c.tp / denominator;
}

double mcc_binary(const std::vector<double>& scores, const std::vector<int>& labels, double threshold) {
    const Confusion c = confusion("mcc_binary", scores, labels, threshold);
    const double denominator = (c.tp + c.fp) * (c.tp + c.fn) * (c.tn + c.fp) * (c.tn + c.fn);
    if (denominator == 0) return 0.0;
    return (c.tp * c.tn - c.fp * c.fn) / std::sqrt(denominator);
}

double macro_f1(const std::vector<int>& pred, const std::vector<int>& labels, int num_classes) {
    check_same_length("macro_f1", pred, labels);
    if (num_classes < 1) throw ConfigError("macro_f1: num_classes = " + std::to_string(num_classes) + ", expected >= 1");
    const auto K = static_cast<std::size_t>(num_classes);
    std::vector<double> tp(K, 0), predicted(K, 0), actual(K, 0);
    for (std::size_t i = 0; i < pred.size(); ++i) {
        for (const auto& [name, v] : {std::pair{"prediction", pred[i]}, std::pair{"label", labels[i]}})
            if (v < 0 || v >= num_classes)
                throw ConfigError(std::string("macro_f1: ") + name + " " + std::to_string(v) + " at index " + std::to_string(i) +
                                  ", expected 0.." + std::to_string(num_classes - 1));
        predicted[static_cast<std::size_t>(pred[i])] += 1;
        actual[static_cast<std::size_t>(labels[i])] += 1;
        if (pred[i] == labels[i]) tp[static_cast<std::size_t>(pred[i])] += 1;
    }
    double sum = 0;
    int present = 0;
    for (std::size_t k = 0; k < K; ++k) {
        if (predicted[k] + actual[k] == 0) continue;
        sum += 2 * tp[k] / (predicted[k] + actual[k]);
        ++present;
    }
    return present == 0 ? 0.0 : sum / present;
}

double rmse(const std::vector<double>& pred, const std::vector<double>& truth) {
    check_same_length("rmse", pred, truth);
    if (pred.empty()) return kNaN;
    double sum = 0;
    for (std::size_t i = 0; i < pred.size(); ++i) sum += (pred[i] - truth[i]) * (pred[i] - truth[i]);
    return std::sqrt(sum / static_cast<double>(pred.size()));
}

double mae(const std::vector<double>& pred, const std::vector<double>& truth) {
    check_same_length("mae", pred, truth);
    if (pred.empty()) return kNaN;
    double sum = 0;
    for (std::size_t i = 0; i < pred.size(); ++i) sum += std::abs(pred[i] - truth[i]);
    return sum / static_cast<double>(pred.size());
}

double r2(const std::vector<double>& pred, const std::vector<double>& truth) {
    check_same_length("r2", pred, truth);
    if (pred.empty()) return kNaN;
    const double mean = std::accumulate(truth.begin(), truth.end(), 0.0) / static_cast<double>(truth.size());
    double residual = 0, total = 0;
    for (std::size_t i = 0; i < pred.size(); ++i) {
        residual += (truth[i] - pred[i]) * (truth[i] - pred[i]);
        total += (truth[i] - mean) * (truth[i] - mean);
    }
    if (total == 0) return residual == 0 ? 1.0 : 0.0;  // sklearn's force_finite: constant truth
    return 1.0 - residual / total;
}


// ---- Ranking metrics for link prediction --------------------------------------------------------

namespace {

void check_not_nan(const char* what, const char* which, const std::vector<double>& scores) {
    for (std::size_t i = 0; i < scores.size(); ++i)
        if (std::isnan(scores[i]))
            throw ConfigError(std::string(what) + ": " + which + " score " + std::to_string(i) + " is NaN");
}

}  // namespace

double hits_at_k(const std::vector<double>& pos_scores, const std::vector<double>& neg_scores, int k) {
    if (k < 1) throw ConfigError("hits_at_k: K = " + std::to_string(k) + ", expected K >= 1");
    check_not_nan("hits_at_k", "positive", pos_scores);
    check_not_nan("hits_at_k", "negative", neg_scores);
    const auto K = static_cast<std::size_t>(k);
    // OGB returns 1 here: with fewer than K negatives every positive is in the top K.
    if (neg_scores.size() < K) return 1.0;
    if (pos_scores.empty()) return kNaN;
    std::vector<double> negatives = neg_scores;
    std::nth_element(negatives.begin(), negatives.begin() + static_cast<std::ptrdiff_t>(K - 1), negatives.end(),
                     std::greater<>());
    const double threshold = negatives[K - 1];  // the K-th highest negative score
    const auto above = std::count_if(pos_scores.begin(), pos_scores.end(), [&](double s) { return s > threshold; });
    return static_cast<double>(above) / static_cast<double>(pos_scores.size());
}

double mean_reciprocal_rank(const std::vector<double>& pos_scores, const std::vector<double>& neg_scores) {
    check_not_nan("mean_reciprocal_rank", "positive", pos_scores);
    check_not_nan("mean_reciprocal_rank", "negative", neg_scores);
    if (pos_scores.empty()) return kNaN;
    std::vector<double> negatives = neg_scores;
    std::sort(negatives.begin(), negatives.end());
    double sum = 0;
    for (const double s : pos_scores) {
        // #{neg >= s} and #{neg > s}: the negatives at or after the first >= s / the first > s.
        const auto first_at_least = std::lower_bound(negatives.begin(), negatives.end(), s);
        const auto first_above = std::upper_bound(first_at_least, negatives.end(), s);
        const auto at_least = static_cast<double>(negatives.end() - first_at_least);
        const auto above = static_cast<double>(negatives.end() - first_above);
        sum += 1.0 / (1.0 + 0.5 * (above + at_least));
    }
    return sum / static_cast<double>(pos_scores.size());
}

}  // namespace gatkit
