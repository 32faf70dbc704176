#include "gatkit/nn/norm.hpp"

#include "gatkit/core/error.hpp"

#include <cmath>

namespace gatkit {

template <class T>
LayerNormT<T>::LayerNormT(Eigen::Index width, const std::string& name, double eps)
    : width_(width), eps_(eps), weight_(name + ".weight", 1, width), bias_(name + ".bias", 1, width) {
    if (width < 1) throw ConfigError(name + ": width must be positive, got " + std::to_string(width));
    weight_.value.setOnes();
}

template <class T>
MatrixT<T> LayerNormT<T>::forward(const MatrixT<T>& x, LayerNormCache<T>& cache) const {
    if (x.cols() != width_)
        throw ShapeError(weight_.name + ": input has " + std::to_string(x.cols()) + " columns, expected " + std::to_string(width_));
    const Eigen::Index N = x.rows();
    cache.xhat.resize(N, width_);
    cache.inv_std.resize(N);
    MatrixT<T> y(N, width_);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < N; ++i) {
        // Two passes (mean, then the centred squares), not E[x²] − E[x]², which cancels.
        const T mean = x.row(i).mean();
        const auto centred = (x.row(i).array() - mean).matrix();
        const T var = centred.squaredNorm() / static_cast<T>(width_);
        if (std::isfinite(var) || !x.row(i).allFinite()) {
            const T inv = T(1) / std::sqrt(var + static_cast<T>(eps_));
            cache.inv_std(i) = inv;
            cache.xhat.row(i) = centred * inv;
        } else {
            // Finite inputs whose sum or squares overflow (|x| ≳ 1e19 in float): x̂ does not
            // change when x is divided by s = max|x|, so normalise x/s, and σ = s·σ(x/s). At
            // this scale ε is below rounding; a constant row keeps x̂ = 0 and 1/√ε as above.
            const T s = x.row(i).cwiseAbs().maxCoeff();
            const auto scaled = (x.row(i) / s).eval();
            const auto centred_scaled = (scaled.array() - scaled.mean()).matrix();
            const T sd_scaled = std::sqrt(centred_scaled.squaredNorm() / static_cast<T>(width_));
            if (sd_scaled > T(0)) {
                cache.inv_std(i) = T(1) / (s * sd_scaled);
                cache.xhat.row(i) = centred_scaled / sd_scaled;
            } else {
                cache.inv_std(i) = T(1) / std::sqrt(static_cast<T>(eps_));
                cache.xhat.row(i).setZero();
            }
        }
        y.row(i) = (cache.xhat.row(i).array() * weight_.value.row(0).array() + bias_.value.row(0).array()).matrix();
    }
    return y;
}

template <class T>
MatrixT<T> LayerNormT<T>::backward(const MatrixT<T>& dy, const LayerNormCache<T>& cache) {
    const Eigen::Index N = cache.xhat.rows();
    if (dy.rows() != N || dy.cols() != width_) throw ShapeError(weight_.name + ": dy has the wrong shape");
    // Parameter gradients: column sums in row order (one thread: a fixed order for any thread count).
    weight_.grad.row(0) += (dy.array() * cache.xhat.array()).colwise().sum().matrix();
    bias_.grad.row(0) += dy.colwise().sum();
    MatrixT<T> dx(N, width_);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < N; ++i) {
        // dx = (1/σ) (g − mean(g) − x̂ · mean(g ⊙ x̂)),  g = dy ⊙ γ
        const auto g = (dy.row(i).array() * weight_.value.row(0).array()).matrix();
        const T mg = g.mean();
        const T mgx = g.dot(cache.xhat.row(i)) / static_cast<T>(width_);
        dx.row(i) = ((g.array() - mg - cache.xhat.row(i).array() * mgx) * cache.inv_std(i)).matrix();
    }
    return dx;
}

template <class T>
void LayerNormT<T>::parameters(ParameterList<T>& out) {
    out.push_back(&weight_);
    out.push_back(&bias_);
}

template class LayerNormT<float>;
template class LayerNormT<double>;

}  // namespace gatkit
