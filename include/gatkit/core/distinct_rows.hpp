// Products on the distinct rows of a matrix.
//
// In a batch of molecules most atoms are alike: after the first layer, an atom's vector is a
// function of its own features, its bonds and its neighbours' features, and the same carbon in
// the same surroundings appears many times (on the NCI molecules, in batches of 32, 36 % of the
// second layer's input rows and 63 % of the third's are distinct bit for bit). A row's result in
// gatkit's product kernel does not depend on the rows computed with it (core/gemm_kernel.hpp),
// so x·B computed on the distinct rows of x and copied out to their repeats has the same bits
// as x·B on every row; only the work shrinks. Rows are equal when all their bits are (-0 and 0
// differ, a NaN equals a NaN of the same bits): exactly the rows whose products are equal.
//
// find() hashes a sample of each row's columns into an open-addressing table and compares the
// whole rows of equal hashes, so two rows are merged only when every bit agrees. Serial: the
// callers (a layer's input product) run per batch, and batches run side by side.
#pragma once

#include "gatkit/core/types.hpp"

#include <cstdint>
#include <vector>

namespace gatkit {

class DistinctRows {
public:
    // Finds the distinct rows of x and, where they pay (at most 7 in 8 rows distinct), copies
    // them into a compact matrix that times() multiplies.
    void find(const Matrix& x);
    // Number of rows of the last find() and of distinct rows among them.
    Eigen::Index rows() const { return static_cast<Eigen::Index>(of_row_.size()); }
    Eigen::Index count() const { return static_cast<Eigen::Index>(first_.size()); }
    // first()[d]: the first row of distinct row d (increasing); of_row()[i]: the d of row i.
    const std::vector<Eigen::Index>& first() const { return first_; }
    const std::vector<Eigen::Index>& of_row() const { return of_row_; }
    // Whether times() runs on the distinct rows (else it is gemm_nn on all of them).
    bool compact() const { return compact_; }
    // C = x·B, or C += x·B when accumulate, for the x of the last find(): gemm_nn's bits (where
    // the build has gatkit's product kernel, core/gemm_kernel.hpp; without it every row is
    // computed, as by gemm_nn).
    void times(const Matrix& x, const Matrix& B, Matrix& C, bool accumulate);
    // G += xᵀ·dy for the x of the last find() (a weight gradient). On the distinct rows it is
    // Σ_d x_dᵀ·s_d, where s_d sums the rows of dy whose input row is d, added in increasing row
    // order: the same product with its sums grouped by distinct row, so its last bits differ
    // from gemm_tn's on every row, and like gemm_tn's they do not depend on the thread count.
    // Without compact() it is gemm_tn.
    void transpose_times_add(const Matrix& x, const Matrix& dy, Matrix& G) const;

private:
    std::vector<Eigen::Index> first_;
    std::vector<Eigen::Index> of_row_;
    std::vector<std::uint64_t> slot_hash_;  // the table: hash and distinct row of each slot
    std::vector<Eigen::Index> slot_row_;    // (−1: empty)
    bool compact_ = false;
    Matrix gathered_;  // count() × cols: the distinct rows
    Matrix product_;   // count() × B.cols()
    mutable Matrix summed_;  // count() × dy.cols(): transpose_times_add's s_d
};

}  // namespace gatkit
