// Linear layer: y = x · W + b.
//
//   x  N×F   W  F×O (stored input-major so the forward product streams rows of x)   b  1×O
//   y  N×O
// Cost: O(N·F·O) time forward and backward; no extra memory beyond the cached input.
// Matches torch.nn.Linear (whose weight is the transpose, O×F) with Glorot init as PyG's Linear.
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"

#include <string>

namespace gatkit {

struct LinearOptions {
    Eigen::Index in = 0;
    Eigen::Index out = 0;
    bool bias = true;
};

template <class T>
struct LinearCache {
    MatrixT<T> x;  // N×F, the input (needed for dW)
};

template <class T>
class LinearT {
public:
    LinearT(const LinearOptions& options, Rng& rng, const std::string& name = "linear");

    MatrixT<T> forward(const MatrixT<T>& x, LinearCache<T>& cache) const;
    // Accumulates dW, db; returns dx unless need_dx is false (first layer).
    MatrixT<T> backward(const MatrixT<T>& dy, const LinearCache<T>& cache, bool need_dx = true);

    void parameters(ParameterList<T>& out);
    const LinearOptions& options() const { return options_; }
    ParameterT<T>& weight() { return weight_; }
    ParameterT<T>& bias() { return bias_; }

private:
    LinearOptions options_;
    ParameterT<T> weight_;
    ParameterT<T> bias_;
};

using Linear = LinearT<float>;

}  // namespace gatkit
