#include "gatkit/nn/dot_attention.hpp"
#include "gatkit/nn/self_loop_attr.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/init.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gatkit {

namespace {

std::string shape_text(Eigen::Index rows, Eigen::Index cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

}  // namespace

template <class T>
DotAttentionConvT<T>::DotAttentionConvT(const DotAttentionOptions& o, Rng& rng, const std::string& name)
    : options_(o),
      name_(name),
      key_weight_(name + ".lin_key.weight", o.in, o.heads * o.out),
      key_bias_(name + ".lin_key.bias", o.bias ? 1 : 0, o.bias ? o.heads * o.out : 0),
      query_weight_(name + ".lin_query.weight", o.in, o.heads * o.out),
      query_bias_(name + ".lin_query.bias", o.bias ? 1 : 0, o.bias ? o.heads * o.out : 0),
      value_weight_(name + ".lin_value.weight", o.in, o.heads * o.out),
      value_bias_(name + ".lin_value.bias", o.bias ? 1 : 0, o.bias ? o.heads * o.out : 0),
      edge_weight_(name + ".lin_edge.weight", o.edge_dim > 0 ? o.edge_dim : 0, o.edge_dim > 0 ? o.heads * o.out : 0),
      skip_weight_(name + ".lin_skip.weight", o.root_weight ? o.in : 0, o.root_weight ? out_width() : 0),
      skip_bias_(name + ".lin_skip.bias", o.root_weight && o.bias ? 1 : 0, o.root_weight && o.bias ? out_width() : 0),
      beta_weight_(name + ".lin_beta.weight", uses_beta() ? 3 * out_width() : 0, uses_beta() ? 1 : 0) {
    if (o.in <= 0 || o.out <= 0 || o.heads <= 0)
        throw ConfigError(name + ": in, out and heads must be positive, got in = " + std::to_string(o.in) +
                          ", out = " + std::to_string(o.out) + ", heads = " + std::to_string(o.heads));
    if (o.edge_dim < 0) throw ConfigError(name + ": edge_dim must be >= 0, got " + std::to_string(o.edge_dim));
    check_dropout_rate(name.c_str(), o.dropout);
    check_dropout_rate(name.c_str(), o.input_dropout);
    // Glorot as the rest of gatkit, drawn in PyG's module order; biases start at zero.
    const Eigen::Index HC = o.heads * o.out;
    glorot_uniform(key_weight_.value, o.in, HC, rng);
    glorot_uniform(query_weight_.value, o.in, HC, rng);
    glorot_uniform(value_weight_.value, o.in, HC, rng);
    if (o.edge_dim > 0) glorot_uniform(edge_weight_.value, o.edge_dim, HC, rng);
    if (o.root_weight) glorot_uniform(skip_weight_.value, o.in, out_width(), rng);
    if (uses_beta()) glorot_uniform(beta_weight_.value, 3 * out_width(), 1, rng);
}

template <class T>
MatrixT<T> DotAttentionConvT<T>::forward(const Graph& graph, const MatrixT<T>& x, DotAttentionCache<T>& cache, bool training, Rng* rng,
                                         const MatrixT<T>* edge_attr) const {
    return forward_input(graph, &x, nullptr, cache, training, rng, edge_attr);
}

template <class T>
MatrixT<T> DotAttentionConvT<T>::forward(const Graph& graph, const SparseRowsT<T>& x, DotAttentionCache<T>& cache, bool training,
                                         Rng* rng, const MatrixT<T>* edge_attr) const {
    return forward_input(graph, nullptr, &x, cache, training, rng, edge_attr);
}

template <class T>
MatrixT<T> DotAttentionConvT<T>::forward_input(const Graph& graph, const MatrixT<T>* x, const SparseRowsT<T>* x_sparse,
                                               DotAttentionCache<T>& cache, bool training, Rng* rng, const MatrixT<T>* edge_attr) const {
    const Eigen::Index N = graph.num_nodes(), H = options_.heads, C = options_.out, D = options_.edge_dim, W = out_width();
    const Eigen::Index rows = x ? x->rows() : x_sparse->rows, cols = x ? x->cols() : x_sparse->cols;
    if (rows != N || cols != options_.in)
        throw ShapeError(name_ + ": x is " + shape_text(rows, cols) + ", expected " + std::to_string(N) +
                         " nodes x in_features = " + std::to_string(options_.in));
    const bool has_edges = D > 0;
    if (has_edges && !edge_attr)
        throw ConfigError(name_ + ": edge_dim = " + std::to_string(D) + " needs edge_attr (" + std::to_string(graph.num_edges()) +
                          " edges x " + std::to_string(D) + "), got none");
    if (has_edges && (edge_attr->rows() != graph.num_edges() || edge_attr->cols() != D))
        throw ShapeError(name_ + ": edge_attr is " + shape_text(edge_attr->rows(), edge_attr->cols()) + ", expected " +
                         std::to_string(graph.num_edges()) + " edges x edge_dim = " + std::to_string(D));
    if (!has_edges && edge_attr)
        throw ConfigError(name_ + ": edge_attr given (" + shape_text(edge_attr->rows(), edge_attr->cols()) +
                          ") but the layer has edge_dim = 0");
    DropoutCache input_drop;
    input_drop.active = training && options_.input_dropout > 0.0;
    cache.attn_drop.active = training && options_.dropout > 0.0;
    if ((input_drop.active || cache.attn_drop.active) && !rng) throw ConfigError(name_ + ": training with dropout needs an Rng");

    const Graph& g = options_.add_self_loops ? graph.with_self_loops() : graph;
    cache.graph = &g;
    const auto& offsets = g.in_offsets();
    const auto& src = g.in_src();

    if (input_drop.active) input_drop.key = rng->next_u64();
    cache.input.set(x, x_sparse, input_drop, options_.input_dropout);
    if (cache.attn_drop.active) cache.attn_drop.key = rng->next_u64();

    cache.input.times(query_weight_.value, cache.query);
    cache.input.times(key_weight_.value, cache.key);
    cache.input.times(value_weight_.value, cache.value);
    if (options_.bias) {
        cache.query.rowwise() += query_bias_.value.row(0);
        cache.key.rowwise() += key_bias_.value.row(0);
        cache.value.rowwise() += value_bias_.value.row(0);
    }
    const MatrixT<T>& q = cache.query;
    const MatrixT<T>& k = cache.key;
    const MatrixT<T>& v = cache.value;
    if (has_edges)
        self_looped_edge_attr(graph, g, *edge_attr, cache.edge_attr);
    else
        cache.edge_attr.resize(0, 0);
    const MatrixT<T>& ea = cache.edge_attr;
    const MatrixT<T>& w_e = edge_weight_.value;

    cache.alpha.resize(g.num_edges(), H);
    MatrixT<T> attn = MatrixT<T>::Zero(N, W);
    const bool attn_drop = cache.attn_drop.active;
    // The dropout multipliers of α in one flat pass (dropout.hpp; index e·H + h), kept for backward.
    if (attn_drop) {
        cache.attn_mult.resize(g.num_edges(), H);
        scale_kept<T>(nullptr, cache.attn_mult.data(), cache.attn_mult.size(), cache.attn_drop.key, 0, options_.dropout);
    } else {
        cache.attn_mult.resize(0, 0);
    }
    const T head_scale = options_.concat ? T(1) : T(1) / T(H);
    const T inv_sqrt_c = T(1) / std::sqrt(static_cast<T>(C));

    // The edge term is linear in e_ij, so it never needs the per-edge projection ê_ij = e_ij W_e:
    //   q_ihᵀ ê_ijh = e_ij · m_ih           with m_ih = W_e,h q_ihᵀ           (D, once per node and head)
    //   Σ_j α'_ijh ê_ijh = (Σ_j α'_ijh e_ij) W_e,h                            (D·C once per node and head)
    // where W_e,h = columns h·C .. h·C+C of W_e. O(E·H·(C + D) + N·H·D·C) instead of O(E·H·D·C).
#pragma omp parallel
    {
        VectorT<T> m(D);         // W_e,h q_ihᵀ
        VectorT<T> attr_sum(D);  // Σ_j α'_ijh e_ij
#pragma omp for schedule(dynamic, 64)
        for (Eigen::Index i = 0; i < N; ++i) {
            const EdgeId e0 = offsets[i], e1 = offsets[i + 1];
            if (e0 == e1) continue;  // attends to nothing: attention output stays 0 (documented)
            for (Eigen::Index h = 0; h < H; ++h) {
                const auto q_ih = q.row(i).segment(h * C, C);
                if (has_edges) m.noalias() = w_e.middleCols(h * C, C) * q_ih.transpose();
                // Subtract the row maximum before exp so no score overflows; start from -inf.
                T row_max = -std::numeric_limits<T>::infinity();
                for (EdgeId e = e0; e < e1; ++e) {
                    T dot = q_ih.dot(k.row(src[e]).segment(h * C, C));
                    if (has_edges) dot += ea.row(e).dot(m.transpose());
                    const T s = dot * inv_sqrt_c;
                    cache.alpha(e, h) = s;
                    row_max = std::max(row_max, s);
                }
                T sum = 0;
                for (EdgeId e = e0; e < e1; ++e) {
                    const T w = std::exp(cache.alpha(e, h) - row_max);
                    cache.alpha(e, h) = w;
                    sum += w;
                }
                const T inv = T(1) / sum;  // sum >= 1: the max term contributes exp(0)
                auto out_h = attn.row(i).segment(options_.concat ? h * C : 0, C);
                if (has_edges) attr_sum.setZero();
                for (EdgeId e = e0; e < e1; ++e) {
                    cache.alpha(e, h) *= inv;
                    T a = cache.alpha(e, h) * head_scale;
                    if (attn_drop) a = times_kept(a, cache.attn_mult(e, h));
                    if (a == T(0)) continue;
                    out_h.noalias() += a * v.row(src[e]).segment(h * C, C);
                    if (has_edges) attr_sum.noalias() += a * ea.row(e).transpose();
                }
                if (has_edges) out_h.noalias() += attr_sum.transpose() * w_e.middleCols(h * C, C);
            }
        }
    }

    if (!options_.root_weight) {
        cache.attn.resize(0, 0);
        cache.root.resize(0, 0);
        cache.beta.resize(0, 0);
        return attn;
    }
    MatrixT<T> root;
    cache.input.times(skip_weight_.value, root);
    if (options_.bias) root.rowwise() += skip_bias_.value.row(0);
    if (!uses_beta()) {
        cache.attn.resize(0, 0);
        cache.root.resize(0, 0);
        cache.beta.resize(0, 0);
        attn += root;
        return attn;
    }
    // β_i = sigmoid([a_i ‖ r_i ‖ a_i − r_i] · w_β),  out_i = β_i r_i + (1 − β_i) a_i
    const auto w_a = beta_weight_.value.col(0).segment(0, W);
    const auto w_r = beta_weight_.value.col(0).segment(W, W);
    const auto w_d = beta_weight_.value.col(0).segment(2 * W, W);
    MatrixT<T> out(N, W);
    cache.beta.resize(N, 1);
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < N; ++i) {
        const T z = attn.row(i).dot(w_a) + root.row(i).dot(w_r) + (attn.row(i) - root.row(i)).dot(w_d);
        const T b = T(1) / (T(1) + std::exp(-z));  // exp(-z) = inf gives β = 0, not NaN
        cache.beta(i, 0) = b;
        out.row(i) = b * root.row(i) + (T(1) - b) * attn.row(i);
    }
    cache.attn = std::move(attn);
    cache.root = std::move(root);
    return out;
}

