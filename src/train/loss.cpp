#include "gatkit/train/loss.hpp"

#include "gatkit/core/error.hpp"

#include <cmath>
#include <string>

namespace gatkit {

template <class T>
MatrixT<T> softmax_rows(const MatrixT<T>& logits) {
    MatrixT<T> p(logits.rows(), logits.cols());
    for (Eigen::Index i = 0; i < logits.rows(); ++i) {
        const T m = logits.row(i).maxCoeff();
        p.row(i) = (logits.row(i).array() - m).exp();
        p.row(i) /= p.row(i).sum();
    }
    return p;
}

template <class T>
LossResult<T> softmax_cross_entropy(const MatrixT<T>& logits, const std::vector<int>& labels, const std::vector<NodeId>& rows) {
    if (static_cast<Eigen::Index>(labels.size()) != logits.rows())
        throw ShapeError("softmax_cross_entropy: " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(logits.rows()) + " rows of logits");
    if (rows.empty()) throw ConfigError("softmax_cross_entropy: no rows selected");
    LossResult<T> r;
    r.dlogits = MatrixT<T>::Zero(logits.rows(), logits.cols());
    const T inv = T(1) / static_cast<T>(rows.size());
    double total = 0;  // accumulate in double: the mean of many small terms
    for (const NodeId i : rows) {
        const int y = labels[i];
        if (y < 0 || y >= logits.cols())
            throw ConfigError("softmax_cross_entropy: row " + std::to_string(i) + " has label " + std::to_string(y) +
                              ", expected 0 .. " + std::to_string(logits.cols() - 1));
        const T m = logits.row(i).maxCoeff();
        const T lse = m + std::log((logits.row(i).array() - m).exp().sum());
        total += static_cast<double>(lse - logits(i, y));
        r.dlogits.row(i) = (logits.row(i).array() - lse).exp() * inv;
        r.dlogits(i, y) -= inv;
    }
    r.loss = static_cast<T>(total / static_cast<double>(rows.size()));
    return r;
}

template LossResult<float> softmax_cross_entropy(const MatrixT<float>&, const std::vector<int>&, const std::vector<NodeId>&);
template LossResult<double> softmax_cross_entropy(const MatrixT<double>&, const std::vector<int>&, const std::vector<NodeId>&);
template MatrixT<float> softmax_rows(const MatrixT<float>&);
template MatrixT<double> softmax_rows(const MatrixT<double>&);

}  // namespace gatkit
