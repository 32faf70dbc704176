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

// The masks over many indices at once, each exactly the rule above (src/nn/dropout.cpp). Where
// the CPU has no 64-bit lane multiply (AVX2 without AVX-512DQ), GCC may leave a loop over
// uniform_bits_at scalar (it does for znver1), with a branch that mispredicts on every other
// element; these run an 8-lane version of it there, and the plain loop elsewhere. Dropped
// entries are +0 whatever the input's sign. Parallel over the indices; the result does not depend
// on the thread count.
//
//   scale_kept:    out[k] = keep(key, first + k) ? in[k] / (1 - p) : 0    (in null: as if in[k] = 1)
//   scale_kept_at: out[k] = keep(key, row[k]·F + col[k]) ? in[k] / (1 - p) : 0
//
// in may be out.
template <class T>
void scale_kept(const T* in, T* out, Eigen::Index n, std::uint64_t key, std::uint64_t first, double p);
template <class T>
void scale_kept_at(const T* in, T* out, Eigen::Index n, std::uint64_t key, const std::int32_t* row, const std::int32_t* col,
                   std::uint64_t F, double p);

// x times one of scale_kept's multipliers (in null: 1/(1 − p) where kept, 0 where dropped): the
// value the rule above gives x, +0 where dropped whatever x is.
template <class T>
inline T times_kept(T x, T multiplier) {
    return multiplier == T(0) ? T(0) : x * multiplier;
}

// Applies the mask in place (forward and backward are the same operation).
template <class T>
void apply_dropout_mask(MatrixT<T>& m, std::uint64_t key, double p) {
    scale_kept<T>(m.data(), m.data(), m.size(), key, 0, p);
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
