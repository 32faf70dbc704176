// Sparse rows: a feature matrix stored as compressed rows (CSR) plus its column index (the
// transpose, CSC), for inputs that are mostly zero — bag-of-words features such as Cora's
// (2708 × 1433, 1.3 % non-zero).
//
// With x stored this way a layer's input product x · W costs O(nnz · O) instead of O(N · F · O),
// input dropout draws one mask value per stored entry instead of one per matrix element, and
// the weight gradient xᵀ · dY runs over the columns of the CSC without atomics (each thread owns
// rows of dW). The dropout mask of entry (i, f) is keyed by the dense index i · F + f, so a
// sparse input sees exactly the mask the same matrix gets when dense.
#pragma once

#include "gatkit/core/types.hpp"

#include <cstdint>
#include <vector>

namespace gatkit {

template <class T>
struct SparseRowsT {
    Eigen::Index rows = 0, cols = 0;
    std::vector<EdgeId> row_offsets;       // rows + 1; entries of row i: row_offsets[i] .. row_offsets[i+1]
    std::vector<std::int32_t> col;         // nnz, column of each entry (increasing within a row)
    std::vector<T> value;                  // nnz
    std::vector<EdgeId> col_offsets;       // cols + 1; entries of column f in the CSC below
    std::vector<EdgeId> col_entry;         // nnz, entry k (index into col/value), rows increasing
    std::vector<std::int32_t> entry_row;   // nnz, the row of entry k

    EdgeId nnz() const { return static_cast<EdgeId>(value.size()); }
    // Whether the column index is there (from_dense with_columns): Xᵀ·dY and dropout need it.
    bool has_column_index() const {
        return static_cast<Eigen::Index>(col_offsets.size()) == cols + 1 && static_cast<EdgeId>(entry_row.size()) == nnz() &&
               static_cast<EdgeId>(col_entry.size()) == nnz();
    }
    // Stored entries over rows · cols (0 for an empty matrix).
    double density() const;
    MatrixT<T> to_dense() const;
    // The non-zero entries of a dense matrix (exact zeros are not stored). with_columns false:
    // the rows only (row_offsets, col, value), enough for X · W but not for Xᵀ · dY or dropout,
    // which read the column index (col_offsets, col_entry, entry_row); inference needs no more.
    static SparseRowsT from_dense(const MatrixT<T>& dense, bool with_columns = true);
    // The rows only (as from_dense with_columns false) of the dense matrices blocks[0], blocks[1],
    // … stacked on one another, without building the stacked matrix: a batch's node features
    // from its graphs' own matrices. Every block has `cols` columns (ShapeError otherwise).
    static SparseRowsT from_dense_blocks(const std::vector<const MatrixT<T>*>& blocks, Eigen::Index cols);
};

using SparseRows = SparseRowsT<float>;

// At most this share of non-zero entries, a node task feeds its features as SparseRows.
inline constexpr double kSparseInputDensity = 0.10;

// Share of non-zero entries of a dense matrix.
template <class T>
double density(const MatrixT<T>& m);

// values[k] with input dropout applied: kept entries scaled by 1 / (1 - p), dropped ones 0,
// keyed by the dense index row · cols + col (dropout.hpp's mask for the same dense matrix).
template <class T>
std::vector<T> dropped_values(const SparseRowsT<T>& x, std::uint64_t key, double p);

// x after input dropout with the dropped entries left out: `kept` holds the kept entries, scaled
// by 1 / (1 - p), in x's order, with rows and column index (x needs its column index). The
// products below add the same non-zero products in the same order over `kept` as over x with
// dropped_values, and skip the multiply-adds of zero (p of them: 60 % for GAT's input dropout).
// kept's buffers are reused from call to call.
template <class T>
void drop_entries(const SparseRowsT<T>& x, std::uint64_t key, double p, SparseRowsT<T>& kept);

// Y (rows × W.cols()) = X · W with X's entries taken from `values` (nnz), or Y += … when
// accumulate. Parallel over rows of Y.
template <class T>
void sparse_times_dense(const SparseRowsT<T>& x, const std::vector<T>& values, const MatrixT<T>& w, MatrixT<T>& y,
                        bool accumulate = false);

// G (cols × dY.cols()) += Xᵀ · dY with X's entries from `values`. Parallel over rows of G (the
// columns of X), each a fixed-order sum: the same bits for any thread count.
template <class T>
void sparse_transpose_times_dense_add(const SparseRowsT<T>& x, const std::vector<T>& values, const MatrixT<T>& dy, MatrixT<T>& g);

}  // namespace gatkit
