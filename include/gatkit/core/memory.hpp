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

// Process-wide heap settings for a program built on gatkit (the `gatkit` program and the bench
// driver call it first thing in main; the library itself never does: an embedding program
// chooses). With glibc on Linux:
//  * freed memory is kept for reuse: blocks up to 256 MiB come from the heap instead of a fresh
//    mmap, and the heap top is never given back (mallopt M_MMAP_THRESHOLD, M_TRIM_THRESHOLD);
//  * the main heap is grown by `reserve` bytes at once and that range gets the huge-page hint,
//    so the small blocks RDKit, the readers and the batches allocate there fault in 2 MiB at a
//    time instead of 4 KiB (address space only: pages count once written).
// Only hints and allocator settings: no value depends on them, and elsewhere (another C
// library, a sanitizer's allocator, THP off) they change nothing. Returns the bytes hinted.
std::size_t tune_process_heap(std::size_t reserve = std::size_t{128} << 20) noexcept;

// The same for the malloc arena of each thread but the calling one of an OpenMP team of
// thread_count() threads (glibc gives each thread an arena of its own: 64 MiB of address space
// aligned to 64 MiB): grown by 32 MiB at once and hinted. Call it after tune_process_heap (its
// mmap threshold keeps the 32 MiB in the arena; without it nothing is hinted), once the thread
// count is set (again if it grows). Returns how many arenas it hinted (0 without glibc, under a
// sanitizer or with one thread).
int advise_worker_heaps() noexcept;

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
