// Large working buffers and the kernel's transparent huge pages.
//
// The edge passes gather rows at random from node matrices of hundreds of MB (a 1M-node layer's
// xw is 256 MB): with 4 KiB pages nearly every gather also misses the TLB and walks the page
// table. On Linux with transparent huge pages in `madvise` mode (Debian's default) a buffer
// asks for 2 MiB pages with madvise(MADV_HUGEPAGE) before it is first written; its TLB entries
// then cover 512× more memory, and the first touch faults once per 2 MiB instead of once per
// 4 KiB. It is only a hint: values never depend on it, and where it is refused or unsupported
// (other systems, THP off) nothing changes.
#pragma once

#include "gatkit/core/types.hpp"

#include <cstddef>

namespace gatkit {

// Buffers from this size on get the hint (below it the 2 MiB-aligned interior is small or none).
inline constexpr std::size_t kHugePageHintBytes = std::size_t{8} << 20;

// Hints huge pages for the 2 MiB-aligned part of [data, data + bytes) when bytes ≥
// kHugePageHintBytes. Call it before the memory is first written; harmless after.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

// m.resize(rows, cols) (contents unspecified, as Eigen's resize), then the hint for a large m.
template <class T>
void resize_large(MatrixT<T>& m, Eigen::Index rows, Eigen::Index cols) {
    const bool same = m.rows() == rows && m.cols() == cols;
    m.resize(rows, cols);
    if (!same) advise_huge_pages(m.data(), static_cast<std::size_t>(m.size()) * sizeof(T));
}

// A rows × cols matrix with unspecified contents (every element is to be written), hinted.
template <class T>
MatrixT<T> large_matrix(Eigen::Index rows, Eigen::Index cols) {
    MatrixT<T> m;
    resize_large(m, rows, cols);
    return m;
}

// A rows × cols matrix of zeros, hinted before the zeros are written.
template <class T>
MatrixT<T> large_zero_matrix(Eigen::Index rows, Eigen::Index cols) {
    MatrixT<T> m = large_matrix<T>(rows, cols);
    m.setZero();
    return m;
}

}  // namespace gatkit
