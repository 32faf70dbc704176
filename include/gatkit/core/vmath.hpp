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

inline float exp_v(float x_in) {
    float x = x_in < -87.3365f ? -87.3365f : x_in;
    x = x > 88.0f ? 88.0f : x;
    // n = round(x / ln2) with the 1.5·2^23 trick (round to nearest even; |x / ln2| < 2^22)
    const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - n * 0.693359375f;  // ln2 in two parts: exact high part, then the low part
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float e_r = p * r * r + r + 1.0f;
    // 2^n, n in [-126, 127], in the exponent bits
    const float two_n = std::bit_cast<float>(static_cast<std::int32_t>((static_cast<std::int32_t>(n) + 127) << 23));
    return x_in < -87.3365f ? 0.0f : e_r * two_n;
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
