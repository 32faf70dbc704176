#include "gatkit/train/loss.hpp"

#include "gatkit/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

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
        // log-sum-exp on the shifted logits z − max (all ≤ 0, the largest exactly 0), never
        // adding the max back: max + log Σ rounds away log Σ when |max| is large (at 1e4 in
        // float an error of 4e-4 in the loss; at 1e30 the loss of equal logits came out 0).
        const T m = logits.row(i).maxCoeff();
        const auto shifted = (logits.row(i).array() - m).eval();
        const T log_sum = std::log(shifted.exp().sum());
        total += static_cast<double>(log_sum - shifted(y));
        r.dlogits.row(i) = (shifted - log_sum).exp() * inv;
        r.dlogits(i, y) -= inv;
    }
    r.loss = static_cast<T>(total / static_cast<double>(rows.size()));
    return r;
}

template <class T>
LossResult<T> softmax_cross_entropy_rows(const MatrixT<T>& logits, const std::vector<int>& labels) {
    std::vector<NodeId> rows(static_cast<std::size_t>(logits.rows()));
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<NodeId>(i);
    return softmax_cross_entropy(logits, labels, rows);
}

namespace {

template <class T>
std::size_t count_present(const char* who, const MatrixT<T>& pred, const MatrixT<T>& targets) {
    if (pred.rows() != targets.rows() || pred.cols() != targets.cols())
        throw ShapeError(std::string(who) + ": predictions are " + std::to_string(pred.rows()) + "x" + std::to_string(pred.cols()) +
                         ", targets " + std::to_string(targets.rows()) + "x" + std::to_string(targets.cols()));
    std::size_t present = 0;
    for (Eigen::Index k = 0; k < targets.size(); ++k) present += !std::isnan(targets.data()[k]);
    if (present == 0)
        throw ConfigError(std::string(who) + ": all " + std::to_string(targets.size()) + " targets are missing (NaN)");
    return present;
}

}  // namespace

template <class T>
LossResult<T> bce_with_logits(const MatrixT<T>& logits, const MatrixT<T>& targets) {
    const std::size_t present = count_present("bce_with_logits", logits, targets);
    LossResult<T> r;
    r.dlogits = MatrixT<T>::Zero(logits.rows(), logits.cols());
    const T inv = T(1) / static_cast<T>(present);
    // Fixed chunks, each summed in double (the mean of many small terms), then the chunk sums in
    // order: the same loss bits for any thread count. Chunks dealt out in turn (static, 1): a
    // link batch is its positives, then its negatives, whose terms cost more (log1p of larger
    // values), and halves would leave one thread with all of them.
    constexpr Eigen::Index kChunk = 4096;
    const Eigen::Index n = logits.size(), chunks = (n + kChunk - 1) / kChunk;
    std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
#pragma omp parallel for schedule(static, 1) if (n >= 4 * kChunk)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        double sum = 0;
        // In float, the terms log(1 + e^−|z|) are summed as the log of their product, taken in
        // double: each factor lies in (1, 2], so 256 of them stay below 2^256, and one log per
        // 256 terms replaces 256 calls of glibc's scalar log1pf (an ego-Facebook epoch's 150k
        // logits: 9.3M of its ~350M instructions). The product's rounding (≤ 256 double ulps) is
        // far below what the float terms it replaces carried. The gradient does not use this sum.
        double product = 1;
        int factors = 0;
        for (Eigen::Index k = c * kChunk; k < std::min(n, (c + 1) * kChunk); ++k) {
            const T y = targets.data()[k];
            if (std::isnan(y)) continue;  // missing label: no loss, no gradient
            const T z = logits.data()[k];
            // −[y log σ(z) + (1−y) log(1−σ(z))] rearranged so exp only sees −|z| ≤ 0.
            const T ez = std::exp(-std::abs(z));
            if constexpr (std::is_same_v<T, float>) {
                sum += static_cast<double>(std::max(z, T(0)) - z * y);
                product *= 1.0 + static_cast<double>(ez);
                if (++factors == 256) {
                    sum += std::log(product);
                    product = 1;
                    factors = 0;
                }
            } else {
                sum += static_cast<double>(std::max(z, T(0)) - z * y + std::log1p(ez));
            }
            // σ(z) through the same exp(−|z|): for z ≥ 0, 1/(1+e^−z); for z < 0, e^z/(1+e^z).
            const T sigmoid = z >= T(0) ? T(1) / (T(1) + ez) : ez / (T(1) + ez);
            r.dlogits.data()[k] = (sigmoid - y) * inv;
        }
        if (factors > 0) sum += std::log(product);
        partial[static_cast<std::size_t>(c)] = sum;
    }
    double total = 0;
    for (double p : partial) total += p;
    r.loss = static_cast<T>(total / static_cast<double>(present));
    return r;
}

template <class T>
LossResult<T> mse(const MatrixT<T>& pred, const MatrixT<T>& targets) {
    const std::size_t present = count_present("mse", pred, targets);
    LossResult<T> r;
    r.dlogits = MatrixT<T>::Zero(pred.rows(), pred.cols());
    const T inv = T(1) / static_cast<T>(present);
    double total = 0;
    for (Eigen::Index k = 0; k < pred.size(); ++k) {
        const T y = targets.data()[k];
        if (std::isnan(y)) continue;
        const T diff = pred.data()[k] - y;
        total += static_cast<double>(diff) * static_cast<double>(diff);
        r.dlogits.data()[k] = T(2) * diff * inv;
    }
    r.loss = static_cast<T>(total / static_cast<double>(present));
    return r;
}

template LossResult<float> softmax_cross_entropy(const MatrixT<float>&, const std::vector<int>&, const std::vector<NodeId>&);
template LossResult<double> softmax_cross_entropy(const MatrixT<double>&, const std::vector<int>&, const std::vector<NodeId>&);
template LossResult<float> softmax_cross_entropy_rows(const MatrixT<float>&, const std::vector<int>&);
template LossResult<double> softmax_cross_entropy_rows(const MatrixT<double>&, const std::vector<int>&);
template LossResult<float> bce_with_logits(const MatrixT<float>&, const MatrixT<float>&);
template LossResult<double> bce_with_logits(const MatrixT<double>&, const MatrixT<double>&);
template LossResult<float> mse(const MatrixT<float>&, const MatrixT<float>&);
template LossResult<double> mse(const MatrixT<double>&, const MatrixT<double>&);
template MatrixT<float> softmax_rows(const MatrixT<float>&);
template MatrixT<double> softmax_rows(const MatrixT<double>&);

}  // namespace gatkit
