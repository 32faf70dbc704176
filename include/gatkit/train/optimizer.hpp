// Adam (Kingma & Ba 2015) with L2 weight decay folded into the gradient, as
// torch.optim.Adam(weight_decay=…) and the GAT paper; and AdamW (Loshchilov & Hutter 2019) with
// decoupled decay, as torch.optim.AdamW. Bias-corrected moments, same update order as PyTorch:
//
//   Adam:  g = grad + wd·θ;  m = β1 m + (1-β1) g;  v = β2 v + (1-β2) g²
//          θ -= lr · (m / (1-β1^t)) / (sqrt(v / (1-β2^t)) + eps)
//   AdamW: θ -= lr·wd·θ first, then the same step with g = grad.
#pragma once

#include "gatkit/core/parameter.hpp"

#include <vector>

namespace gatkit {

struct AdamOptions {
    double lr = 0.005;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weight_decay = 0.0;
    bool decoupled = false;  // true: AdamW
};

// What Adam carries from one step to the next: the step count t and the moments m and v (one
// matrix per parameter, in the parameter list's order). Saved in checkpoints
// (train/checkpoint.hpp) so a resumed run takes exactly the steps an uninterrupted one would.
template <class T>
struct AdamStateT {
    long t = 0;
    std::vector<MatrixT<T>> m, v;
};

template <class T>
class AdamT {
public:
    AdamT(ParameterList<T> params, const AdamOptions& options);
    void step();
    void zero_grad();
    long steps() const { return t_; }
    const AdamOptions& options() const { return options_; }
    AdamStateT<T> state() const { return {t_, m_, v_}; }
    // ShapeError unless the state has one m and one v of each parameter's shape, and t >= 0.
    void set_state(AdamStateT<T> state);

private:
    ParameterList<T> params_;
    AdamOptions options_;
    ParameterSlices slices_;  // the fixed cut the element-wise passes run in parallel
    std::vector<MatrixT<T>> m_, v_;
    long t_ = 0;
};

using Adam = AdamT<float>;
using AdamState = AdamStateT<float>;

}  // namespace gatkit
