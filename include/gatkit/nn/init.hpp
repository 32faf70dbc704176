// Weight initialisation (as PyTorch Geometric: Glorot/Xavier uniform for weights, zero bias).
#pragma once

#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"

#include <cmath>

namespace gatkit {

// Uniform in ±sqrt(6 / (fan_in + fan_out)).
template <class T>
void glorot_uniform(MatrixT<T>& w, Eigen::Index fan_in, Eigen::Index fan_out, Rng& rng) {
    const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
    for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = static_cast<T>(rng.uniform(-bound, bound));
}

}  // namespace gatkit
