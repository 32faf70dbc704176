#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/nn/self_loop_attr.hpp"
#include "gat_simd.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/memory.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/vmath.hpp"
#include "gatkit/nn/init.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace gatkit {

namespace {

// The vector row kernels (gat_simd.hpp) take float layers whose shape fits them.
template <class T>
bool use_simd(const GatConvOptions& o) {
    if constexpr (std::is_same_v<T, float>) {
        return detail::gat_simd_fits(o.heads, o.out, o.concat);
    } else {
        return false;
    }
}

detail::GatSimdArgs simd_args(const GatConvOptions& o, const Graph& g, bool attn_drop) {
    detail::GatSimdArgs a;
    a.N = g.num_nodes();
    a.H = o.heads;
    a.C = o.out;
    a.in_offsets = g.in_offsets().data();
    a.in_src = g.in_src().data();
    a.out_offsets = g.out_offsets().data();
    a.out_dst = g.out_dst().data();
    a.out_edge = g.out_edge().data();
    a.slope = static_cast<float>(o.negative_slope);
    a.head_scale = o.concat ? 1.0f : 1.0f / static_cast<float>(o.heads);
    a.attn_drop = attn_drop;
    a.attn_scale = 1.0f / static_cast<float>(1.0 - o.dropout);  // as T(1) / T(1 - p) in the portable loops
    a.scores_from_rows = detail::gat_simd_scores_from_rows(a.N, o.heads * o.out);
    return a;
}

// g_src[h] += Σ_n d_src_nh xw_n,h and g_dst[h] += Σ_n d_dst_nh xw_n,h (xw row n: H blocks of C),
// in the fixed row chunks of add_column_sums (core/parallel.hpp), each chunk split by head:
// every value is summed over the rows in row order whatever the thread count.
template <class T>
void add_head_weighted_sums(const MatrixT<T>& d_src, const MatrixT<T>& d_dst, const MatrixT<T>& xw, Eigen::Index C, MatrixT<T>& g_src,
                            MatrixT<T>& g_dst) {
    const Eigen::Index R = xw.rows(), H = d_src.cols(), HC = H * C, chunks = sum_chunks(R);
    MatrixT<T> partial = MatrixT<T>::Zero(chunks, 2 * HC);
#pragma omp parallel for schedule(static)
    for (Eigen::Index item = 0; item < chunks * H; ++item) {
        const Eigen::Index b = item / H, h = item % H;
        T* ps = partial.data() + b * 2 * HC + h * C;
        T* pd = ps + HC;
        for (Eigen::Index n = b * kSumChunk; n < std::min(R, (b + 1) * kSumChunk); ++n) {
            const T* x = xw.data() + n * HC + h * C;
            const T s = d_src(n, h), d = d_dst(n, h);
            for (Eigen::Index c = 0; c < C; ++c) {
                ps[c] += s * x[c];
                pd[c] += d * x[c];
            }
        }
    }
    for (Eigen::Index b = 0; b < chunks; ++b)
        for (Eigen::Index h = 0; h < H; ++h)
            for (Eigen::Index c = 0; c < C; ++c) {
                g_src(h, c) += partial(b, h * C + c);
                g_dst(h, c) += partial(b, HC + h * C + c);
            }
}

}  // namespace

void set_gat_simd_kernels(bool on) { detail::set_gat_simd(on); }
void set_gat_simd_source_scores(int mode) { detail::set_gat_simd_scores_from_rows(mode); }
bool gat_simd_kernels_used(const GatConvOptions& o) { return use_simd<float>(o); }
int gat_simd_kernel_lanes() { return detail::gat_simd_lanes(); }

