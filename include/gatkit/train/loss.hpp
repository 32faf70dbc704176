// Losses: value and gradient with respect to the logits, computed together.
#pragma once

#include "gatkit/core/types.hpp"

#include <vector>

namespace gatkit {

template <class T>
struct LossResult {
    T loss = 0;          // mean over the selected rows
    MatrixT<T> dlogits;  // N×K, zero outside the selected rows
};

// Softmax cross-entropy over the rows listed in `rows` (a node mask):
//   loss = -(1/|rows|) Σ_{i ∈ rows} log softmax(logits_i)[labels_i]
//   dlogits_i = (softmax(logits_i) - onehot(labels_i)) / |rows|
// log-softmax uses the log-sum-exp form (row max subtracted), so logits of ±1e4 are fine.
template <class T>
LossResult<T> softmax_cross_entropy(const MatrixT<T>& logits, const std::vector<int>& labels, const std::vector<NodeId>& rows);

// Row-wise softmax probabilities (stable form).
template <class T>
MatrixT<T> softmax_rows(const MatrixT<T>& logits);

}  // namespace gatkit
