// Two-layer perceptron, the head after pooling or on node/edge vectors:
//
//   z   = x · W0 + b0                 N×hidden   (<name>.0, Linear)
//   a   = act(z)                      N×hidden
//   a'  = dropout(a, dropout)         N×hidden   (training only, counter-based mask)
//   y   = a' · W1 + b1                N×out      (<name>.3, Linear)
//
// The parameter names follow torch.nn.Sequential(Linear, act, Dropout, Linear), whose state
// dict numbers every module: "<name>.0.weight", "<name>.0.bias", "<name>.3.weight", "<name>.3.bias"
// (weights stored input-major, the transpose of torch's, as in linear.hpp).
// Cost: O(N·(in + out)·hidden) time; the cache keeps x, z and a' (N×(in + 2·hidden)).
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/nn/activation.hpp"
#include "gatkit/nn/dropout.hpp"
#include "gatkit/nn/linear.hpp"

#include <string>

namespace gatkit {

struct MlpOptions {
    Eigen::Index in = 0, hidden = 0, out = 0;
    double dropout = 0.0;  // on the hidden activations
    Activation activation = Activation::relu;
};

template <class T>
struct MlpCache {
    LinearCache<T> lin0;     // x
    MatrixT<T> pre_act;      // z, N×hidden (activation backward needs the input)
    DropoutCache drop;
    LinearCache<T> lin1;     // a'
};

template <class T>
class MlpT {
public:
    MlpT(const MlpOptions& options, Rng& rng, const std::string& name = "mlp");

    // x N×in ⇒ N×out. rng is needed only when training with dropout > 0.
    MatrixT<T> forward(const MatrixT<T>& x, MlpCache<T>& cache, bool training, Rng* rng = nullptr) const;
    // Accumulates both layers' gradients; returns dx (empty when need_dx is false).
    MatrixT<T> backward(const MatrixT<T>& dout, const MlpCache<T>& cache, bool need_dx = true);

    void parameters(ParameterList<T>& out);
    const MlpOptions& options() const { return options_; }
    LinearT<T>& lin0() { return lin0_; }
    LinearT<T>& lin1() { return lin1_; }

private:
    MlpOptions options_;
    LinearT<T> lin0_;
    LinearT<T> lin1_;
};

using Mlp = MlpT<float>;

}  // namespace gatkit