template <class T>
GatConvT<T>::GatConvT(const GatConvOptions& o, Rng& rng, const std::string& name)
    : options_(o),
      name_(name),
      weight_(name + ".weight", o.in, o.heads * o.out),
      att_src_(name + ".att_src", o.heads, o.out),
      att_dst_(name + ".att_dst", o.heads, o.out),
      bias_(name + ".bias", o.bias ? 1 : 0, o.bias ? out_width() : 0),
      res_weight_(name + ".res_weight", o.residual ? o.in : 0, o.residual ? out_width() : 0),
      lin_edge_(name + ".lin_edge", o.edge_dim > 0 ? o.edge_dim : 0, o.edge_dim > 0 ? o.heads * o.out : 0),
      att_edge_(name + ".att_edge", o.edge_dim > 0 ? o.heads : 0, o.edge_dim > 0 ? o.out : 0) {
    if (o.in <= 0 || o.out <= 0 || o.heads <= 0)
        throw ConfigError(name + ": in, out and heads must be positive, got in = " + std::to_string(o.in) +
                          ", out = " + std::to_string(o.out) + ", heads = " + std::to_string(o.heads));
    if (o.edge_dim < 0) throw ConfigError(name + ": edge_dim must be >= 0, got " + std::to_string(o.edge_dim));
    if (!(o.negative_slope >= 0.0))
        throw ConfigError(name + ": negative_slope must be >= 0, got " + std::to_string(o.negative_slope));
    check_dropout_rate(name.c_str(), o.dropout);
    check_dropout_rate(name.c_str(), o.input_dropout);
    // Glorot as PyG: the projection over (F, H·C); attention vectors over (H, C).
    glorot_uniform(weight_.value, o.in, o.heads * o.out, rng);
    glorot_uniform(att_src_.value, o.heads, o.out, rng);
    glorot_uniform(att_dst_.value, o.heads, o.out, rng);
    if (o.residual) glorot_uniform(res_weight_.value, o.in, out_width(), rng);
    // Drawn last, so a layer without edge features initialises exactly as before edge_dim existed.
    if (o.edge_dim > 0) {
        glorot_uniform(lin_edge_.value, o.edge_dim, o.heads * o.out, rng);
        glorot_uniform(att_edge_.value, o.heads, o.out, rng);
    }
}

template <class T>
void GatConvT<T>::edge_scores(const Graph& graph, const Graph& g, const MatrixT<T>& edge_attr, GatConvCache<T>& cache) const {
    const Eigen::Index H = options_.heads, C = options_.out, D = options_.edge_dim;
    self_looped_edge_attr(graph, g, edge_attr, cache.edge_attr);
    // a_edge[h]ᵀ (e · W_e)_h = e · v_h with v_h = W_e,h · a_edge[h]: D×H instead of an E×H×C product.
    MatrixT<T> v(D, H);
    for (Eigen::Index h = 0; h < H; ++h) v.col(h).noalias() = lin_edge_.value.middleCols(h * C, C) * att_edge_.value.row(h).transpose();
    gemm_nn(cache.edge_attr, v, cache.edge_score);
}

