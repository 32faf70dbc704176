// Threading and deterministic dense products.
//
// Eigen is built with EIGEN_DONT_PARALLELIZE: its own threaded GEMM picks block sizes from the
// thread count, which changes the summation order and so the last bits of the result. Here
// every product is cut into fixed chunks of output rows (kRowChunk, independent of the thread
// count); each chunk is one single-threaded product, and OpenMP hands chunks to threads. Float
// products use gatkit's own kernel where the build has one (core/gemm_kernel.hpp; gemm_nt from
// kKernelMinRowsNt rows, gemm_tn up to kKernelReduceRows), whose rows do not depend on the
// chunking at all; the rest are Eigen products, one per chunk.
// Same inputs ⇒ same bits, with 1 or 2 (or 64) threads. Chunks are handed out dynamically, one
// at a time: a molecule batch has only ~12 of them, and a thread that wakes late would otherwise
// leave the others waiting for its fixed share (which thread computes a chunk changes no value).
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/core/gemm_kernel.hpp"
#include "gatkit/core/memory.hpp"
#include "gatkit/core/types.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gatkit {

// Number of OpenMP threads used by gatkit's kernels.
int thread_count();
// The most threads a count may ask for (a typo such as 100000 would otherwise have OpenMP try
// to start that many and fail half-way or exhaust the machine).
inline constexpr int kMaxThreadCount = 1024;
// Sets the number of threads (1 <= n <= kMaxThreadCount) for the calling program.
void set_thread_count(int n);

// Bounds the threads of gatkit's kernels on the calling thread while it lives and restores the
// previous count afterwards (n = 0: leaves the count as it is). Library entry points that take a
// thread count use it, so a call never changes the rest of the program's threading.
class ThreadScope {
public:
    explicit ThreadScope(int n);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    int previous_ = 0;
};

// ---- independent items ---------------------------------------------------------------------
// Work that splits into items, each computed on one thread and writing only its own results
// (molecules to parse, batches to predict, components of a graph): for_each_item below. It is
// the one place where such loops meet OpenMP, so they share its two rules:
//  * an exception never leaves the OpenMP region (that would end the program with
//    std::terminate): each item's is caught on its thread, and the caller gets the exception of
//    the lowest failing item, whichever thread ran it and whenever it failed. Which error is
//    reported therefore does not depend on the thread count or on timing;
//  * which thread runs an item changes no value (the items are independent), so results are the
//    same with any thread count.

// How for_each_item hands out items.
struct ItemSchedule {
    int threads = 0;           // at most this many threads (0: thread_count())
    std::ptrdiff_t chunk = 1;  // items handed out at a time; more for cheap items (a molecule)
};

// The threads for_each_item runs n items on: `threads` (0: thread_count()), at most
// thread_count() and n, and 1 inside a parallel region (nested regions are inactive). A caller
// that keeps per-thread state (a model copy per thread) sizes it with this.
int item_threads(std::ptrdiff_t n, int threads = 0);

namespace detail {
int thread_number();  // omp_get_thread_num(): this thread's number in the innermost region

template <class F>
void call_item(F& f, std::ptrdiff_t k, int t) {
    if constexpr (std::is_invocable_v<F&, std::ptrdiff_t, int>)
        f(k, t);
    else
        f(k);
}
}  // namespace detail

// f(k, t) (or f(k)) for every k in [0, n); t is the number of the thread running it, 0 … threads
// − 1. On one thread (item_threads(n, how.threads) == 1) the items run in order on the calling
// thread with t = 0, and the first exception stops the loop (it is the lowest failing item
// then too). Else they run in an OpenMP region, handed out dynamically `how.chunk` at a time;
// kernels inside f run on f's thread, as nested regions do. After a failure, items above the
// lowest failing one found so far are skipped; the exception is rethrown when the region ends.
template <class F>
void for_each_item(std::ptrdiff_t n, ItemSchedule how, F&& f) {
    const int threads = item_threads(n, how.threads);
    if (threads <= 1) {
        for (std::ptrdiff_t k = 0; k < n; ++k) detail::call_item(f, k, 0);
        return;
    }
    const std::ptrdiff_t chunk = std::max<std::ptrdiff_t>(how.chunk, 1);
    std::atomic<std::ptrdiff_t> failed_at{n};  // the lowest failing item so far (n: none)
    std::exception_ptr failure;                // its exception
#pragma omp parallel num_threads(threads)
    {
        const int t = detail::thread_number();
#pragma omp for schedule(dynamic, chunk)
        for (std::ptrdiff_t k = 0; k < n; ++k) {
            if (k > failed_at.load(std::memory_order_relaxed)) continue;
            try {
                detail::call_item(f, k, t);
            } catch (...) {
#pragma omp critical(gatkit_for_each_item_failure)
                if (k < failed_at.load(std::memory_order_relaxed)) {
                    failed_at.store(k, std::memory_order_relaxed);
                    failure = std::current_exception();
                }
            }
        }
    }
    if (failure) std::rethrow_exception(failure);
}

