// LayerNorm over each row (torch.nn.LayerNorm(width), eps 1e-5, elementwise affine):
//
//   μ_i = mean_c x_ic,  σ²_i = mean_c (x_ic − μ_i)²  (biased, as torch)
//   x̂_ic = (x_ic − μ_i) / sqrt(σ²_i + eps),  y_ic = γ_c x̂_ic + β_c
//
// Parameters "<name>.weight" (γ, 1×W, ones) and "<name>.bias" (β, 1×W, zeros). The variance is
// computed from centred values (two passes), the stable form; a row whose sum or squares would
// overflow (finite |x| ≳ 1e19 in float) is normalised after dividing it by its largest magnitude,
// so x̂ stays right instead of collapsing to 0. Cost O(N·W); the cache keeps x̂ and 1/σ per row.
#pragma once

#include "gatkit/core/parameter.hpp"

#include <string>

namespace gatkit {

template <class T>
struct LayerNormCache {
    MatrixT<T> xhat;     // N×W
    VectorT<T> inv_std;  // N
};

template <class T>
class LayerNormT {
public:
    explicit LayerNormT(Eigen::Index width, const std::string& name = "norm", double eps = 1e-5);
    MatrixT<T> forward(const MatrixT<T>& x, LayerNormCache<T>& cache) const;
    // Accumulates dγ, dβ; returns dx.
    MatrixT<T> backward(const MatrixT<T>& dy, const LayerNormCache<T>& cache);
    void parameters(ParameterList<T>& out);
    ParameterT<T>& weight() { return weight_; }
    ParameterT<T>& bias() { return bias_; }

private:
    Eigen::Index width_;
    double eps_;
    ParameterT<T> weight_;
    ParameterT<T> bias_;
};

using LayerNorm = LayerNormT<float>;

}  // namespace gatkit
