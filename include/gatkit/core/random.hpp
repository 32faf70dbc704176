// Randomness in gatkit goes through an explicit Rng seeded from --seed.
//
// Two kinds of draws:
//  * Rng: a sequential generator (splitmix64 stream) for initialisation, shuffles and splits.
//  * counter-based draws (uniform_at): a pure function of (key, index). Dropout masks use it,
//    so mask entry i is the same whichever thread computes it and backward can regenerate
//    the mask instead of storing it. One key is drawn from the Rng per dropout call.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace gatkit {

// splitmix64's constants: its increment γ (the golden ratio in 64 bits) and its finaliser's two
// multipliers. Vector versions of the functions below (src/nn/dropout.cpp) use them too.
inline constexpr std::uint64_t kSplitmixGamma = 0x9e3779b97f4a7c15ULL;
inline constexpr std::uint64_t kMixMultiplier1 = 0xbf58476d1ce4e5b9ULL;
inline constexpr std::uint64_t kMixMultiplier2 = 0x94d049bb133111ebULL;

// splitmix64's finaliser: a bijective 64-bit mix with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * kMixMultiplier1;
    z = (z ^ (z >> 27)) * kMixMultiplier2;
    return z ^ (z >> 31);
}

// The 24 random bits of (key, index), an integer in [0, 2^24).
inline std::uint64_t uniform_bits_at(std::uint64_t key, std::uint64_t index) noexcept {
    return mix64(key + kSplitmixGamma * (index + 1)) >> 40;
}

// Uniform in [0, 1) from (key, index): 24 random bits, exact in float.
inline float uniform_at(std::uint64_t key, std::uint64_t index) noexcept {
    return static_cast<float>(uniform_bits_at(key, index)) * (1.0f / 16777216.0f);
}

class Rng {
public:
    explicit Rng(std::uint64_t seed = 0) : state_(mix64(seed ^ 0x6a09e667f3bcc909ULL)) {}

    std::uint64_t next_u64() noexcept {
        state_ += kIncrement;
        return mix64(state_);
    }
    // The stream is a counter: the k-th next_u64() from here (k ≥ 1) without drawing it, and
    // skipping k values. Parallel loops draw what a serial loop would, value k by index.
    std::uint64_t peek_u64(std::uint64_t k) const noexcept { return mix64(state_ + kIncrement * k); }
    void skip(std::uint64_t k) noexcept { state_ += kIncrement * k; }
    // below(n) on the value x: below(n) is scale_below(next_u64(), n).
    static std::uint64_t scale_below(std::uint64_t x, std::uint64_t n) noexcept {
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
    }
    // Uniform in [0, 1) with 53 random bits.
    double uniform() noexcept { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
    double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * uniform(); }
    // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias < 2^-32 for n < 2^32).
    std::uint64_t below(std::uint64_t n) noexcept { return scale_below(next_u64(), n); }
    // Standard normal (Box–Muller; one value per call keeps the stream simple to reason about).
    double normal() noexcept {
        double u1 = uniform();
        while (u1 <= 0.0) u1 = uniform();
        const double u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    // Fisher–Yates shuffle.
    template <class V>
    void shuffle(std::vector<V>& values) noexcept {
        for (std::size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[below(i)]);
    }
    // An independent generator for a sub-task (so adding draws in one place does not shift another).
    Rng split() noexcept { return Rng(next_u64()); }

    std::uint64_t state() const noexcept { return state_; }
    void set_state(std::uint64_t s) noexcept { state_ = s; }

private:
    static constexpr std::uint64_t kIncrement = kSplitmixGamma;
    std::uint64_t state_;
};

}  // namespace gatkit