template <class F>
void for_each_item(std::ptrdiff_t n, F&& f) {
    for_each_item(n, ItemSchedule{}, std::forward<F>(f));
}

inline constexpr Eigen::Index kRowChunk = 64;

namespace detail {
inline void check_product(const char* what, Eigen::Index a, Eigen::Index b) {
    if (a != b)
        throw ShapeError(std::string(what) + ": inner dimensions differ (" + std::to_string(a) + " vs " +
                         std::to_string(b) + ")");
}
}  // namespace detail

// True when a parallel region opened here would run on the calling thread alone: one thread is
// set, or this is inside a region already (nested regions are inactive), as the batches of
// predict_graphs are.
bool runs_serially();

namespace detail {
// rows(r0, rn) over rows [0, R) for gatkit's product kernel (core/gemm_kernel.hpp), whose rows do
// not depend on the rows computed with them: on one thread all R at once, else chunks handed out
// dynamically: of kRowChunk rows, or of kSmallRowChunk where that would give the threads fewer
// than four chunks each (a weight gradient's rows are the layer's input width: a 64-wide layer
// was one chunk, computed by one thread while the others waited).
inline constexpr Eigen::Index kSmallRowChunk = 16;
template <class Rows>
void kernel_row_chunks(Eigen::Index R, Rows&& rows) {
    if (runs_serially()) {
        rows(Eigen::Index{0}, R);
        return;
    }
    const Eigen::Index chunk = (R + kRowChunk - 1) / kRowChunk < 4 * thread_count() ? kSmallRowChunk : kRowChunk;
    const Eigen::Index chunks = (R + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1)
    for (Eigen::Index c = 0; c < chunks; ++c) rows(c * chunk, std::min(chunk, R - c * chunk));
}
}  // namespace detail

// C (M×N) = A (M×K) · B (K×N), or C += … when accumulate.
template <class T>
void gemm_nn(const MatrixT<T>& A, const MatrixT<T>& B, MatrixT<T>& C, bool accumulate = false) {
    detail::check_product("gemm_nn", A.cols(), B.rows());
    if (!accumulate) resize_large(C, A.rows(), B.cols());  // every row is assigned below: no zero fill
    const Eigen::Index M = A.rows(), chunks = (M + kRowChunk - 1) / kRowChunk;
    if constexpr (std::is_same_v<T, float>) {
        if (detail::float_gemm_kernel()) {
            const Eigen::Index K = A.cols(), N = B.cols();
            detail::kernel_row_chunks(M, [&](Eigen::Index r0, Eigen::Index rn) {
                detail::float_gemm(A.data() + r0 * K, K, B.data(), N, C.data() + r0 * N, N, rn, N, K, accumulate);
            });
            return;
        }
    }
    if (chunks > 2 && runs_serially()) {
        // On one thread: the whole chunks as one Eigen product, which packs B once instead of once
        // per chunk, then the last chunk as the loop below computes it. Eigen's product gives a row
        // the same bits whether it is computed with 64 rows or with more (tests/core/
        // test_parallel.cpp checks this against the chunked loop); a last chunk of one row or of a
        // few tiny rows takes another code path (a matrix-vector product, coefficient loops), so it
        // stays on its own.
        const Eigen::Index whole = M / kRowChunk * kRowChunk, rest = M - whole;
        if (accumulate) {
            C.topRows(whole).noalias() += A.topRows(whole) * B;
            if (rest > 0) C.bottomRows(rest).noalias() += A.bottomRows(rest) * B;
        } else {
            C.topRows(whole).noalias() = A.topRows(whole) * B;
            if (rest > 0) C.bottomRows(rest).noalias() = A.bottomRows(rest) * B;
        }
        return;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        const Eigen::Index r0 = c * kRowChunk, rn = std::min(kRowChunk, M - r0);
        if (accumulate) {
            C.middleRows(r0, rn).noalias() += A.middleRows(r0, rn) * B;
        } else {
            C.middleRows(r0, rn).noalias() = A.middleRows(r0, rn) * B;
        }
    }
}

