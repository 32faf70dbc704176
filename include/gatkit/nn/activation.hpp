// Element-wise activations: forward and backward side by side.
//
//   relu(x)        = max(x, 0)
//   elu(x)         = x if x > 0 else exp(x) - 1           (alpha = 1, as torch.nn.ELU())
//   leaky_relu(x)  = x if x > 0 else slope · x
//
// Backward takes the forward *input* x (what the cache keeps) and dy, and returns dx.
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/core/types.hpp"
#include "gatkit/core/vmath.hpp"

#include <cmath>
#include <string>

namespace gatkit {

enum class Activation { none, relu, elu, leaky_relu };

Activation parse_activation(const std::string& name);
std::string to_string(Activation a);

template <class T>
inline T activate(Activation a, T x, T slope = T(0.01)) {
    switch (a) {
        case Activation::relu: return x > T(0) ? x : T(0);
        case Activation::elu: {  // computed, then selected: the loops below vectorise without masked lanes too
            const T e = expm1_v(x);
            return x > T(0) ? x : e;
        }
        case Activation::leaky_relu: return x > T(0) ? x : slope * x;
        case Activation::none: break;
    }
    return x;
}

// d activate / dx at x.
template <class T>
inline T activate_grad(Activation a, T x, T slope = T(0.01)) {
    switch (a) {
        case Activation::relu: return x > T(0) ? T(1) : T(0);
        case Activation::elu: {
            const T e = exp_v(x);
            return x > T(0) ? T(1) : e;
        }
        case Activation::leaky_relu: return x > T(0) ? T(1) : slope;
        case Activation::none: break;
    }
    return T(1);
}

template <class T>
MatrixT<T> activation_forward(Activation a, const MatrixT<T>& x, T slope = T(0.01)) {
    MatrixT<T> y(x.rows(), x.cols());
    const Eigen::Index n = x.size();
    const T* in = x.data();
    T* out = y.data();
    // One loop per kind (the switch outside), so each loop vectorises.
    switch (a) {
        case Activation::relu:
#pragma omp parallel for schedule(static)
            for (Eigen::Index k = 0; k < n; ++k) out[k] = activate(Activation::relu, in[k], slope);
            break;
        case Activation::elu:
#pragma omp parallel for schedule(static)
            for (Eigen::Index k = 0; k < n; ++k) out[k] = activate(Activation::elu, in[k], slope);
            break;
        case Activation::leaky_relu:
#pragma omp parallel for schedule(static)
            for (Eigen::Index k = 0; k < n; ++k) out[k] = activate(Activation::leaky_relu, in[k], slope);
            break;
        case Activation::none: y = x; break;
    }
    return y;
}

namespace detail {
// r[k] = act(r[k] + row[k]) for k < W (row null: none added): one row of add_row_and_activate.
template <Activation A, class T>
inline void add_row_and_activate_in_row(const T* row, T* r, Eigen::Index W, T slope) {
    if (row) {
        for (Eigen::Index k = 0; k < W; ++k) r[k] = activate(A, r[k] + row[k], slope);
    } else {
        for (Eigen::Index k = 0; k < W; ++k) r[k] = activate(A, r[k], slope);
    }
}

template <Activation A, class T>
void add_row_and_activate_as(const T* row, MatrixT<T>& m, T slope) {
    const Eigen::Index R = m.rows(), W = m.cols();
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < R; ++i) add_row_and_activate_in_row<A>(row, m.data() + i * W, W, slope);
}
}  // namespace detail

// The same for one row r of W values, for kernels that finish each output row while it is in
// cache (GatConv's vector kernels): the same bits as add_row_and_activate on the whole matrix.
template <class T>
inline void add_row_and_activate_row(const T* row, Activation a, T* r, Eigen::Index W, T slope = T(0.01)) {
    switch (a) {
        case Activation::relu: detail::add_row_and_activate_in_row<Activation::relu>(row, r, W, slope); break;
        case Activation::elu: detail::add_row_and_activate_in_row<Activation::elu>(row, r, W, slope); break;
        case Activation::leaky_relu: detail::add_row_and_activate_in_row<Activation::leaky_relu>(row, r, W, slope); break;
        case Activation::none: detail::add_row_and_activate_in_row<Activation::none>(row, r, W, slope); break;
    }
}

// m = act(m + row) in place, row (1×W) added to every row of m (null: none): the same bits as
// add_row_to_rows then activation_forward, in one pass and without a second matrix. Inference
// uses it (nothing keeps the activation's input for a backward pass).
template <class T>
void add_row_and_activate(const MatrixT<T>* row, Activation a, MatrixT<T>& m, T slope = T(0.01)) {
    if (row && (row->rows() != 1 || row->cols() != m.cols()))
        throw ShapeError("add_row_and_activate: row is " + std::to_string(row->rows()) + "x" + std::to_string(row->cols()) +
                         ", the matrix has " + std::to_string(m.cols()) + " columns");
    const T* r = row ? row->data() : nullptr;
    switch (a) {
        case Activation::relu: detail::add_row_and_activate_as<Activation::relu>(r, m, slope); break;
        case Activation::elu: detail::add_row_and_activate_as<Activation::elu>(r, m, slope); break;
        case Activation::leaky_relu: detail::add_row_and_activate_as<Activation::leaky_relu>(r, m, slope); break;
        case Activation::none: detail::add_row_and_activate_as<Activation::none>(r, m, slope); break;
    }
}

// In the forward pass y = f(x), so dx = f'(x) ⊙ dy.
template <class T>
MatrixT<T> activation_backward(Activation a, const MatrixT<T>& x, const MatrixT<T>& dy, T slope = T(0.01)) {
    if (x.rows() != dy.rows() || x.cols() != dy.cols())
        throw ShapeError("activation_backward: x is " + std::to_string(x.rows()) + "x" + std::to_string(x.cols()) +
                         ", dy is " + std::to_string(dy.rows()) + "x" + std::to_string(dy.cols()));
    MatrixT<T> dx(x.rows(), x.cols());
    const Eigen::Index n = x.size();
    const T* in = x.data();
    const T* d = dy.data();
    T* out = dx.data();
    switch (a) {
        case Activation::relu:
#pragma omp parallel for schedule(static)
            for (Eigen::Index k = 0; k < n; ++k) out[k] = activate_grad(Activation::relu, in[k], slope) * d[k];
            break;
        case Activation::elu:
#pragma omp parallel for schedule(static)
            for (Eigen::Index k = 0; k < n; ++k) out[k] = activate_grad(Activation::elu, in[k], slope) * d[k];
            break;
        case Activation::leaky_relu:
#pragma omp parallel for schedule(static)
            for (Eigen::Index k = 0; k < n; ++k) out[k] = activate_grad(Activation::leaky_relu, in[k], slope) * d[k];
            break;
        case Activation::none: dx = dy; break;
    }
    return dx;
}

}  // namespace gatkit
