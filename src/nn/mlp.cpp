#include "gatkit/nn/mlp.hpp"

#include "gatkit/core/error.hpp"

namespace gatkit {

namespace {

// Validated before the Linear layers are built, so a bad option fails with the MLP's name.
const MlpOptions& checked(const MlpOptions& o, const std::string& name) {
    if (o.in <= 0 || o.hidden <= 0 || o.out <= 0)
        throw ConfigError(name + ": in, hidden and out must be positive, got in = " + std::to_string(o.in) +
                          ", hidden = " + std::to_string(o.hidden) + ", out = " + std::to_string(o.out));
    check_dropout_rate(name.c_str(), o.dropout);
    return o;
}

}  // namespace

template <class T>
MlpT<T>::MlpT(const MlpOptions& options, Rng& rng, const std::string& name)
    : options_(checked(options, name)),
      lin0_({.in = options.in, .out = options.hidden}, rng, name + ".0"),
      lin1_({.in = options.hidden, .out = options.out}, rng, name + ".3") {}

template <class T>
MatrixT<T> MlpT<T>::forward(const MatrixT<T>& x, MlpCache<T>& cache, bool training, Rng* rng) const {
    cache.pre_act = lin0_.forward(x, cache.lin0);
    const MatrixT<T> hidden = dropout_forward(activation_forward(options_.activation, cache.pre_act), options_.dropout, training, rng, cache.drop);
    return lin1_.forward(hidden, cache.lin1);
}

template <class T>
MatrixT<T> MlpT<T>::backward(const MatrixT<T>& dout, const MlpCache<T>& cache, bool need_dx) {
    if (dout.rows() != cache.lin1.x.rows() || dout.cols() != options_.out)
        throw ShapeError(lin1_.weight().name + ": dout is " + std::to_string(dout.rows()) + "x" + std::to_string(dout.cols()) +
                         ", expected " + std::to_string(cache.lin1.x.rows()) + "x" + std::to_string(options_.out));
    // Each line undoes one forward line, last first: y = a'·W1 + b1, a' = dropout(a), a = act(z), z = x·W0 + b0.
    const MatrixT<T> da_dropped = lin1_.backward(dout, cache.lin1);
    const MatrixT<T> da = dropout_backward(da_dropped, options_.dropout, cache.drop);
    const MatrixT<T> dz = activation_backward(options_.activation, cache.pre_act, da);
    return lin0_.backward(dz, cache.lin0, need_dx);
}

template <class T>
void MlpT<T>::parameters(ParameterList<T>& out) {
    lin0_.parameters(out);
    lin1_.parameters(out);
}

template class MlpT<float>;
template class MlpT<double>;

}  // namespace gatkit