template <class T>
void GatConvT<T>::project(const Graph& graph, const MatrixT<T>* x, const SparseRowsT<T>* x_sparse, GatConvCache<T>& cache,
                          bool training, Rng* rng, const MatrixT<T>* edge_attr, bool keep_input) const {
    const Eigen::Index N = graph.num_nodes(), D = options_.edge_dim;
    const Eigen::Index rows = x ? x->rows() : x_sparse->rows, cols = x ? x->cols() : x_sparse->cols;
    if (rows != N || cols != options_.in)
        throw ShapeError(name_ + ": x is " + std::to_string(rows) + "x" + std::to_string(cols) + ", expected " + std::to_string(N) +
                         " nodes x in_features = " + std::to_string(options_.in));
    const bool has_edges = D > 0;
    if (has_edges && !edge_attr)
        throw ConfigError(name_ + ": edge_dim = " + std::to_string(D) + " needs edge_attr (" + std::to_string(graph.num_edges()) +
                          " edges x " + std::to_string(D) + "), got none");
    if (has_edges && (edge_attr->rows() != graph.num_edges() || edge_attr->cols() != D))
        throw ShapeError(name_ + ": edge_attr is " + std::to_string(edge_attr->rows()) + "x" + std::to_string(edge_attr->cols()) +
                         ", expected " + std::to_string(graph.num_edges()) + " edges x edge_dim = " + std::to_string(D));
    if (!has_edges && edge_attr)
        throw ConfigError(name_ + ": edge_attr given (" + std::to_string(edge_attr->rows()) + "x" + std::to_string(edge_attr->cols()) +
                          ") but the layer has edge_dim = 0");
    cache.input_drop.active = training && options_.input_dropout > 0.0;
    cache.attn_drop.active = training && options_.dropout > 0.0;
    if ((cache.input_drop.active || cache.attn_drop.active) && !rng)
        throw ConfigError(name_ + ": training with dropout needs an Rng");
    if (cache.input_drop.active) cache.input_drop.key = rng->next_u64();
    if (cache.attn_drop.active) cache.attn_drop.key = rng->next_u64();
    cache.x_sparse = x_sparse;
    cache.x_in = nullptr;
    cache.for_backward = keep_input;
    if (x && !keep_input && !cache.input_drop.active) {
        cache.x.resize(0, 0);
        cache.x_in = x;
    } else if (x) {
        copy_rows(*x, cache.x);
        if (cache.input_drop.active) apply_dropout_mask(cache.x, cache.input_drop.key, options_.input_dropout);
    } else {
        cache.x.resize(0, 0);
        if (cache.input_drop.active) drop_entries(*x_sparse, cache.input_drop.key, options_.input_dropout, cache.x_kept);
    }
    cache.distinct_found = false;
    if constexpr (std::is_same_v<T, float>) {
        // Input dropout leaves hardly two rows alike: nothing to find.
        if (options_.distinct_rows && x && !cache.input_drop.active) {
            cache.distinct.find(cache.dense_input());
            cache.distinct_found = true;
        }
    }
    input_times(cache, weight_.value, cache.xw, /*accumulate=*/false);
}

template <class T>
void GatConvT<T>::input_times(GatConvCache<T>& cache, const MatrixT<T>& w, MatrixT<T>& out, bool accumulate) const {
    if (cache.x_sparse) {
        const SparseRowsT<T>& xs = cache.sparse_input();
        sparse_times_dense(xs, xs.value, w, out, accumulate);
    } else if (cache.distinct_found) {
        if constexpr (std::is_same_v<T, float>) cache.distinct.times(cache.dense_input(), w, out, accumulate);
    } else {
        gemm_nn(cache.dense_input(), w, out, accumulate);
    }
}

template <class T>
void GatConvT<T>::input_transpose_times_add(const GatConvCache<T>& cache, const MatrixT<T>& dy, MatrixT<T>& grad) const {
    if (cache.x_sparse) {
        const SparseRowsT<T>& xs = cache.sparse_input();
        sparse_transpose_times_dense_add(xs, xs.value, dy, grad);
    } else if (cache.distinct_found) {
        if constexpr (std::is_same_v<T, float>) cache.distinct.transpose_times_add(cache.x, dy, grad);
    } else {
        gemm_tn(cache.x, dy, grad, /*accumulate=*/true);
    }
}

template <class T>
MatrixT<T> GatConvT<T>::forward(const Graph& graph, const MatrixT<T>& x, GatConvCache<T>& cache, bool training, Rng* rng,
                                const MatrixT<T>* edge_attr) const {
    project(graph, &x, nullptr, cache, training, rng, edge_attr, /*keep_input=*/true);
    return attend(graph, cache, edge_attr, Activation::none);
}

template <class T>
MatrixT<T> GatConvT<T>::forward(const Graph& graph, const SparseRowsT<T>& x, GatConvCache<T>& cache, bool training, Rng* rng,
                                const MatrixT<T>* edge_attr) const {
    project(graph, nullptr, &x, cache, training, rng, edge_attr, /*keep_input=*/true);
    return attend(graph, cache, edge_attr, Activation::none);
}