template <class T>
MatrixT<T> DotAttentionConvT<T>::backward(const MatrixT<T>& dout, const DotAttentionCache<T>& cache, bool need_dx) {
    if (!cache.graph) throw ConfigError(name_ + ": backward called before forward");
    const Graph& g = *cache.graph;
    const Eigen::Index N = g.num_nodes(), H = options_.heads, C = options_.out, D = options_.edge_dim, W = out_width();
    if (dout.rows() != N || dout.cols() != W)
        throw ShapeError(name_ + ": dout is " + shape_text(dout.rows(), dout.cols()) + ", expected " + shape_text(N, W));
    const auto& offsets = g.in_offsets();
    const auto& src = g.in_src();
    const MatrixT<T>& q = cache.query;
    const MatrixT<T>& k = cache.key;
    const MatrixT<T>& v = cache.value;
    const MatrixT<T>& ea = cache.edge_attr;
    const MatrixT<T>& w_e = edge_weight_.value;
    const bool has_edges = D > 0;
    const bool attn_drop = cache.attn_drop.active;
    const T head_scale = options_.concat ? T(1) : T(1) / T(H);
    const T inv_sqrt_c = T(1) / std::sqrt(static_cast<T>(C));
    // In the forward pass α'_eh = dropout(α_eh) · head_scale multiplied the value; this is it.
    auto alpha_used = [&](EdgeId e, Eigen::Index h) {
        T a = cache.alpha(e, h) * head_scale;
        if (attn_drop) a = times_kept(a, cache.attn_mult(e, h));
        return a;
    };
    // Column block of the attention output that head h went to.
    const auto head_col = [&](Eigen::Index h) { return options_.concat ? h * C : Eigen::Index(0); };

    // The skip path. da: gradient of the attention output a; dr: of r = x'·W_r + b_r.
    MatrixT<T> da_beta, dr_beta;
    const MatrixT<T>* da = &dout;
    const MatrixT<T>* dr = options_.root_weight ? &dout : nullptr;  // out = a + r
    if (uses_beta()) {
        // out = β r + (1 − β) a, β = sigmoid(z), z = a·w_a + r·w_r + (a − r)·w_d
        //   ⇒ dβ = dout·(r − a), dz = dβ β (1 − β)
        //      da = (1 − β) dout + dz (w_a + w_d),  dr = β dout + dz (w_r − w_d)
        //      dw_β += [a ‖ r ‖ a − r]ᵀ dz
        const auto w_a = beta_weight_.value.col(0).segment(0, W);
        const auto w_r = beta_weight_.value.col(0).segment(W, W);
        const auto w_d = beta_weight_.value.col(0).segment(2 * W, W);
        const VectorT<T> w_ad = w_a + w_d, w_rd = w_r - w_d;
        MatrixT<T> dz(N, 1);
        da_beta.resize(N, W);
        dr_beta.resize(N, W);
#pragma omp parallel for schedule(static)
        for (Eigen::Index i = 0; i < N; ++i) {
            const T b = cache.beta(i, 0);
            const T dbeta = dout.row(i).dot(cache.root.row(i) - cache.attn.row(i));
            const T dzi = dbeta * b * (T(1) - b);
            dz(i, 0) = dzi;
            da_beta.row(i) = (T(1) - b) * dout.row(i) + dzi * w_ad.transpose();
            dr_beta.row(i) = b * dout.row(i) + dzi * w_rd.transpose();
        }
        MatrixT<T> grad_a, grad_r;
        gemm_tn(cache.attn, dz, grad_a);
        gemm_tn(cache.root, dz, grad_r);
        beta_weight_.grad.middleRows(0, W) += grad_a;
        beta_weight_.grad.middleRows(W, W) += grad_r;
        beta_weight_.grad.middleRows(2 * W, W) += grad_a - grad_r;
        da = &da_beta;
        dr = &dr_beta;
    }
    if (dr) {
        cache.input.transpose_times_add(*dr, skip_weight_.grad);
        if (options_.bias) skip_bias_.grad.row(0) += dr->colwise().sum();
    }

    // Pass 1, over destination rows i: the score gradient of every incoming edge, and dq.
    //   a_ih = Σ_e α'_eh (v_jh + ê_eh)           ⇒ dα_eh = mask · head_scale · da_ih · (v_jh + ê_eh)
    //   α = softmax(s) over the row             ⇒ ds_eh = α_eh (dα_eh − Σ_e' α_e'h dα_e'h)
    //   s_eh = q_ih · (k_jh + ê_eh) / √C         ⇒ dt_eh = ds_eh / √C (gradient of the raw dot product)
    //                                              dq_ih += dt_eh (k_jh + ê_eh)
    // with the edge term through e_e again (ê_eh = e_e W_e,h):
    //   da_ih · ê_eh = e_e · g_ih,  g_ih = W_e,h da_ihᵀ;   Σ_e dt_eh ê_eh = P_ih W_e,h,  P_ih = Σ_e dt_eh e_e
    //   dW_e,h += Σ_i P_ihᵀ q_ih + A_ihᵀ da_ih,  A_ih = Σ_e α'_eh e_e          (N×H·D, node-sized)
    MatrixT<T> dt(g.num_edges(), H);
    MatrixT<T> dq = MatrixT<T>::Zero(N, H * C);
    MatrixT<T> p_sum, a_sum;
    if (has_edges) {
        p_sum.resize(N, H * D);
        a_sum.resize(N, H * D);
    }
#pragma omp parallel
    {
        VectorT<T> g_vec(D);
#pragma omp for schedule(dynamic, 64)
        for (Eigen::Index i = 0; i < N; ++i) {
            const EdgeId e0 = offsets[i], e1 = offsets[i + 1];
            for (Eigen::Index h = 0; h < H; ++h) {
                const auto da_ih = da->row(i).segment(head_col(h), C);
                auto dq_ih = dq.row(i).segment(h * C, C);
                if (has_edges) g_vec.noalias() = w_e.middleCols(h * C, C) * da_ih.transpose();
                T weighted = 0;
                for (EdgeId e = e0; e < e1; ++e) {
                    T dalpha = da_ih.dot(v.row(src[e]).segment(h * C, C));
                    if (has_edges) dalpha += ea.row(e).dot(g_vec.transpose());
                    dalpha *= head_scale;
                    if (attn_drop) dalpha = times_kept(dalpha, cache.attn_mult(e, h));
                    dt(e, h) = dalpha;
                    weighted += cache.alpha(e, h) * dalpha;
                }
                if (!has_edges) {
                    for (EdgeId e = e0; e < e1; ++e) {
                        dt(e, h) = cache.alpha(e, h) * (dt(e, h) - weighted) * inv_sqrt_c;
                        dq_ih.noalias() += dt(e, h) * k.row(src[e]).segment(h * C, C);
                    }
                    continue;
                }
                auto p_ih = p_sum.row(i).segment(h * D, D);
                auto asum_ih = a_sum.row(i).segment(h * D, D);
                p_ih.setZero();
                asum_ih.setZero();
                for (EdgeId e = e0; e < e1; ++e) {
                    dt(e, h) = cache.alpha(e, h) * (dt(e, h) - weighted) * inv_sqrt_c;
                    dq_ih.noalias() += dt(e, h) * k.row(src[e]).segment(h * C, C);
                    p_ih.noalias() += dt(e, h) * ea.row(e);
                    asum_ih.noalias() += alpha_used(e, h) * ea.row(e);
                }
                dq_ih.noalias() += p_ih * w_e.middleCols(h * C, C);
            }
        }
    }
    if (has_edges) {
        // One head per iteration, each a single-threaded Eigen product over all nodes in a fixed
        // order into its own column block: the same bits for any thread count.
#pragma omp parallel for schedule(static)
        for (Eigen::Index h = 0; h < H; ++h) {
            auto dw_h = edge_weight_.grad.middleCols(h * C, C);
            dw_h.noalias() += p_sum.middleCols(h * D, D).transpose() * q.middleCols(h * C, C);
            dw_h.noalias() += a_sum.middleCols(h * D, D).transpose() * da->middleCols(head_col(h), C);
        }
    }

    // Pass 2, over source rows j of the transposed CSR (each thread owns rows of dk and dv):
    //   t_eh = q_ih · k_jh + …    ⇒ dk_jh += dt_eh q_ih
    //   a_ih = Σ α'_eh v_jh + …  ⇒ dv_jh += α'_eh da_ih
    MatrixT<T> dk = MatrixT<T>::Zero(N, H * C);
    MatrixT<T> dv = MatrixT<T>::Zero(N, H * C);
    const auto& out_offsets = g.out_offsets();
    const auto& out_dst = g.out_dst();
    const auto& out_edge = g.out_edge();
#pragma omp parallel for schedule(dynamic, 64)
    for (Eigen::Index j = 0; j < N; ++j)
        for (EdgeId kk = out_offsets[j]; kk < out_offsets[j + 1]; ++kk) {
            const NodeId i = out_dst[kk];
            const EdgeId e = out_edge[kk];
            for (Eigen::Index h = 0; h < H; ++h) {
                dk.row(j).segment(h * C, C).noalias() += dt(e, h) * q.row(i).segment(h * C, C);
                const T a = alpha_used(e, h);
                if (a != T(0)) dv.row(j).segment(h * C, C).noalias() += a * da->row(i).segment(head_col(h), C);
            }
        }

    // q = x'·W_q + b_q (and k, v alike) ⇒ dW_q += x'ᵀ·dq, db_q += Σ_rows dq, dx' += dq·W_qᵀ.
    cache.input.transpose_times_add(dq, query_weight_.grad);
    cache.input.transpose_times_add(dk, key_weight_.grad);
    cache.input.transpose_times_add(dv, value_weight_.grad);
    if (options_.bias) {
        query_bias_.grad.row(0) += dq.colwise().sum();
        key_bias_.grad.row(0) += dk.colwise().sum();
        value_bias_.grad.row(0) += dv.colwise().sum();
    }
    MatrixT<T> dx;
    if (!need_dx) return dx;
    gemm_nt(dq, query_weight_.value, dx);
    gemm_nt(dk, key_weight_.value, dx, /*accumulate=*/true);
    gemm_nt(dv, value_weight_.value, dx, /*accumulate=*/true);
    if (dr) gemm_nt(*dr, skip_weight_.value, dx, /*accumulate=*/true);
    // x' = dropout(x) ⇒ dx = mask ⊙ dx'
    if (cache.input.dropout().active) apply_dropout_mask(dx, cache.input.dropout().key, options_.input_dropout);
    return dx;
}

template <class T>
void DotAttentionConvT<T>::parameters(ParameterList<T>& out) {
    // PyG's state-dict order.
    out.push_back(&key_weight_);
    if (options_.bias) out.push_back(&key_bias_);
    out.push_back(&query_weight_);
    if (options_.bias) out.push_back(&query_bias_);
    out.push_back(&value_weight_);
    if (options_.bias) out.push_back(&value_bias_);
    if (options_.edge_dim > 0) out.push_back(&edge_weight_);
    if (options_.root_weight) {
        out.push_back(&skip_weight_);
        if (options_.bias) out.push_back(&skip_bias_);
    }
    if (uses_beta()) out.push_back(&beta_weight_);
}

template class DotAttentionConvT<float>;
template class DotAttentionConvT<double>;

}  // namespace gatkit
