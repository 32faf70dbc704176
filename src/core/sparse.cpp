#include "gatkit/core/sparse.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/memory.hpp"
#include "gatkit/core/row_sums.hpp"
#include "gatkit/nn/dropout.hpp"

#include <algorithm>
#include <string>
#include <utility>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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

namespace {

// The non-zero entries of one dense row r[0, F): how many, and their (column, value) pairs
// written to col and value in column order (exact zeros, +0 and -0, are not stored; NaN is).
template <class T>
EdgeId count_nonzeros(const T* r, Eigen::Index F) {
    EdgeId count = 0;
    for (Eigen::Index f = 0; f < F; ++f) count += r[f] != T(0);  // no branch: vectorises
    return count;
}

template <class T>
void store_nonzeros(const T* r, Eigen::Index F, std::int32_t* col, T* value) {
    EdgeId k = 0;
    for (Eigen::Index f = 0; f < F; ++f)
        if (const T v = r[f]; v != T(0)) {
            col[k] = static_cast<std::int32_t>(f);
            value[k++] = v;
        }
}

#if defined(__AVX512F__)
// 16 columns at a time: the non-zero lanes compressed to the front of a register and stored
// under a mask (a compressing store straight to memory is slow on some AVX-512 machines). A
// one-hot row (a molecule's atom, ~10 of ~150 set) costs a few instructions per 16 columns
// instead of a mispredicted branch per entry.
template <>
void store_nonzeros<float>(const float* r, Eigen::Index F, std::int32_t* col, float* value) {
    EdgeId k = 0;
    __m512i idx = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i step = _mm512_set1_epi32(16);
    for (Eigen::Index f = 0; f < F; f += 16) {
        const auto in = static_cast<__mmask16>(F - f >= 16 ? 0xFFFFu : (1u << (F - f)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(in, r + f);
        // not-equal, unordered: true for NaN, false for ±0, as v != 0.0f
        const __mmask16 nz = _mm512_mask_cmp_ps_mask(in, v, _mm512_setzero_ps(), _CMP_NEQ_UQ);
        if (nz) {
            const int n = __builtin_popcount(nz);
            const auto front = static_cast<__mmask16>((1u << n) - 1u);
            _mm512_mask_storeu_ps(value + k, front, _mm512_maskz_compress_ps(nz, v));
            _mm512_mask_storeu_epi32(col + k, front, _mm512_maskz_compress_epi32(nz, idx));
            k += n;
        }
        idx = _mm512_add_epi32(idx, step);
    }
}
#endif

// The rows (row_offsets, col, value) of a rows × cols dense matrix whose row i starts at
// row(i): rows in parallel, each row's non-zeros counted, then each row's slice filled.
template <class T, class RowStart>
SparseRowsT<T> rows_of_dense(Eigen::Index rows, Eigen::Index cols, const RowStart& row) {
    SparseRowsT<T> s;
    s.rows = rows;
    s.cols = cols;
    s.row_offsets.assign(rows + 1, 0);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < rows; ++i) s.row_offsets[i + 1] = count_nonzeros(row(i), cols);
    for (Eigen::Index i = 0; i < rows; ++i) s.row_offsets[i + 1] += s.row_offsets[i];
    s.col.resize(static_cast<std::size_t>(s.row_offsets[rows]));
    s.value.resize(static_cast<std::size_t>(s.row_offsets[rows]));
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < rows; ++i) store_nonzeros(row(i), cols, s.col.data() + s.row_offsets[i], s.value.data() + s.row_offsets[i]);
    return s;
}

}  // namespace

template <class T>
SparseRowsT<T> SparseRowsT<T>::from_dense(const MatrixT<T>& dense, bool with_columns) {
    const Eigen::Index F = dense.cols();
    SparseRowsT<T> s = rows_of_dense<T>(dense.rows(), F, [&](Eigen::Index i) { return dense.data() + i * F; });
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
SparseRowsT<T> SparseRowsT<T>::from_dense_blocks(const std::vector<const MatrixT<T>*>& blocks, Eigen::Index cols) {
    std::vector<const T*> row_start;  // of every row of the stack (a batch: hundreds)
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const MatrixT<T>& m = *blocks[b];
        if (m.cols() != cols)
            throw ShapeError("SparseRows::from_dense_blocks: block " + std::to_string(b) + " has " + std::to_string(m.cols()) +
                             " columns, expected " + std::to_string(cols));
        for (Eigen::Index i = 0; i < m.rows(); ++i) row_start.push_back(m.data() + i * cols);
    }
    return rows_of_dense<T>(static_cast<Eigen::Index>(row_start.size()), cols, [&](Eigen::Index i) { return row_start[static_cast<std::size_t>(i)]; });
}

template <class T>
double density(const MatrixT<T>& m) {
    if (m.size() == 0) return 0.0;
    return static_cast<double>((m.array() != T(0)).count()) / static_cast<double>(m.size());
}

template <class T>
std::vector<T> dropped_values(const SparseRowsT<T>& x, std::uint64_t key, double p) {
    // Entry k is element (entry_row[k], col[k]) of the dense matrix: its mask index is row·F + col.
    std::vector<T> out(x.value.size());
    scale_kept_at<T>(x.value.data(), out.data(), static_cast<Eigen::Index>(x.value.size()), key, x.entry_row.data(), x.col.data(),
                     static_cast<std::uint64_t>(x.cols), p);
    return out;
}

