#include "gatkit/train/metrics.hpp"

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

}  // namespace gatkit
