// Evaluation metrics.
#pragma once

#include "gatkit/core/types.hpp"

#include <vector>

namespace gatkit {

// Row-wise argmax.
std::vector<int> argmax_rows(const Matrix& scores);

// Fraction of `rows` whose predicted class equals the label; NaN-free: 0 rows gives 0.
double accuracy(const std::vector<int>& predicted, const std::vector<int>& labels, const std::vector<NodeId>& rows);

// ---- Metrics over flat vectors (graph tasks; one task at a time) --------------------------------
//
// Binary metrics take `labels` in {0, 1} and `scores` (probabilities or any monotone score); any
// other label value is a ConfigError, and vectors of different lengths a ShapeError. Each one
// gives the value of the scikit-learn function named beside it (sklearn 1.2).

// Area under the ROC curve = sklearn roc_auc_score. Computed as the Mann–Whitney statistic with
// tied scores given their average rank, which is exactly the trapezoidal area sklearn reports.
// Returns NaN when only one class is present (sklearn raises): the value is undefined there, and
// NaN lets a multi-task mean skip that task. A NaN score has no rank: NaN.  O(n log n).
double roc_auc(const std::vector<double>& scores, const std::vector<int>& labels);

// Average precision = sklearn average_precision_score: sum over distinct score thresholds
// (descending) of (R_k - R_{k-1}) * P_k, tied scores forming one threshold. Returns NaN when no
// label is positive (sklearn 1.2 warns and returns 0; the value is undefined), or when a score
// is NaN. O(n log n).
double pr_auc(const std::vector<double>& scores, const std::vector<int>& labels);

// Hard predictions for the binary metrics below: score > threshold is class 1 (the rule of
// sklearn's LogisticRegression.predict and chemprop at 0.5).
// Fraction of correct predictions = sklearn accuracy_score; 0 for empty input.
double binary_accuracy(const std::vector<double>& scores, const std::vector<int>& labels, double threshold = 0.5);
// F1 of class 1 = sklearn f1_score: 2TP / (2TP + FP + FN), 0 when that is 0/0.
double f1_binary(const std::vector<double>& scores, const std::vector<int>& labels, double threshold = 0.5);
// Matthews correlation = sklearn matthews_corrcoef: 0 when undefined (a row or column of the
// confusion matrix is empty).
double mcc_binary(const std::vector<double>& scores, const std::vector<int>& labels, double threshold = 0.5);

// Macro-averaged F1 over classes = sklearn f1_score(labels, pred, average="macro"): the mean of
// per-class F1 over the classes that occur in `labels` or `pred` (a class in neither is left out,
// as sklearn does); a class's F1 is 0 when it is 0/0. Values outside [0, num_classes) are a
// ConfigError. 0 for empty input.
double macro_f1(const std::vector<int>& pred, const std::vector<int>& labels, int num_classes);

// Regression metrics = sklearn mean_squared_error(squared=False), mean_absolute_error, r2_score.
// NaN for empty input. r2 follows sklearn's force_finite rule when the truth is constant:
// 1 for a perfect prediction, else 0.
double rmse(const std::vector<double>& pred, const std::vector<double>& truth);
double mae(const std::vector<double>& pred, const std::vector<double>& truth);
double r2(const std::vector<double>& pred, const std::vector<double>& truth);


// ---- Ranking metrics for link prediction (OGB's evaluators, shared negatives) --------------------
//
// Each positive pair's score is ranked against one shared list of negative pairs' scores. A NaN
// score is a ConfigError naming it (a ranking of NaN is undefined).

// OGB's Hits@K (ogb.linkproppred.Evaluator for ogbl-collab/ppa/ddi): the K-th highest negative
// score is the threshold, and the result is the fraction of positives scoring strictly above it.
// Fewer than K negatives: 1.0 (as OGB). No positives: NaN. K < 1: ConfigError.
// O(P + N) (nth_element on a copy of the negatives).
double hits_at_k(const std::vector<double>& pos_scores, const std::vector<double>& neg_scores, int k);

// Mean reciprocal rank of each positive among the shared negatives, ties counted half (OGB's
// rank rule: rank = 1 + (#{neg > s} + #{neg >= s}) / 2), averaged over positives in index order.
// No negatives: 1.0 (every rank is 1). No positives: NaN. Computed with a sorted copy of the
// negatives and two binary searches per positive: O((P + N) log N).
double mean_reciprocal_rank(const std::vector<double>& pos_scores, const std::vector<double>& neg_scores);

}  // namespace gatkit