// Reductions over at least this many rows are split by gemm_tn into kReduceParts parts.
inline constexpr Eigen::Index kReduceSplitRows = Eigen::Index{1} << 16;
inline constexpr Eigen::Index kReduceParts = 8;

// Float gemm_tn uses gatkit's kernel over reductions of up to this many rows.
inline constexpr Eigen::Index kKernelReduceRows = 4096;

// C (K×N) = Aᵀ · B with A (M×K), B (M×N), or C += … when accumulate.
// Parallel over blocks of C's rows; when those are too few for the threads (a weight gradient:
// K is a layer's width) and the reduction is long (M ≥ kReduceSplitRows: a million-node layer),
// over kReduceParts fixed row ranges of A and B instead, whose partial products are then added
// in range order. The ranges do not depend on the thread count, so neither do the values.
template <class T>
void gemm_tn(const MatrixT<T>& A, const MatrixT<T>& B, MatrixT<T>& C, bool accumulate = false) {
    detail::check_product("gemm_tn", A.rows(), B.rows());
    if (!accumulate) resize_large(C, A.cols(), B.cols());  // every row is assigned below: no zero fill
    const Eigen::Index K = A.cols(), chunks = (K + kRowChunk - 1) / kRowChunk, M = A.rows();
    if constexpr (std::is_same_v<T, float>) {
        // gatkit's kernel reads B's column panels whole for every 8 output rows: over reductions
        // up to kKernelReduceRows (a molecule batch, Cora) a panel stays in L2.
        if (detail::float_gemm_kernel() && M <= kKernelReduceRows) {
            const Eigen::Index N = B.cols();
            detail::kernel_row_chunks(K, [&](Eigen::Index r0, Eigen::Index rn) {
                // with no rows A may have no storage (a null data pointer): no offset then
                detail::float_gemm_tn(M > 0 ? A.data() + r0 : A.data(), K, B.data(), N, C.data() + r0 * N, N, rn, N, M, accumulate);
            });
            return;
        }
    }
    if (chunks < 2 && M >= kReduceSplitRows) {
        std::vector<MatrixT<T>> part(static_cast<std::size_t>(kReduceParts));
        const Eigen::Index step = (M + kReduceParts - 1) / kReduceParts;
#pragma omp parallel for schedule(dynamic, 1)
        for (Eigen::Index p = 0; p < kReduceParts; ++p) {
            const Eigen::Index r0 = std::min(M, p * step), rn = std::min(step, M - r0);
            auto& P = part[static_cast<std::size_t>(p)];
            P.noalias() = A.middleRows(r0, rn).transpose() * B.middleRows(r0, rn);
        }
        if (!accumulate) C.setZero();
        for (const auto& P : part) C += P;
        return;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        const Eigen::Index r0 = c * kRowChunk, rn = std::min(kRowChunk, K - r0);
        if (accumulate) {
            C.middleRows(r0, rn).noalias() += A.middleCols(r0, rn).transpose() * B;
        } else {
            C.middleRows(r0, rn).noalias() = A.middleCols(r0, rn).transpose() * B;
        }
    }
}

namespace detail {
// to = fromᵀ (to sized from.cols() × from.rows()), in 16×16 blocks: a weight matrix of the
// molecule layers (256×256) in a third of the time of Eigen's element-by-element transpose,
// which strides through the whole destination once per source row (floats: float_transpose,
// core/gemm_kernel.hpp, the same blocks in register transposes).
template <class T>
void transpose_into(const MatrixT<T>& from, MatrixT<T>& to) {
    constexpr Eigen::Index b = 16;
    const Eigen::Index R = from.rows(), C = from.cols();
    if constexpr (std::is_same_v<T, float>) {
        float_transpose(from.data(), R, C, to.data());
    } else {
        for (Eigen::Index i0 = 0; i0 < R; i0 += b)
            for (Eigen::Index j0 = 0; j0 < C; j0 += b)
                transpose_block(from.data(), R, C, to.data(), i0, std::min(R, i0 + b), j0, std::min(C, j0 + b));
    }
}
}  // namespace detail

