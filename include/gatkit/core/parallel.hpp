// Threading and deterministic dense products.
//
// Eigen is built with EIGEN_DONT_PARALLELIZE: its own threaded GEMM picks block sizes from the
// thread count, which changes the summation order and so the last bits of the result. Here
// every product is cut into fixed chunks of output rows (kRowChunk, independent of the thread
// count); each chunk is one single-threaded Eigen product, and OpenMP hands chunks to threads.
// Same inputs ⇒ same bits, with 1 or 2 (or 64) threads.
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/core/types.hpp"

#include <string>

namespace gatkit {

// Number of OpenMP threads used by gatkit's kernels.
int thread_count();
// Sets the number of threads (n >= 1) for the calling program.
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

inline constexpr Eigen::Index kRowChunk = 64;

namespace detail {
inline void check_product(const char* what, Eigen::Index a, Eigen::Index b) {
    if (a != b)
        throw ShapeError(std::string(what) + ": inner dimensions differ (" + std::to_string(a) + " vs " +
                         std::to_string(b) + ")");
}
}  // namespace detail

// C (M×N) = A (M×K) · B (K×N), or C += … when accumulate.
template <class T>
void gemm_nn(const MatrixT<T>& A, const MatrixT<T>& B, MatrixT<T>& C, bool accumulate = false) {
    detail::check_product("gemm_nn", A.cols(), B.rows());
    if (!accumulate) C.resize(A.rows(), B.cols());  // every row is assigned below: no zero fill
    const Eigen::Index M = A.rows(), chunks = (M + kRowChunk - 1) / kRowChunk;
#pragma omp parallel for schedule(static)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        const Eigen::Index r0 = c * kRowChunk, rn = std::min(kRowChunk, M - r0);
        if (accumulate) {
            C.middleRows(r0, rn).noalias() += A.middleRows(r0, rn) * B;
        } else {
            C.middleRows(r0, rn).noalias() = A.middleRows(r0, rn) * B;
        }
    }
}

// C (K×N) = Aᵀ · B with A (M×K), B (M×N), or C += … when accumulate.
template <class T>
void gemm_tn(const MatrixT<T>& A, const MatrixT<T>& B, MatrixT<T>& C, bool accumulate = false) {
    detail::check_product("gemm_tn", A.rows(), B.rows());
    if (!accumulate) C.resize(A.cols(), B.cols());  // every row is assigned below: no zero fill
    const Eigen::Index K = A.cols(), chunks = (K + kRowChunk - 1) / kRowChunk;
#pragma omp parallel for schedule(static)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        const Eigen::Index r0 = c * kRowChunk, rn = std::min(kRowChunk, K - r0);
        if (accumulate) {
            C.middleRows(r0, rn).noalias() += A.middleCols(r0, rn).transpose() * B;
        } else {
            C.middleRows(r0, rn).noalias() = A.middleCols(r0, rn).transpose() * B;
        }
    }
}

// C (M×K) = A (M×N) · Bᵀ with B (K×N), or C += … when accumulate.
template <class T>
void gemm_nt(const MatrixT<T>& A, const MatrixT<T>& B, MatrixT<T>& C, bool accumulate = false) {
    detail::check_product("gemm_nt", A.cols(), B.cols());
    if (!accumulate) C.resize(A.rows(), B.rows());  // every row is assigned below: no zero fill
    const Eigen::Index M = A.rows(), chunks = (M + kRowChunk - 1) / kRowChunk;
#pragma omp parallel for schedule(static)
    for (Eigen::Index c = 0; c < chunks; ++c) {
        const Eigen::Index r0 = c * kRowChunk, rn = std::min(kRowChunk, M - r0);
        if (accumulate) {
            C.middleRows(r0, rn).noalias() += A.middleRows(r0, rn) * B.transpose();
        } else {
            C.middleRows(r0, rn).noalias() = A.middleRows(r0, rn) * B.transpose();
        }
    }
}

}  // namespace gatkit
