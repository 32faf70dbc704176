#include "gatkit/core/sparse.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/nn/dropout.hpp"

#include <string>

namespace gatkit {

template <class T>
double SparseRowsT<T>::density() const {
    return rows > 0 && cols > 0 ? static_cast<double>(nnz()) / (static_cast<double>(rows) * static_cast<double>(cols)) : 0.0;
}

template <class T>
MatrixT<T> SparseRowsT<T>::to_dense() const {
    MatrixT<T> out = MatrixT<T>::Zero(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
        for (EdgeId k = row_offsets[i]; k < row_offsets[i + 1]; ++k) out(i, col[k]) = value[k];
    return out;
}

template <class T>
SparseRowsT<T> SparseRowsT<T>::from_dense(const MatrixT<T>& dense, bool with_columns) {
    SparseRowsT<T> s;
    s.rows = dense.rows();
    s.cols = dense.cols();
    s.row_offsets.assign(s.rows + 1, 0);
    // Rows in parallel: count each row's non-zeros (no branch), then fill each row's slice.
    const Eigen::Index R = s.rows, F = s.cols;
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < R; ++i) {
        EdgeId count = 0;
        for (Eigen::Index f = 0; f < F; ++f) count += dense(i, f) != T(0);
        s.row_offsets[i + 1] = count;
    }
    for (Eigen::Index i = 0; i < R; ++i) s.row_offsets[i + 1] += s.row_offsets[i];
    s.col.resize(static_cast<std::size_t>(s.row_offsets[R]));
    s.value.resize(static_cast<std::size_t>(s.row_offsets[R]));
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < R; ++i) {
        EdgeId k = s.row_offsets[i];
        for (Eigen::Index f = 0; f < F; ++f)
            if (const T v = dense(i, f); v != T(0)) {
                s.col[k] = static_cast<std::int32_t>(f);
                s.value[k++] = v;
            }
    }
    if (!with_columns) return s;
    s.col_offsets.assign(s.cols + 1, 0);
    for (const std::int32_t f : s.col) ++s.col_offsets[f + 1];
    for (Eigen::Index f = 0; f < s.cols; ++f) s.col_offsets[f + 1] += s.col_offsets[f];
    // Counting sort of the entries by column; rows come in increasing order within a column.
    s.col_entry.resize(s.value.size());
    s.entry_row.resize(s.value.size());
    std::vector<EdgeId> next(s.col_offsets.begin(), s.col_offsets.end() - 1);
    for (Eigen::Index i = 0; i < s.rows; ++i)
        for (EdgeId k = s.row_offsets[i]; k < s.row_offsets[i + 1]; ++k) {
            s.col_entry[next[s.col[k]]++] = k;
            s.entry_row[k] = static_cast<std::int32_t>(i);
        }
    return s;
}

template <class T>
double density(const MatrixT<T>& m) {
    if (m.size() == 0) return 0.0;
    return static_cast<double>((m.array() != T(0)).count()) / static_cast<double>(m.size());
}

template <class T>
std::vector<T> dropped_values(const SparseRowsT<T>& x, std::uint64_t key, double p) {
    std::vector<T> out(x.value.size());
    const T scale = T(1) / T(1 - p);
    const auto F = static_cast<std::uint64_t>(x.cols);
    const auto n = static_cast<Eigen::Index>(x.value.size());
    const std::uint64_t threshold = dropout_threshold(p);
    // One flat loop over the entries (entry_row gives each one's row), which vectorises.
#pragma omp parallel for schedule(static)
    for (Eigen::Index k = 0; k < n; ++k) {
        const std::uint64_t dense_index = static_cast<std::uint64_t>(x.entry_row[k]) * F + static_cast<std::uint64_t>(x.col[k]);
        const T kept = x.value[k] * scale;
        out[k] = uniform_bits_at(key, dense_index) >= threshold ? kept : T(0);
    }
    return out;
}

template <class T>
void sparse_times_dense(const SparseRowsT<T>& x, const std::vector<T>& values, const MatrixT<T>& w, MatrixT<T>& y, bool accumulate) {
    if (x.cols != w.rows())
        throw ShapeError("sparse_times_dense: inner dimensions differ (" + std::to_string(x.cols) + " vs " + std::to_string(w.rows()) + ")");
    if (!accumulate) y.setZero(x.rows, w.cols());
    const Eigen::Index O = w.cols();
#pragma omp parallel for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < x.rows; ++i) {
        T* out = y.data() + i * O;
        for (EdgeId k = x.row_offsets[i]; k < x.row_offsets[i + 1]; ++k) {
            const T v = values[k];  // dropped entries are 0: no test, a 40-60 % branch mispredicts more than it saves
            const T* wr = w.data() + static_cast<Eigen::Index>(x.col[k]) * O;
#pragma omp simd
            for (Eigen::Index o = 0; o < O; ++o) out[o] += v * wr[o];
        }
    }
}

template <class T>
void sparse_transpose_times_dense_add(const SparseRowsT<T>& x, const std::vector<T>& values, const MatrixT<T>& dy, MatrixT<T>& g) {
    if (x.rows != dy.rows() || g.rows() != x.cols || g.cols() != dy.cols())
        throw ShapeError("sparse_transpose_times_dense_add: X is " + std::to_string(x.rows) + "x" + std::to_string(x.cols) + ", dY " +
                         std::to_string(dy.rows()) + "x" + std::to_string(dy.cols()) + ", G " + std::to_string(g.rows()) + "x" +
                         std::to_string(g.cols()));
    const Eigen::Index O = dy.cols();
#pragma omp parallel for schedule(dynamic, 32)
    for (Eigen::Index f = 0; f < x.cols; ++f) {
        T* out = g.data() + f * O;
        for (EdgeId c = x.col_offsets[f]; c < x.col_offsets[f + 1]; ++c) {
            const EdgeId k = x.col_entry[c];
            const T v = values[k];
            const T* d = dy.data() + static_cast<Eigen::Index>(x.entry_row[k]) * O;
#pragma omp simd
            for (Eigen::Index o = 0; o < O; ++o) out[o] += v * d[o];
        }
    }
}

#define GATKIT_SPARSE(T)                                                                                                           \
    template struct SparseRowsT<T>;                                                                                                \
    template double density<T>(const MatrixT<T>&);                                                                                 \
    template std::vector<T> dropped_values<T>(const SparseRowsT<T>&, std::uint64_t, double);                                       \
    template void sparse_times_dense<T>(const SparseRowsT<T>&, const std::vector<T>&, const MatrixT<T>&, MatrixT<T>&, bool);       \
    template void sparse_transpose_times_dense_add<T>(const SparseRowsT<T>&, const std::vector<T>&, const MatrixT<T>&, MatrixT<T>&);
GATKIT_SPARSE(float)
GATKIT_SPARSE(double)
#undef GATKIT_SPARSE

}  // namespace gatkit
