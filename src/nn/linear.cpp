#include "gatkit/nn/linear.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/init.hpp"

namespace gatkit {

template <class T>
LinearT<T>::LinearT(const LinearOptions& options, Rng& rng, const std::string& name)
    : options_(options), weight_(name + ".weight", options.in, options.out), bias_(name + ".bias", options.bias ? 1 : 0, options.out) {
    if (options.in <= 0 || options.out <= 0)
        throw ConfigError(name + ": in and out must be positive, got in = " + std::to_string(options.in) +
                          ", out = " + std::to_string(options.out));
    glorot_uniform(weight_.value, options.in, options.out, rng);
}

template <class T>
MatrixT<T> LinearT<T>::forward(const MatrixT<T>& x, LinearCache<T>& cache) const {
    if (x.cols() != options_.in)
        throw ShapeError(weight_.name + ": x has " + std::to_string(x.cols()) + " columns, expected in = " + std::to_string(options_.in));
    MatrixT<T> y;
    gemm_nn(x, weight_.value, y);
    if (options_.bias) y.rowwise() += bias_.value.row(0);
    cache.x = x;
    return y;
}

template <class T>
MatrixT<T> LinearT<T>::backward(const MatrixT<T>& dy, const LinearCache<T>& cache, bool need_dx) {
    // forward: y = x·W + b  ⇒  dW += xᵀ·dy,  db += Σ_rows dy,  dx = dy·Wᵀ
    gemm_tn(cache.x, dy, weight_.grad, /*accumulate=*/true);
    if (options_.bias) bias_.grad.row(0) += dy.colwise().sum();
    MatrixT<T> dx;
    if (need_dx) gemm_nt(dy, weight_.value, dx);
    return dx;
}

template <class T>
void LinearT<T>::parameters(ParameterList<T>& out) {
    out.push_back(&weight_);
    if (options_.bias) out.push_back(&bias_);
}

template class LinearT<float>;
template class LinearT<double>;

}  // namespace gatkit
