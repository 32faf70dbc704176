// A trainable tensor with its gradient. Layers own their parameters and list them for the
// optimiser; gradients accumulate (+=) in backward and are zeroed by one explicit call.
#pragma once

#include "gatkit/core/types.hpp"

#include <string>
#include <vector>

namespace gatkit {

template <class T>
struct ParameterT {
    std::string name;  // e.g. "layers.0.att_src"; the key in model files
    MatrixT<T> value;
    MatrixT<T> grad;

    ParameterT() = default;
    ParameterT(std::string n, Eigen::Index rows, Eigen::Index cols)
        : name(std::move(n)), value(MatrixT<T>::Zero(rows, cols)), grad(MatrixT<T>::Zero(rows, cols)) {}

    void zero_grad() { grad.setZero(); }
};

using Parameter = ParameterT<float>;

template <class T>
using ParameterList = std::vector<ParameterT<T>*>;

template <class T>
void zero_grads(const ParameterList<T>& params) {
    for (auto* p : params) p->zero_grad();
}

template <class T>
std::size_t count_values(const ParameterList<T>& params) {
    std::size_t n = 0;
    for (const auto* p : params) n += static_cast<std::size_t>(p->value.size());
    return n;
}

}  // namespace gatkit