template <class T>
MatrixT<T> GatConvT<T>::infer(const Graph& graph, const MatrixT<T>& x, GatConvCache<T>& cache, Activation act,
                              const MatrixT<T>* edge_attr) const {
    project(graph, &x, nullptr, cache, /*training=*/false, nullptr, edge_attr, /*keep_input=*/false);
    MatrixT<T> out = attend(graph, cache, edge_attr, act);
    cache.x_in = nullptr;  // x is the caller's: not to be read after this call
    return out;
}

template <class T>
MatrixT<T> GatConvT<T>::infer(const Graph& graph, const SparseRowsT<T>& x, GatConvCache<T>& cache, Activation act,
                              const MatrixT<T>* edge_attr) const {
    project(graph, nullptr, &x, cache, /*training=*/false, nullptr, edge_attr, /*keep_input=*/false);
    MatrixT<T> out = attend(graph, cache, edge_attr, act);
    cache.x_sparse = nullptr;
    return out;
}

template <class T>
MatrixT<T> GatConvT<T>::attend(const Graph& graph, GatConvCache<T>& cache, const MatrixT<T>* edge_attr, Activation act) const {
    const Eigen::Index N = graph.num_nodes(), H = options_.heads, C = options_.out;
    const bool has_edges = options_.edge_dim > 0;
    const Graph& g = options_.add_self_loops ? graph.with_self_loops() : graph;
    cache.graph = &g;
    const auto& offsets = g.in_offsets();
    const auto& src = g.in_src();
    const T slope = static_cast<T>(options_.negative_slope);
    const MatrixT<T>& xw = cache.xw;

    // a_src_nh = a_src[h]ᵀ xw_nh, a_dst_nh = a_dst[h]ᵀ xw_nh: products over the row's H·C values
    // in one lane-wise loop, then a sum per head.
    resize_large(cache.a_src, N, H);
    resize_large(cache.a_dst, N, H);
    const Eigen::Index HC = H * C;
    const bool simd = use_simd<T>(options_);
    if (simd) {
        if constexpr (std::is_same_v<T, float>)
            detail::gat_simd_node_scores(simd_args(options_, g, false), xw.data(), att_src_.value.data(), att_dst_.value.data(),
                                         cache.a_src.data(), cache.a_dst.data());
    } else
#pragma omp parallel
    {
        std::vector<T> ps(HC), pd(HC);
        const T* att_s = att_src_.value.data();
        const T* att_d = att_dst_.value.data();
#pragma omp for schedule(static)
        for (Eigen::Index n = 0; n < N; ++n) {
            const T* r = xw.data() + n * HC;
            for (Eigen::Index k = 0; k < HC; ++k) {
                ps[k] = r[k] * att_s[k];
                pd[k] = r[k] * att_d[k];
            }
            for (Eigen::Index h = 0; h < H; ++h) {
                T s = 0, d = 0;
                for (Eigen::Index c = 0; c < C; ++c) {
                    s += ps[h * C + c];
                    d += pd[h * C + c];
                }
                cache.a_src(n, h) = s;
                cache.a_dst(n, h) = d;
            }
        }
    }

    if (has_edges) edge_scores(graph, g, *edge_attr, cache);

    // One pass per destination row i, all heads at once (each edge's H scores are contiguous in
    // the E×H matrices, so the loops over h and over h·C + c run lane-wise):
    //   scores and row maxima → exp and row sums → α, α' = dropout(α)·head_scale → out_i += α' xw_j
    const Eigen::Index E = g.num_edges(), W = out_width();
    const bool attn_drop = cache.attn_drop.active, concat = options_.concat;
    resize_large(cache.alpha, E, H);
    // α' is α itself without attention dropout and with head scale 1 (concat, or one head):
    // then it is not stored a second time (E×H floats: 176 MB on an 11M-edge graph with 4 heads).
    const bool alpha_used_is_alpha = !attn_drop && (concat || H == 1);
    if (alpha_used_is_alpha) {
        cache.alpha_used.resize(0, 0);
    } else {
        resize_large(cache.alpha_used, E, H);
    }
    MatrixT<T> out = large_matrix<T>(N, W);  // the SIMD kernels write every row
    if (!simd) out.setZero();
    const std::uint64_t attn_key = cache.attn_drop.key;
    const double p_attn = options_.dropout;
    const T head_scale = concat ? T(1) : T(1) / T(H);
    const T* a_src = cache.a_src.data();
    const T* a_dst = cache.a_dst.data();
    const T* edge_score = has_edges ? cache.edge_score.data() : nullptr;
    T* alpha = cache.alpha.data();
    T* alpha_used = alpha_used_is_alpha ? alpha : cache.alpha_used.data();

    if (attn_drop) {
        // The dropout multipliers (1/(1-p) or 0) first, in one flat pass (dropout.hpp); the row pass
        // multiplies α by them. The mask is a pure function of (key, e·H + h).
        scale_kept<T>(nullptr, alpha_used, E * H, attn_key, 0, p_attn);
    }
    if (simd) {
        // The kernel finishes each row while it is in cache: the residual term (written into out
        // first and added to the attention sum), the bias, the activation; the portable loops
        // below do the same in separate passes over out.
        if (options_.residual) input_times(cache, res_weight_.value, out, /*accumulate=*/false);
        if constexpr (std::is_same_v<T, float>) {
            detail::GatSimdArgs args = simd_args(options_, g, attn_drop);
            args.out_accumulate = options_.residual;
            args.out_bias = options_.bias ? bias_.value.data() : nullptr;
            args.out_act = act;
            detail::gat_simd_forward(args, xw.data(), a_src, att_src_.value.data(), a_dst, edge_score, alpha, alpha_used, out.data());
        }
        return out;
    } else
#pragma omp parallel
    {
        std::vector<T> row_max(H), inv_sum(H), spread(HC);
#pragma omp for schedule(dynamic, 64)
        for (Eigen::Index i = 0; i < N; ++i) {
            const EdgeId e0 = offsets[i], e1 = offsets[i + 1];
            if (e0 == e1) continue;  // attends to nothing: attention output stays 0 (documented)
            const T* ad = a_dst + i * H;
            // Subtract the row maximum before exp so no score overflows; start from -inf.
            std::fill(row_max.begin(), row_max.end(), -std::numeric_limits<T>::infinity());
            for (EdgeId e = e0; e < e1; ++e) {
                const T* as = a_src + static_cast<Eigen::Index>(src[e]) * H;
                T* s = alpha + e * H;
                for (Eigen::Index h = 0; h < H; ++h) s[h] = as[h] + ad[h];
                if (edge_score)
                    for (Eigen::Index h = 0; h < H; ++h) s[h] += edge_score[e * H + h];
                for (Eigen::Index h = 0; h < H; ++h) {
                    s[h] = s[h] > T(0) ? s[h] : slope * s[h];
                    row_max[h] = std::max(row_max[h], s[h]);
                }
            }
            for (EdgeId e = e0; e < e1; ++e)
                for (Eigen::Index h = 0; h < H; ++h) alpha[e * H + h] -= row_max[h];
            T* row = alpha + e0 * H;  // the row's scores, contiguous: one flat loop vectorises exp
            for (Eigen::Index k = 0; k < (e1 - e0) * H; ++k) row[k] = exp_v(row[k]);
            std::fill(inv_sum.begin(), inv_sum.end(), T(0));
            for (EdgeId e = e0; e < e1; ++e)
                for (Eigen::Index h = 0; h < H; ++h) inv_sum[h] += alpha[e * H + h];
            for (Eigen::Index h = 0; h < H; ++h) inv_sum[h] = T(1) / inv_sum[h];  // sum >= 1: the max term is exp(0)
            T* o = out.data() + i * W;
            for (EdgeId e = e0; e < e1; ++e) {
                T* a = alpha + e * H;
                T* u = alpha_used + e * H;
                for (Eigen::Index h = 0; h < H; ++h) {
                    a[h] *= inv_sum[h];
                    u[h] = attn_drop ? a[h] * head_scale * u[h] : a[h] * head_scale;  // u held the dropout multiplier
                }
                const T* xs = xw.data() + static_cast<Eigen::Index>(src[e]) * HC;
                if (concat) {
                    for (Eigen::Index h = 0; h < H; ++h)
                        for (Eigen::Index c = 0; c < C; ++c) spread[h * C + c] = u[h];
                    for (Eigen::Index k = 0; k < HC; ++k) o[k] += spread[k] * xs[k];
                } else {
                    for (Eigen::Index h = 0; h < H; ++h)
                        for (Eigen::Index c = 0; c < C; ++c) o[c] += u[h] * xs[h * C + c];
                }
            }
        }
    }
    if (options_.residual) input_times(cache, res_weight_.value, out, /*accumulate=*/true);
    if (act == Activation::none) {
        if (options_.bias) add_row_to_rows(bias_.value, out);
    } else {
        add_row_and_activate(options_.bias ? &bias_.value : nullptr, act, out);
    }
    return out;
}

