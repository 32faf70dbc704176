// Evaluation metrics.
#pragma once

#include "gatkit/core/types.hpp"

#include <vector>

namespace gatkit {

// Row-wise argmax.
std::vector<int> argmax_rows(const Matrix& scores);

// Fraction of `rows` whose predicted class equals the label; NaN-free: 0 rows gives 0.
double accuracy(const std::vector<int>& predicted, const std::vector<int>& labels, const std::vector<NodeId>& rows);

}  // namespace gatkit
