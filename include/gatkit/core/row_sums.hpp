// Sums of scaled rows with the output row held in registers:
//   out[0, O) (+)= Σ over k in [begin, end) of v_k · row_k[0, O)
// where entry(k) gives (v_k, row_k). The gather loops of sparse products and of scatters by node
// (sparse × dense, Xᵀ·dY, the dot decoder's backward) all have this shape. Updating the row in
// memory entry by entry chains each entry's add to the previous entry's store (store-to-load
// forwarding, ~10 cycles an entry); here it is loaded (or zeroed) once, updated in registers and
// stored once. Every output value gets the same additions in the same order as the plain loop
// over k: the same bits where the compiler fuses each multiply and add alike (the Release build
// does: its model files are byte-identical to those of the plain loops; under the sanitizers it
// fused them differently from Eigen's row update).
#pragma once

#include "gatkit/core/types.hpp"

#include <algorithm>
#include <cstring>

namespace gatkit::detail {

// One register of the target (GCC's vector extension): 64 bytes with AVX-512, 32 with AVX, 16
// otherwise. A vector wider than the target's registers is lowered piecewise, and GCC 12 then
// builds each `value · row` broadcast on the stack, value by value, and loads it back: the AVX2
// build spent most of a sparse product's time on those stores and reloads.
#if defined(__AVX512F__)
inline constexpr int kLaneBytes = 64;
#elif defined(__AVX__)
inline constexpr int kLaneBytes = 32;
#else
inline constexpr int kLaneBytes = 16;
#endif
template <class T>
struct Lanes {
    typedef T type __attribute__((vector_size(kLaneBytes)));
};
// Vectors summed side by side in sum_rows: 256 bytes of the output row (AVX-512 4, AVX 8), at
// most 8 accumulators (SSE has 16 registers).
inline constexpr int kBlockVectors = std::min(8, 256 / kLaneBytes);

// Columns [c, c + B·L) of the sum, L values a vector: B vectors in registers.
template <int B, class T, class Entry>
void sum_rows_block(T* out, Eigen::Index c, EdgeId begin, EdgeId end, bool accumulate, const Entry& entry) {
    using V = typename Lanes<T>::type;
    constexpr Eigen::Index L = sizeof(V) / sizeof(T);
    V acc[B];
    for (int b = 0; b < B; ++b) {
        if (accumulate) {
            std::memcpy(&acc[b], out + c + b * L, sizeof(V));
        } else {
            acc[b] = V{};
        }
    }
    for (EdgeId k = begin; k < end; ++k) {
        const auto [v, row] = entry(k);
        for (int b = 0; b < B; ++b) {
            V r;
            std::memcpy(&r, row + c + b * L, sizeof(V));
            acc[b] += v * r;
        }
    }
    for (int b = 0; b < B; ++b) std::memcpy(out + c + b * L, &acc[b], sizeof(V));
}

// out[0, O) (+)= Σ over k in [begin, end) of value(k) · row(k)[0, O): blocks of kBlockVectors
// vectors, then single vectors, then the last O mod L values in memory. Each value gets the same
// operations in the same order whatever the blocking.
template <class T, class Entry>
void sum_rows(T* out, Eigen::Index O, EdgeId begin, EdgeId end, bool accumulate, const Entry& entry) {
    constexpr Eigen::Index L = sizeof(typename Lanes<T>::type) / sizeof(T);
    Eigen::Index c = 0;
    for (; c + kBlockVectors * L <= O; c += kBlockVectors * L) sum_rows_block<kBlockVectors>(out, c, begin, end, accumulate, entry);
    for (; c + L <= O; c += L) sum_rows_block<1>(out, c, begin, end, accumulate, entry);
    if (c == O) return;
    if (!accumulate) std::fill(out + c, out + O, T(0));
    for (EdgeId k = begin; k < end; ++k) {
        // not a structured binding: clang 14 (scripts/fuzz) cannot use one inside an omp simd loop
        const auto e = entry(k);
        const auto v = e.first;
        const auto* row = e.second;
#pragma omp simd
        for (Eigen::Index o = c; o < O; ++o) out[o] += v * row[o];
    }
}

}  // namespace gatkit::detail