template <class T>
MatrixT<T> GatConvT<T>::backward(const MatrixT<T>& dout, const GatConvCache<T>& cache, bool need_dx) {
    if (!cache.graph) throw ConfigError(name_ + ": backward called before forward");
    if (!cache.for_backward) throw ConfigError(name_ + ": backward after an inference-only pass (infer keeps nothing for it); run forward");
    const Graph& g = *cache.graph;
    const Eigen::Index N = g.num_nodes(), H = options_.heads, C = options_.out;
    if (dout.rows() != N || dout.cols() != out_width())
        throw ShapeError(name_ + ": dout is " + std::to_string(dout.rows()) + "x" + std::to_string(dout.cols()) +
                         ", expected " + std::to_string(N) + "x" + std::to_string(out_width()));
    const auto& offsets = g.in_offsets();
    const auto& src = g.in_src();
    const MatrixT<T>& xw = cache.xw;
    const T slope = static_cast<T>(options_.negative_slope);
    const bool attn_drop = cache.attn_drop.active, concat = options_.concat;
    const T attn_scale = T(1) / T(1 - options_.dropout);
    const T head_scale = concat ? T(1) : T(1) / T(H);
    const bool has_edges = options_.edge_dim > 0;
    const Eigen::Index HC = H * C, W = out_width();
    const T* alpha = cache.alpha.data();
    // α' = dropout(α)·head_scale, what multiplied the messages (α itself when not stored apart)
    const T* alpha_used = cache.alpha_used.size() > 0 ? cache.alpha_used.data() : alpha;
    const T* a_src = cache.a_src.data();
    const T* a_dst = cache.a_dst.data();
    const T* edge_score = has_edges ? cache.edge_score.data() : nullptr;

    if (options_.bias) add_column_sums(dout, bias_.grad);

    // Pass 1, over destination rows i: the score gradient of every incoming edge.
    //   out_ih = Σ_e α'_eh xw_jh              ⇒ dα'_eh = dout_ih · xw_jh
    //   α = softmax(s) over the row          ⇒ ds_eh = α_eh (dα_eh − Σ_e' α_e'h dα_e'h)
    //   s = LeakyReLU(z), z = a_src_j + a_dst_i [+ edge_eh] ⇒ dz_eh = ds_eh · (z > 0 ? 1 : slope)
    // The SIMD kernels keep each edge's α' beside its dz (E×2H: α'_e, then dz_e), so that pass 2,
    // which visits the edges in transposed order, reads one cache line per edge for both; the
    // portable loops keep dz alone (E×H).
    const bool simd = use_simd<T>(options_);
    MatrixT<T> dz = large_matrix<T>(g.num_edges(), simd ? 2 * H : H);
    MatrixT<T> da_dst = large_zero_matrix<T>(N, H);
    if (simd) {
        if constexpr (std::is_same_v<T, float>)
            detail::gat_simd_backward_dst(simd_args(options_, g, attn_drop), dout.data(), xw.data(), alpha, alpha_used, a_src,
                                          att_src_.value.data(), a_dst, edge_score, dz.data(), da_dst.data());
    } else
#pragma omp parallel
    {
        std::vector<T> weighted(H), row_sum(H), prod(HC);
#pragma omp for schedule(dynamic, 64)
        for (Eigen::Index i = 0; i < N; ++i) {
            const EdgeId e0 = offsets[i], e1 = offsets[i + 1];
            const T* di = dout.data() + i * W;
            std::fill(weighted.begin(), weighted.end(), T(0));
            for (EdgeId e = e0; e < e1; ++e) {
                const T* xs = xw.data() + static_cast<Eigen::Index>(src[e]) * HC;
                T* d = dz.data() + e * H;
                if (concat) {
                    for (Eigen::Index k = 0; k < HC; ++k) prod[k] = di[k] * xs[k];
                } else {
                    for (Eigen::Index h = 0; h < H; ++h)
                        for (Eigen::Index c = 0; c < C; ++c) prod[h * C + c] = di[c] * xs[h * C + c];
                }
                // d(out)/d(α_eh) folds in the head scale and the dropout mask of α'
                for (Eigen::Index h = 0; h < H; ++h) {
                    T dot = 0;
                    for (Eigen::Index c = 0; c < C; ++c) dot += prod[h * C + c];
                    d[h] = dot * head_scale;
                }
                // α' is 0 exactly where the mask dropped (and where α itself is 0, where d is multiplied by 0)
                if (attn_drop)
                    for (Eigen::Index h = 0; h < H; ++h) d[h] = alpha_used[e * H + h] != T(0) ? d[h] * attn_scale : T(0);
                for (Eigen::Index h = 0; h < H; ++h) weighted[h] += alpha[e * H + h] * d[h];
            }
            std::fill(row_sum.begin(), row_sum.end(), T(0));
            const T* ad = a_dst + i * H;
            for (EdgeId e = e0; e < e1; ++e) {
                const T* as = a_src + static_cast<Eigen::Index>(src[e]) * H;
                T* d = dz.data() + e * H;
                for (Eigen::Index h = 0; h < H; ++h) {
                    const T ds = alpha[e * H + h] * (d[h] - weighted[h]);
                    const T z = as[h] + ad[h] + (edge_score ? edge_score[e * H + h] : T(0));
                    d[h] = z > T(0) ? ds : slope * ds;
                    row_sum[h] += d[h];
                }
            }
            for (Eigen::Index h = 0; h < H; ++h) da_dst(i, h) = row_sum[h];
        }
    }

    // Edge term: z_eh gains ē_e · v_h with v_h = W_e,h · a_edge[h] ⇒ dv = ēᵀ · dz (D×H), then
    //   dW_e,h += dv_h a_edge[h]ᵀ   and   da_edge[h] += W_e,hᵀ dv_h.
    if (has_edges) {
        MatrixT<T> dv;
        if (simd) {
            const MatrixT<T> dz_only = dz.rightCols(H);
            gemm_tn(cache.edge_attr, dz_only, dv);
        } else {
            gemm_tn(cache.edge_attr, dz, dv);
        }
        for (Eigen::Index h = 0; h < H; ++h) {
            lin_edge_.grad.middleCols(h * C, C).noalias() += dv.col(h) * att_edge_.value.row(h);
            att_edge_.grad.row(h).noalias() += dv.col(h).transpose() * lin_edge_.value.middleCols(h * C, C);
        }
    }

    // Pass 2, over source rows j of the transposed CSR (each thread owns rows of dxw):
    //   out_ih = Σ α'_eh xw_jh  ⇒ dxw_jh += α'_eh dout_ih
    //   z_eh = a_src_j + …     ⇒ da_src_jh += dz_eh
    // then a_src_jh = a_src[h]ᵀ xw_jh, a_dst_jh = a_dst[h]ᵀ xw_jh ⇒ dxw_jh += da_src_jh a_src[h] + da_dst_jh a_dst[h]
    MatrixT<T> dxw = large_matrix<T>(N, HC), da_src = large_matrix<T>(N, H);  // the SIMD kernel writes every row
    if (!simd) {
        dxw.setZero();
        da_src.setZero();
    }
    const auto& out_offsets = g.out_offsets();
    const auto& out_dst = g.out_dst();
    const auto& out_edge = g.out_edge();
    const T* att_src = att_src_.value.data();
    const T* att_dst = att_dst_.value.data();
    if (simd) {
        if constexpr (std::is_same_v<T, float>)
            detail::gat_simd_backward_src(simd_args(options_, g, attn_drop), dout.data(), dz.data(), da_dst.data(), att_src,
                                          att_dst, dxw.data(), da_src.data());
    } else
#pragma omp parallel
    {
        std::vector<T> spread(HC);
#pragma omp for schedule(dynamic, 64)
        for (Eigen::Index j = 0; j < N; ++j) {
            T* dj = dxw.data() + j * HC;
            T* sj = da_src.data() + j * H;
            for (EdgeId k = out_offsets[j]; k < out_offsets[j + 1]; ++k) {
                const EdgeId e = out_edge[k];
                const T* di = dout.data() + static_cast<Eigen::Index>(out_dst[k]) * W;
                const T* u = alpha_used + e * H;
                for (Eigen::Index h = 0; h < H; ++h) sj[h] += dz(e, h);
                if (concat) {
                    for (Eigen::Index h = 0; h < H; ++h)
                        for (Eigen::Index c = 0; c < C; ++c) spread[h * C + c] = u[h];
                    for (Eigen::Index q = 0; q < HC; ++q) dj[q] += spread[q] * di[q];
                } else {
                    for (Eigen::Index h = 0; h < H; ++h)
                        for (Eigen::Index c = 0; c < C; ++c) dj[h * C + c] += u[h] * di[c];
                }
            }
            const T* dd = da_dst.data() + j * H;
            for (Eigen::Index h = 0; h < H; ++h)
                for (Eigen::Index c = 0; c < C; ++c) dj[h * C + c] += sj[h] * att_src[h * C + c] + dd[h] * att_dst[h * C + c];
        }
    }
    // Attention vectors: da_src[h] += Σ_n da_src_nh xw_nh, da_dst[h] likewise (fixed chunk order).
    add_head_weighted_sums(da_src, da_dst, xw, C, att_src_.grad, att_dst_.grad);

    // xw = x'·W ⇒ dW += x'ᵀ·dxw, dx' = dxw·Wᵀ; residual: out += x'·W_res.
    input_transpose_times_add(cache, dxw, weight_.grad);
    if (options_.residual) input_transpose_times_add(cache, dout, res_weight_.grad);
    MatrixT<T> dx;
    if (!need_dx) return dx;
    gemm_nt(dxw, weight_.value, dx);
    if (options_.residual) gemm_nt(dout, res_weight_.value, dx, /*accumulate=*/true);
    // x' = dropout(x) ⇒ dx = mask ⊙ dx'
    if (cache.input_drop.active) apply_dropout_mask(dx, cache.input_drop.key, options_.input_dropout);
    return dx;
}

template <class T>
void GatConvT<T>::parameters(ParameterList<T>& out) {
    out.push_back(&weight_);
    out.push_back(&att_src_);
    out.push_back(&att_dst_);
    if (options_.edge_dim > 0) {
        out.push_back(&lin_edge_);
        out.push_back(&att_edge_);
    }
    if (options_.bias) out.push_back(&bias_);
    if (options_.residual) out.push_back(&res_weight_);
}

template class GatConvT<float>;
template class GatConvT<double>;

}  // namespace gatkit
