// Losses: value and gradient with respect to the logits, computed together.
#pragma once

#include "gatkit/core/types.hpp"

#include <vector>

namespace gatkit {

template <class T>
struct LossResult {
    T loss = 0;          // mean over the selected rows (or present labels)
    MatrixT<T> dlogits;  // N×K, zero outside the selected rows (or at missing labels)
};

// Softmax cross-entropy over the rows listed in `rows` (a node mask):
//   loss = -(1/|rows|) Σ_{i ∈ rows} log softmax(logits_i)[labels_i]
//   dlogits_i = (softmax(logits_i) - onehot(labels_i)) / |rows|
// log-softmax uses the log-sum-exp form on the shifted logits z − max(z) (the max is never added
// back, which would round log Σ away), so logits of ±1e4 or −1e30 give the right finite value.
template <class T>
LossResult<T> softmax_cross_entropy(const MatrixT<T>& logits, const std::vector<int>& labels, const std::vector<NodeId>& rows);

// softmax_cross_entropy over every row (graph classification: one row per graph).
template <class T>
LossResult<T> softmax_cross_entropy_rows(const MatrixT<T>& logits, const std::vector<int>& labels);

// Multi-task binary classification (one logit per task), missing labels allowed:
//   targets B×T in {0, 1}, NaN = missing; P = the present entries
//   loss = (1/|P|) Σ_{(b,t) ∈ P} max(z,0) − z·y + log(1 + exp(−|z|))     (= BCE of sigmoid(z), stable)
//   dlogits_bt = (sigmoid(z_bt) − y_bt) / |P| on P, 0 at missing labels
// The form never exponentiates a positive number, so logits of ±1e4 are fine. No present label
// at all is a ConfigError (a mean over nothing); shapes that differ are a ShapeError.
template <class T>
LossResult<T> bce_with_logits(const MatrixT<T>& logits, const MatrixT<T>& targets);

// Regression, masked the same way: loss = (1/|P|) Σ_P (pred − y)², dpred = 2 (pred − y) / |P|.
template <class T>
LossResult<T> mse(const MatrixT<T>& pred, const MatrixT<T>& targets);

// Row-wise softmax probabilities (stable form).
template <class T>
MatrixT<T> softmax_rows(const MatrixT<T>& logits);

}  // namespace gatkit
