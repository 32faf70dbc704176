#include "gatkit/nn/layer_input.hpp"

#include "gatkit/core/parallel.hpp"

namespace gatkit {

template <class T>
void LayerInputT<T>::set(const MatrixT<T>* x, const SparseRowsT<T>* x_sparse, const DropoutCache& drop, double p) {
    drop_ = drop;
    sparse_ = x_sparse;
    if (x) {
        kept_ = SparseRowsT<T>();
        dense_ = *x;
        if (drop_.active) apply_dropout_mask(dense_, drop_.key, p);
    } else {
        dense_.resize(0, 0);
        if (drop_.active) drop_entries(*x_sparse, drop_.key, p, kept_);
    }
}

template <class T>
void LayerInputT<T>::times(const MatrixT<T>& w, MatrixT<T>& out, bool accumulate) const {
    if (sparse_) {
        const SparseRowsT<T>& xs = sparse_input();
        sparse_times_dense(xs, xs.value, w, out, accumulate);
    } else {
        gemm_nn(dense_, w, out, accumulate);
    }
}

template <class T>
void LayerInputT<T>::transpose_times_add(const MatrixT<T>& dy, MatrixT<T>& grad) const {
    if (sparse_) {
        const SparseRowsT<T>& xs = sparse_input();
        sparse_transpose_times_dense_add(xs, xs.value, dy, grad);
    } else {
        gemm_tn(dense_, dy, grad, /*accumulate=*/true);
    }
}

template class LayerInputT<float>;
template class LayerInputT<double>;

}  // namespace gatkit
