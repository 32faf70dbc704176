// exp and expm1 that the compiler can vectorise.
//
// glibc's expf/expm1f are scalar calls (its vector variants are declared only under
// -ffast-math), so a loop over attention scores or ELU inputs ran one element at a time. These
// are branch-free inline versions for float — GCC turns a plain loop over them into SIMD code —
// and plain std::exp / std::expm1 for double (the precision the gradient checks run in).
//
// exp_v(float): Cody–Waite reduction x = n·ln2 + r, |r| ≤ ln2/2, e^r by Cephes' degree-6
// polynomial, times 2^n built in the exponent bits. Relative error ≤ 2 ulp (tested) over the
// range [-87.3, 88]; below it the result is 0 (as std::exp, except that denormal results are
// 0 too: these are attention weights and ELU tails, where 1e-38 is 0 for every purpose), above
// it e^88 instead of up to inf. NaN in, NaN out is not guaranteed: training checks its
// losses and gradients for NaN (train/numerics.hpp).
// expm1_v(float): a degree-7 Taylor polynomial for |x| ≤ 0.25 (no cancellation near 0), else
// exp_v(x) − 1; relative error ≤ 5e-7.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace gatkit {

// exp_v's constants, also used by the 16-lane version in the GAT kernels (src/nn/gat_simd.cpp).
namespace exp_consts {
inline constexpr float lo = -87.3365f, hi = 88.0f;  // the range; below lo the result is 0
inline constexpr float log2e = 1.44269504088896341f;
inline constexpr float round_magic = 12582912.0f;                  // 1.5·2^23
inline constexpr float ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;  // ln2 in two parts
inline constexpr float p0 = 1.9875691500e-4f, p1 = 1.3981999507e-3f, p2 = 8.3334519073e-3f, p3 = 4.1665795894e-2f,
                       p4 = 1.6666665459e-1f, p5 = 5.0000001201e-1f;  // Cephes' polynomial, highest power first
}  // namespace exp_consts

inline float exp_v(float x_in) {
    using namespace exp_consts;
    float x = x_in < lo ? lo : x_in;
    x = x > hi ? hi : x;
    // n = round(x / ln2) with the 1.5·2^23 trick (round to nearest even; |x / ln2| < 2^22)
    const float n = (x * log2e + round_magic) - round_magic;
    float r = x - n * ln2_hi;  // ln2 in two parts: exact high part, then the low part
    r = r - n * ln2_lo;
    float p = p0;
    p = p * r + p1;
    p = p * r + p2;
    p = p * r + p3;
    p = p * r + p4;
    p = p * r + p5;
    const float e_r = p * r * r + r + 1.0f;
    // 2^n, n in [-126, 127], in the exponent bits
    const float two_n = std::bit_cast<float>(static_cast<std::int32_t>((static_cast<std::int32_t>(n) + 127) << 23));
    // every value computed before the select: without AVX-512's masked lanes GCC vectorises a
    // select between computed values, never an arithmetic branch
    const float y = e_r * two_n;
    return x_in < lo ? 0.0f : y;
}

inline float expm1_v(float x) {
    // x + x²/2! + … + x⁷/7! for small |x|
    float t = 1.0f / 5040.0f;
    t = t * x + 1.0f / 720.0f;
    t = t * x + 1.0f / 120.0f;
    t = t * x + 1.0f / 24.0f;
    t = t * x + 1.0f / 6.0f;
    t = t * x + 0.5f;
    t = t * x + 1.0f;
    const float small = t * x;
    const float large = exp_v(x) - 1.0f;
    return std::fabs(x) <= 0.25f ? small : large;
}

inline double exp_v(double x) { return std::exp(x); }
inline double expm1_v(double x) { return std::expm1(x); }

}  // namespace gatkit
