// A layer's input after input dropout, kept from forward to backward, dense or sparse.
//
// The attention layers multiply their input by weight matrices (x'·W) in forward and need
// x'ᵀ·dY for the weight gradients in backward, where x' = dropout(x, p). A dense input is copied
// with the mask applied. A sparse one (core/sparse.hpp: Cora's bag of words is 1.3 % non-zero)
// is kept by pointer, and with dropout its kept entries are compacted (drop_entries), so both
// products run over the stored entries only. Both forms use the mask of the dense index
// row·F + col (dropout.hpp): the same x' whichever form came in, and the products differ only
// in the order of their float sums.
#pragma once

#include "gatkit/core/random.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/nn/dropout.hpp"

namespace gatkit {

template <class T>
class LayerInputT {
public:
    // x' = dropout(x, p) when drop.active (its key already drawn), else x, from the dense input x
    // (copied) or the sparse one x_sparse (kept by pointer: it must outlive backward); exactly one
    // is non-null. Dropout on a sparse input needs its column index (SparseRowsT::from_dense
    // with_columns; ShapeError otherwise).
    void set(const MatrixT<T>* x, const SparseRowsT<T>* x_sparse, const DropoutCache& drop, double p);

    bool is_sparse() const { return sparse_ != nullptr; }
    const DropoutCache& dropout() const { return drop_; }

    // out = x'·w, or out += x'·w when accumulate (out then has the result's shape).
    void times(const MatrixT<T>& w, MatrixT<T>& out, bool accumulate = false) const;
    // grad += x'ᵀ·dy.
    void transpose_times_add(const MatrixT<T>& dy, MatrixT<T>& grad) const;

private:
    const SparseRowsT<T>& sparse_input() const { return drop_.active ? kept_ : *sparse_; }

    MatrixT<T> dense_;                        // the dense input after dropout (empty when sparse)
    const SparseRowsT<T>* sparse_ = nullptr;  // the caller's sparse input
    SparseRowsT<T> kept_;                     // with dropout: sparse_'s kept entries, scaled
    DropoutCache drop_;
};

}  // namespace gatkit
