// A trainable tensor with its gradient. Layers own their parameters and list them for the
// optimiser; gradients accumulate (+=) in backward and are zeroed by one explicit call.
#pragma once

#include "gatkit/core/types.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
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

// A parameter list cut into fixed slices of at most kParameterSlice values each, the cut
// independent of the thread count. Element-wise passes over every parameter (the optimiser
// step, zeroing gradients, finiteness checks) run the slices in parallel: each value sees the
// same arithmetic for any number of threads, so the results are the same bits.
struct ParameterSlice {
    std::size_t param = 0;  // index into the parameter list
    Eigen::Index begin = 0, count = 0;
};

inline constexpr Eigen::Index kParameterSlice = 16384;
// Below this many values in all, a pass stays on the calling thread (a parallel region costs
// more than it saves).
inline constexpr std::size_t kParallelParameterValues = 32768;

class ParameterSlices {
public:
    ParameterSlices() = default;
    template <class T>
    explicit ParameterSlices(const ParameterList<T>& params) {
        for (std::size_t k = 0; k < params.size(); ++k) {
            const Eigen::Index n = params[k]->value.size();
            for (Eigen::Index b = 0; b < n; b += kParameterSlice)
                slices_.push_back({k, b, std::min(kParameterSlice, n - b)});
            total_ += static_cast<std::size_t>(n);
        }
    }
    const std::vector<ParameterSlice>& slices() const { return slices_; }
    std::size_t total_values() const { return total_; }
    // Calls f(slice) for every slice, in parallel when there are enough values; f must only
    // touch its slice's values.
    void for_each(const std::function<void(const ParameterSlice&)>& f) const;

private:
    std::vector<ParameterSlice> slices_;
    std::size_t total_ = 0;
};

template <class T>
std::size_t count_values(const ParameterList<T>& params) {
    std::size_t n = 0;
    for (const auto* p : params) n += static_cast<std::size_t>(p->value.size());
    return n;
}

}  // namespace gatkit