// Float gemm_nt uses gatkit's kernel from this many rows of A on.
inline constexpr Eigen::Index kKernelMinRowsNt = 256;

// C (M×K) = A (M×N) · Bᵀ with B (K×N), or C += … when accumulate.
template <class T>
void gemm_nt(const MatrixT<T>& A, const MatrixT<T>& B, MatrixT<T>& C, bool accumulate = false) {
    detail::check_product("gemm_nt", A.cols(), B.cols());
    if (!accumulate) resize_large(C, A.rows(), B.rows());  // every row is assigned below: no zero fill
    const Eigen::Index M = A.rows(), chunks = (M + kRowChunk - 1) / kRowChunk;
    if constexpr (std::is_same_v<T, float>) {
        if (detail::float_gemm_kernel() && M >= kKernelMinRowsNt) {
            // gatkit's kernel on Bᵀ laid out row-major (B is a weight matrix: a small copy, which
            // below kKernelMinRowsNt rows costs more than the kernel gains over Eigen's product)
            const Eigen::Index K = B.rows(), N = A.cols();
            MatrixT<T> Bt(N, K);
            detail::transpose_into(B, Bt);
            detail::kernel_row_chunks(M, [&](Eigen::Index r0, Eigen::Index rn) {
                detail::float_gemm(A.data() + r0 * N, N, Bt.data(), K, C.data() + r0 * K, K, rn, K, N, accumulate);
            });
            return;
        }
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        const Eigen::Index r0 = c * kRowChunk, rn = std::min(kRowChunk, M - r0);
        if (accumulate) {
            C.middleRows(r0, rn).noalias() += A.middleRows(r0, rn) * B.transpose();
        } else {
            C.middleRows(r0, rn).noalias() = A.middleRows(r0, rn) * B.transpose();
        }
    }
}

// Row-parallel versions of whole-matrix assignments that Eigen runs on one thread (in every
// layer of a molecule batch the other thread waited on them). Same values.
template <class T>
void copy_rows(const MatrixT<T>& from, MatrixT<T>& to) {
    resize_large(to, from.rows(), from.cols());
    const Eigen::Index R = from.rows();
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < R; ++i) to.row(i) = from.row(i);
}

// m.row(i) += row (1×W) for every row i.
template <class T>
void add_row_to_rows(const MatrixT<T>& row, MatrixT<T>& m) {
    const Eigen::Index R = m.rows();
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < R; ++i) m.row(i) += row.row(0);
}

// Sums over the rows of a matrix, in parallel and deterministically: rows go in fixed chunks of
// kSumChunk, each chunk's partial sum is its own row, and the partials are added in chunk order,
// so the result does not depend on the thread count. Within a chunk the columns go in blocks of
// kSumColumns, each summed over the chunk's rows in row order: a molecule batch (one chunk of
// ~800 rows) still splits over the threads, and every value gets the additions, in the order,
// the one-thread loop gives it.
inline constexpr Eigen::Index kSumChunk = 2048;
inline constexpr Eigen::Index kSumColumns = 64;

inline Eigen::Index sum_chunks(Eigen::Index rows) { return (rows + kSumChunk - 1) / kSumChunk; }

// out (1×W) += Σ_n m_n
template <class T>
void add_column_sums(const MatrixT<T>& m, MatrixT<T>& out) {
    const Eigen::Index R = m.rows(), W = m.cols(), chunks = sum_chunks(R);
    const Eigen::Index blocks = std::max<Eigen::Index>(1, (W + kSumColumns - 1) / kSumColumns);
    MatrixT<T> partial = MatrixT<T>::Zero(chunks, W);
#pragma omp parallel for schedule(static)
    for (Eigen::Index item = 0; item < chunks * blocks; ++item) {
        const Eigen::Index b = item / blocks, k0 = (item % blocks) * kSumColumns, k1 = std::min(W, k0 + kSumColumns);
        T* p = partial.data() + b * W;
        for (Eigen::Index n = b * kSumChunk; n < std::min(R, (b + 1) * kSumChunk); ++n) {
            const T* r = m.data() + n * W;
            for (Eigen::Index k = k0; k < k1; ++k) p[k] += r[k];
        }
    }
    for (Eigen::Index b = 0; b < chunks; ++b) out.row(0) += partial.row(b);
}

}  // namespace gatkit
