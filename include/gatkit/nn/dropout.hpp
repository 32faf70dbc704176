// Inverted dropout with counter-based masks.
//
//   forward:  y_k = x_k · keep_k / (1 - p),  keep_k = [uniform_at(key, k) >= p]
//   backward: dx_k = dy_k · keep_k / (1 - p)
//
// The key is drawn once per forward call from the caller's Rng; the mask is a pure function of
// (key, k), so it is the same for any thread count and backward regenerates it (no stored mask).
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace gatkit {

inline void check_dropout_rate(const char* who, double p) {
    if (!(p >= 0.0 && p < 1.0))
        throw ConfigError(std::string(who) + ": dropout must be in [0, 1), got " + std::to_string(p));
}

// A value at `index` is kept when its uniform draw uniform_at(key, index) is at least float(p).
// The test runs in integers, so that loops vectorise: uniform_at is u / 2^24 for the 24-bit
// integer u = uniform_bits_at(key, index), and u / 2^24 >= float(p) exactly when
// u >= ceil(float(p) · 2^24) (a power-of-two scaling, exact in float). Loops hoist the threshold.
inline std::uint64_t dropout_threshold(double p) {
    return static_cast<std::uint64_t>(std::ceil(static_cast<double>(static_cast<float>(p)) * 16777216.0));
}

inline bool dropout_keeps(std::uint64_t key, std::uint64_t index, double p) {
    return uniform_bits_at(key, index) >= dropout_threshold(p);
}

// Applies the mask in place (forward and backward are the same operation).
template <class T>
void apply_dropout_mask(MatrixT<T>& m, std::uint64_t key, double p) {
    const T scale = T(1) / T(1 - p);
    const Eigen::Index n = m.size();
    const std::uint64_t threshold = dropout_threshold(p);
    T* v = m.data();
#pragma omp parallel for schedule(static)
    for (Eigen::Index k = 0; k < n; ++k) {
        const T kept = v[k] * scale;  // computed, then selected (vectorises without masked lanes)
        v[k] = uniform_bits_at(key, static_cast<std::uint64_t>(k)) >= threshold ? kept : T(0);
    }
}

struct DropoutCache {
    bool active = false;
    std::uint64_t key = 0;
};

template <class T>
MatrixT<T> dropout_forward(const MatrixT<T>& x, double p, bool training, Rng* rng, DropoutCache& cache) {
    check_dropout_rate("dropout", p);
    MatrixT<T> y = x;
    cache.active = training && p > 0.0;
    if (cache.active) {
        if (!rng) throw ConfigError("dropout: training with p > 0 needs an Rng");
        cache.key = rng->next_u64();
        apply_dropout_mask(y, cache.key, p);
    }
    return y;
}

template <class T>
MatrixT<T> dropout_backward(const MatrixT<T>& dy, double p, const DropoutCache& cache) {
    MatrixT<T> dx = dy;
    if (cache.active) apply_dropout_mask(dx, cache.key, p);
    return dx;
}

}  // namespace gatkit
