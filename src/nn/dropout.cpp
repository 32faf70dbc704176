// Dropout masks over many indices at once (dropout.hpp). Each entry follows the element-wise rule
// keep = uniform_bits_at(key, index) >= dropout_threshold(p), kept value in·(1/(1−p)), else +0.
//
// The plain loop vectorises where the CPU multiplies 64-bit lanes (AVX-512DQ: vpmullq). With AVX2
// only, whether GCC 12 vectorises it depends on the tuning: for haswell or znver3 it emulates the
// multiply, for znver1 it leaves the loop scalar and turns the select into a branch that
// mispredicts for about half the entries (p = 0.6): 6.3 ns an element on a Zen 1 core, a fifth
// of the Cora training epoch. The 8-lane version below builds each 64-bit product from three
// 32 × 32-bit ones (1.9 ns an element there, against 3.0 for GCC's haswell vectorisation) and
// gives the same bits.
#include "gatkit/nn/dropout.hpp"

#include <algorithm>

#if defined(__AVX2__) && !defined(__AVX512DQ__)
#define GATKIT_DROPOUT_LANES 1
#include <immintrin.h>
#else
#define GATKIT_DROPOUT_LANES 0
#endif

namespace gatkit {

namespace {

// Indices per parallel work item: the plain loop vectorises within one.
constexpr Eigen::Index kBlock = 512;

// body(k0, k1) for the blocks [k0, k1) of kBlock indices that cover [0, n), in parallel.
template <class Body>
void for_blocks(Eigen::Index n, const Body& body) {
    const Eigen::Index blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
    for (Eigen::Index b = 0; b < blocks; ++b) body(b * kBlock, std::min(n, b * kBlock + kBlock));
}

// out[k] = keep(index_of(k)) ? in[k]·scale : 0 for k in [k0, k1) (in null: in[k] = 1).
template <class T, class IndexOf>
inline void scale_kept_plain(const T* in, T* out, Eigen::Index k0, Eigen::Index k1, std::uint64_t key, std::uint64_t threshold,
                             T scale, IndexOf index_of) {
    if (in) {
        for (Eigen::Index k = k0; k < k1; ++k) {
            const T kept = in[k] * scale;  // computed, then selected (vectorises without masked lanes)
            out[k] = uniform_bits_at(key, index_of(k)) >= threshold ? kept : T(0);
        }
    } else {
        for (Eigen::Index k = k0; k < k1; ++k) out[k] = uniform_bits_at(key, index_of(k)) >= threshold ? scale : T(0);
    }
}

#if GATKIT_DROPOUT_LANES
// a·c mod 2^64 in each 64-bit lane, for a constant c (AVX2 multiplies 32-bit halves only):
// lo(a)·lo(c) + ((hi(a)·lo(c) + lo(a)·hi(c)) << 32).
inline __m256i multiply_low64(__m256i a, std::uint64_t c) {
    const __m256i c_lo = _mm256_set1_epi64x(static_cast<long long>(c & 0xffffffffULL));
    const __m256i c_hi = _mm256_set1_epi64x(static_cast<long long>(c >> 32));
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), c_lo), _mm256_mul_epu32(a, c_hi));
    return _mm256_add_epi64(_mm256_mul_epu32(a, c_lo), _mm256_slli_epi64(cross, 32));
}

// uniform_bits_at in four 64-bit lanes, from z = key + γ·(index + 1): mix64(z) >> 40.
inline __m256i uniform_bits(__m256i z) {
    z = multiply_low64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), kMixMultiplier1);
    z = multiply_low64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), kMixMultiplier2);
    return _mm256_srli_epi64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 31)), 40);
}

// The keep decisions of eight consecutive entries as 32-bit lane masks, from the z of the even
// entries (0, 2, 4, 6) and of the odd ones. The bits are below 2^24 and the threshold at most 2^24,
// so a signed 32-bit comparison with threshold − 1 is exact.
inline __m256 keep_lanes(__m256i z_even, __m256i z_odd, __m256i threshold_less_1) {
    const __m256i u = _mm256_blend_epi32(uniform_bits(z_even), _mm256_slli_epi64(uniform_bits(z_odd), 32), 0xAA);
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(u, threshold_less_1));
}

inline void store_kept(const float* in, float* out, __m256 scale, __m256 keep) {
    const __m256 kept = in ? _mm256_mul_ps(_mm256_loadu_ps(in), scale) : scale;
    _mm256_storeu_ps(out, _mm256_and_ps(kept, keep));
}