template <class T>
void drop_entries(const SparseRowsT<T>& x, std::uint64_t key, double p, SparseRowsT<T>& kept) {
    const EdgeId nnz = x.nnz();
    if (!x.has_column_index())
        throw ShapeError("drop_entries: the sparse input has no column index (built with with_columns = false)");
    const std::vector<T> scaled = dropped_values(x, key, p);
    // Stored entries are non-zero, so a dropped one is exactly the +0 of dropped_values. The
    // compaction writes every entry and advances past the kept ones: no branch on a 40–60 % test.
    std::vector<EdgeId> position(static_cast<std::size_t>(nnz));  // entry k of x → its place in kept
    kept.rows = x.rows;
    kept.cols = x.cols;
    kept.row_offsets.resize(static_cast<std::size_t>(x.rows) + 1);
    kept.col.resize(static_cast<std::size_t>(nnz));
    kept.value.resize(static_cast<std::size_t>(nnz));
    kept.entry_row.resize(static_cast<std::size_t>(nnz));
    EdgeId q = 0;
    for (Eigen::Index i = 0; i < x.rows; ++i) {
        kept.row_offsets[i] = q;
        for (EdgeId k = x.row_offsets[i]; k < x.row_offsets[i + 1]; ++k) {
            kept.col[q] = x.col[k];
            kept.value[q] = scaled[k];
            kept.entry_row[q] = static_cast<std::int32_t>(i);
            position[k] = q;
            q += scaled[k] != T(0);
        }
    }
    kept.row_offsets[x.rows] = q;
    kept.col.resize(static_cast<std::size_t>(q));
    kept.value.resize(static_cast<std::size_t>(q));
    kept.entry_row.resize(static_cast<std::size_t>(q));
    kept.col_offsets.resize(static_cast<std::size_t>(x.cols) + 1);
    kept.col_entry.resize(static_cast<std::size_t>(nnz));
    q = 0;
    for (Eigen::Index f = 0; f < x.cols; ++f) {  // x's column order: rows increasing
        kept.col_offsets[f] = q;
        for (EdgeId c = x.col_offsets[f]; c < x.col_offsets[f + 1]; ++c) {
            const EdgeId k = x.col_entry[c];
            kept.col_entry[q] = position[k];
            q += scaled[k] != T(0);
        }
    }
    kept.col_offsets[x.cols] = q;
    kept.col_entry.resize(static_cast<std::size_t>(q));
}

template <class T>
void sparse_times_dense(const SparseRowsT<T>& x, const std::vector<T>& values, const MatrixT<T>& w, MatrixT<T>& y, bool accumulate) {
    if (x.cols != w.rows())
        throw ShapeError("sparse_times_dense: inner dimensions differ (" + std::to_string(x.cols) + " vs " + std::to_string(w.rows()) + ")");
    if (!accumulate) resize_large(y, x.rows, w.cols());
    const Eigen::Index O = w.cols();
#pragma omp parallel for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < x.rows; ++i) {
        // dropped entries are 0: no test, a 40-60 % branch mispredicts more than it saves
        detail::sum_rows(y.data() + i * O, O, x.row_offsets[i], x.row_offsets[i + 1], accumulate, [&](EdgeId k) {
            return std::pair{values[k], w.data() + static_cast<Eigen::Index>(x.col[k]) * O};
        });
    }
}

template <class T>
void sparse_transpose_times_dense_add(const SparseRowsT<T>& x, const std::vector<T>& values, const MatrixT<T>& dy, MatrixT<T>& g) {
    if (x.rows != dy.rows() || g.rows() != x.cols || g.cols() != dy.cols())
        throw ShapeError("sparse_transpose_times_dense_add: X is " + std::to_string(x.rows) + "x" + std::to_string(x.cols) + ", dY " +
                         std::to_string(dy.rows()) + "x" + std::to_string(dy.cols()) + ", G " + std::to_string(g.rows()) + "x" +
                         std::to_string(g.cols()));
    if (!x.has_column_index())
        throw ShapeError("sparse_transpose_times_dense_add: X has no column index (built with with_columns = false)");
    const Eigen::Index O = dy.cols();
#pragma omp parallel for schedule(dynamic, 32)
    for (Eigen::Index f = 0; f < x.cols; ++f) {
        detail::sum_rows(g.data() + f * O, O, x.col_offsets[f], x.col_offsets[f + 1], /*accumulate=*/true, [&](EdgeId c) {
            const EdgeId k = x.col_entry[c];
            return std::pair{values[k], dy.data() + static_cast<Eigen::Index>(x.entry_row[k]) * O};
        });
    }
}

#define GATKIT_SPARSE(T)                                                                                                           \
    template struct SparseRowsT<T>;                                                                                                \
    template double density<T>(const MatrixT<T>&);                                                                                 \
    template std::vector<T> dropped_values<T>(const SparseRowsT<T>&, std::uint64_t, double);                                       \
    template void drop_entries<T>(const SparseRowsT<T>&, std::uint64_t, double, SparseRowsT<T>&);                                  \
    template void sparse_times_dense<T>(const SparseRowsT<T>&, const std::vector<T>&, const MatrixT<T>&, MatrixT<T>&, bool);       \
    template void sparse_transpose_times_dense_add<T>(const SparseRowsT<T>&, const std::vector<T>&, const MatrixT<T>&, MatrixT<T>&);
GATKIT_SPARSE(float)
GATKIT_SPARSE(double)
#undef GATKIT_SPARSE

}  // namespace gatkit