// Entries [k0, k1) of scale_kept, eight at a time; returns where the scalar tail starts.
Eigen::Index scale_kept_lanes(const float* in, float* out, Eigen::Index k0, Eigen::Index k1, std::uint64_t key, std::uint64_t first,
                              std::uint64_t threshold, float scale) {
    const __m256i t = _mm256_set1_epi32(static_cast<int>(threshold) - 1);
    const __m256 s = _mm256_set1_ps(scale);
    const auto g = [](std::uint64_t m) { return static_cast<long long>(kSplitmixGamma * m); };
    const __m256i even = _mm256_set_epi64x(g(6), g(4), g(2), 0), odd = _mm256_set_epi64x(g(7), g(5), g(3), g(1));
    Eigen::Index k = k0;
    for (; k + 8 <= k1; k += 8) {
        const __m256i base = _mm256_set1_epi64x(static_cast<long long>(key + kSplitmixGamma * (first + static_cast<std::uint64_t>(k) + 1)));
        store_kept(in ? in + k : nullptr, out + k, s, keep_lanes(_mm256_add_epi64(base, even), _mm256_add_epi64(base, odd), t));
    }
    return k;
}

// The same for scale_kept_at: index = row·F + col, F < 2^32 (one 32 × 32-bit product).
Eigen::Index scale_kept_at_lanes(const float* in, float* out, Eigen::Index k0, Eigen::Index k1, std::uint64_t key,
                                 const std::int32_t* row, const std::int32_t* col, std::uint64_t F, std::uint64_t threshold, float scale) {
    const __m256i t = _mm256_set1_epi32(static_cast<int>(threshold) - 1);
    const __m256 s = _mm256_set1_ps(scale);
    const __m256i f = _mm256_set1_epi64x(static_cast<long long>(F));
    const __m256i low32 = _mm256_set1_epi64x(0xffffffffLL), one = _mm256_set1_epi64x(1);
    const __m256i k64 = _mm256_set1_epi64x(static_cast<long long>(key));
    // z = key + γ·(row·F + col + 1) of the entries whose 32-bit values sit in these 64-bit lanes.
    const auto z_of = [&](__m256i r, __m256i c) {
        const __m256i index = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(r, f), c), one);
        return _mm256_add_epi64(k64, multiply_low64(index, kSplitmixGamma));
    };
    Eigen::Index k = k0;
    for (; k + 8 <= k1; k += 8) {
        // Rows and columns are ≥ 0: the even entries are the low halves of the 64-bit lanes, the
        // odd ones the high halves.
        const __m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + k));
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + k));
        const __m256 keep = keep_lanes(z_of(_mm256_and_si256(r, low32), _mm256_and_si256(c, low32)),
                                       z_of(_mm256_srli_epi64(r, 32), _mm256_srli_epi64(c, 32)), t);
        store_kept(in + k, out + k, s, keep);
    }
    return k;
}
#endif

}  // namespace

template <class T>
void scale_kept(const T* in, T* out, Eigen::Index n, std::uint64_t key, std::uint64_t first, double p) {
    const T scale = T(1) / T(1 - p);
    const std::uint64_t threshold = dropout_threshold(p);
    for_blocks(n, [&](Eigen::Index k0, Eigen::Index k1) {
#if GATKIT_DROPOUT_LANES
        if constexpr (std::is_same_v<T, float>) k0 = scale_kept_lanes(in, out, k0, k1, key, first, threshold, scale);
#endif
        scale_kept_plain(in, out, k0, k1, key, threshold, scale, [first](Eigen::Index k) { return first + static_cast<std::uint64_t>(k); });
    });
}

template <class T>
void scale_kept_at(const T* in, T* out, Eigen::Index n, std::uint64_t key, const std::int32_t* row, const std::int32_t* col,
                   std::uint64_t F, double p) {
    const T scale = T(1) / T(1 - p);
    const std::uint64_t threshold = dropout_threshold(p);
    for_blocks(n, [&](Eigen::Index k0, Eigen::Index k1) {
#if GATKIT_DROPOUT_LANES
        if constexpr (std::is_same_v<T, float>)
            if (F <= 0xffffffffULL) k0 = scale_kept_at_lanes(in, out, k0, k1, key, row, col, F, threshold, scale);
#endif
        scale_kept_plain(in, out, k0, k1, key, threshold, scale, [row, col, F](Eigen::Index k) {
            return static_cast<std::uint64_t>(row[k]) * F + static_cast<std::uint64_t>(col[k]);
        });
    });
}

#define GATKIT_INSTANTIATE(T)                                                                                   \
    template void scale_kept<T>(const T*, T*, Eigen::Index, std::uint64_t, std::uint64_t, double);            \
    template void scale_kept_at<T>(const T*, T*, Eigen::Index, std::uint64_t, const std::int32_t*, const std::int32_t*, \
                                   std::uint64_t, double);
GATKIT_INSTANTIATE(float)
GATKIT_INSTANTIATE(double)
#undef GATKIT_INSTANTIATE

}  // namespace gatkit
