#include "gatkit/nn/gatv2_conv.hpp"
#include "gatkit/nn/self_loop_attr.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/init.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gatkit {

namespace {

const Gatv2ConvOptions& validated(const Gatv2ConvOptions& o, const std::string& name) {
    if (o.in <= 0 || o.out <= 0 || o.heads <= 0)
        throw ConfigError(name + ": in, out and heads must be positive, got in = " + std::to_string(o.in) +
                          ", out = " + std::to_string(o.out) + ", heads = " + std::to_string(o.heads));
    if (o.edge_dim < 0) throw ConfigError(name + ": edge_dim must be >= 0, got " + std::to_string(o.edge_dim));
    if (!(o.negative_slope >= 0.0))
        throw ConfigError(name + ": negative_slope must be >= 0, got " + std::to_string(o.negative_slope));
    check_dropout_rate(name.c_str(), o.dropout);
    check_dropout_rate(name.c_str(), o.input_dropout);
    return o;
}

// The sums over all edges in backward (gradients of a and W_e) go to one partial per chunk of
// destination rows; the chunks hold about kEdgesPerChunk edges each (at most kMaxChunks of them,
// which bounds the partials' memory) and are cut from the graph alone, and the partials are added
// in chunk order, so the result does not depend on the number of threads.
constexpr EdgeId kEdgesPerChunk = 512;
constexpr EdgeId kMaxChunks = 256;

// Row bounds: chunk k covers destination rows bounds[k] .. bounds[k+1).
std::vector<Eigen::Index> row_chunks(const std::vector<EdgeId>& offsets) {
    if (offsets.size() < 2) return {0, 0};
    const auto N = static_cast<Eigen::Index>(offsets.size() - 1);
    const EdgeId E = offsets.back();
    const EdgeId n = std::clamp<EdgeId>((E + kEdgesPerChunk - 1) / kEdgesPerChunk, 1, kMaxChunks);
    std::vector<Eigen::Index> bounds(static_cast<std::size_t>(n + 1));
    for (EdgeId k = 0; k < n; ++k)
        bounds[static_cast<std::size_t>(k)] = std::lower_bound(offsets.begin(), offsets.end(), k * E / n) - offsets.begin();
    bounds.back() = N;
    return bounds;
}

// One head's score: s = aᵀ LeakyReLU(z), z = x_s,jh + x_d,ih [+ (e_ij · W_e)_h], all C long.
template <class T>
T attention_score(const T* xs, const T* xd, const T* ew, const T* a, Eigen::Index C, T slope) {
    T s = 0;
    for (Eigen::Index c = 0; c < C; ++c) {
        const T z = xs[c] + xd[c] + (ew ? ew[c] : T(0));
        s += a[c] * (z > T(0) ? z : slope * z);
    }
    return s;
}

}  // namespace

template <class T>
Gatv2ConvT<T>::Gatv2ConvT(const Gatv2ConvOptions& options, Rng& rng, const std::string& name)
    : options_(validated(options, name)),
      name_(name),
      lin_l_weight_(name + ".lin_l.weight", options.in, options.heads * options.out),
      lin_l_bias_(name + ".lin_l.bias", options.bias ? 1 : 0, options.bias ? options.heads * options.out : 0),
      lin_r_weight_(name + ".lin_r.weight", options.share_weights ? 0 : options.in,
                    options.share_weights ? 0 : options.heads * options.out),
      lin_r_bias_(name + ".lin_r.bias", options.bias && !options.share_weights ? 1 : 0,
                  options.bias && !options.share_weights ? options.heads * options.out : 0),
      att_(name + ".att", options.heads, options.out),
      lin_edge_(name + ".lin_edge.weight", options.edge_dim, options.edge_dim > 0 ? options.heads * options.out : 0),
      res_weight_(name + ".res.weight", options.residual ? options.in : 0, options.residual ? out_width() : 0),
      bias_(name + ".bias", options.bias ? 1 : 0, options.bias ? out_width() : 0) {
    const Gatv2ConvOptions& o = options_;
    const Eigen::Index HC = o.heads * o.out;
    // As PyG: Glorot for the projections and a; lin_l/lin_r biases uniform in ±1/√F (PyG's Linear
    // without a bias initializer); the output bias stays 0.
    const double bias_bound = 1.0 / std::sqrt(static_cast<double>(o.in));
    auto linear_bias = [&](MatrixT<T>& b) {
        for (Eigen::Index k = 0; k < b.size(); ++k) b.data()[k] = static_cast<T>(rng.uniform(-bias_bound, bias_bound));
    };
    glorot_uniform(lin_l_weight_.value, o.in, HC, rng);
    linear_bias(lin_l_bias_.value);
    if (!o.share_weights) {
        glorot_uniform(lin_r_weight_.value, o.in, HC, rng);
        linear_bias(lin_r_bias_.value);
    }
    glorot_uniform(att_.value, o.heads, o.out, rng);
    if (o.residual) glorot_uniform(res_weight_.value, o.in, out_width(), rng);
    // Drawn last, so turning edge features on leaves every other initial value unchanged.
    if (o.edge_dim > 0) glorot_uniform(lin_edge_.value, o.edge_dim, HC, rng);
}

template <class T>
void Gatv2ConvT<T>::loop_edge_attr(const Graph& graph, const Graph& g, const MatrixT<T>& edge_attr, Gatv2ConvCache<T>& cache) const {
    self_looped_edge_attr(graph, g, edge_attr, cache.edge_attr);
}

template <class T>
MatrixT<T> Gatv2ConvT<T>::forward(const Graph& graph, const MatrixT<T>& x, Gatv2ConvCache<T>& cache, bool training, Rng* rng,
                                  const MatrixT<T>* edge_attr) const {
    return forward_input(graph, &x, nullptr, cache, training, rng, edge_attr);
}

template <class T>
MatrixT<T> Gatv2ConvT<T>::forward(const Graph& graph, const SparseRowsT<T>& x, Gatv2ConvCache<T>& cache, bool training, Rng* rng,
                                  const MatrixT<T>* edge_attr) const {
    return forward_input(graph, nullptr, &x, cache, training, rng, edge_attr);
}

template <class T>
MatrixT<T> Gatv2ConvT<T>::forward_input(const Graph& graph, const MatrixT<T>* x, const SparseRowsT<T>* x_sparse,
                                        Gatv2ConvCache<T>& cache, bool training, Rng* rng, const MatrixT<T>* edge_attr) const {
    using RowVec = Eigen::Matrix<T, 1, Eigen::Dynamic>;
    const Eigen::Index N = graph.num_nodes(), H = options_.heads, C = options_.out, D = options_.edge_dim, HC = H * C;
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
    const bool input_drop = training && options_.input_dropout > 0.0;
    const bool attn_drop = training && options_.dropout > 0.0;
    if ((input_drop || attn_drop) && !rng) throw ConfigError(name_ + ": training with dropout needs an Rng");

    const Graph& g = options_.add_self_loops ? graph.with_self_loops() : graph;
    cache.graph = &g;
    const auto& offsets = g.in_offsets();
    const auto& src = g.in_src();
    const T slope = static_cast<T>(options_.negative_slope);

    DropoutCache input_mask;
    input_mask.active = input_drop;
    cache.attn_drop.active = attn_drop;
    if (input_drop) input_mask.key = rng->next_u64();
    cache.input.set(x, x_sparse, input_mask, options_.input_dropout);
    if (attn_drop) cache.attn_drop.key = rng->next_u64();

    // x_s = x'·W_s + b_s, x_d = x'·W_d + b_d (the same matrix when share_weights)
    cache.input.times(lin_l_weight_.value, cache.x_src);
    if (options_.bias) cache.x_src.rowwise() += lin_l_bias_.value.row(0);
    if (options_.share_weights) {
        cache.x_dst.resize(0, 0);
    } else {
        cache.input.times(lin_r_weight_.value, cache.x_dst);
        if (options_.bias) cache.x_dst.rowwise() += lin_r_bias_.value.row(0);
    }
    const MatrixT<T>& xs = cache.x_src;
    const MatrixT<T>& xd = options_.share_weights ? cache.x_src : cache.x_dst;

    if (has_edges)
        loop_edge_attr(graph, g, *edge_attr, cache);
    else
        cache.edge_attr.resize(0, 0);

    cache.alpha.resize(g.num_edges(), H);
    MatrixT<T> out = MatrixT<T>::Zero(N, out_width());
    const T head_scale = options_.concat ? T(1) : T(1) / T(H);
    // The dropout multipliers of α in one flat pass (dropout.hpp; index e·H + h), kept for backward.
    if (attn_drop) {
        cache.attn_mult.resize(g.num_edges(), H);
        scale_kept<T>(nullptr, cache.attn_mult.data(), cache.attn_mult.size(), cache.attn_drop.key, 0, options_.dropout);
    } else {
        cache.attn_mult.resize(0, 0);
    }

#pragma omp parallel
    {
        RowVec ew(has_edges ? HC : 0);  // e_ij · W_e of the current edge, all heads
#pragma omp for schedule(dynamic, 64)
        for (Eigen::Index i = 0; i < N; ++i) {
            const EdgeId e0 = offsets[i], e1 = offsets[i + 1];
            if (e0 == e1) continue;  // attends to nothing: attention output stays 0 (documented)
            for (EdgeId e = e0; e < e1; ++e) {
                const NodeId j = src[e];
                if (has_edges) ew.noalias() = cache.edge_attr.row(e) * lin_edge_.value;
                for (Eigen::Index h = 0; h < H; ++h)
                    cache.alpha(e, h) = attention_score(&xs(j, h * C), &xd(i, h * C), has_edges ? &ew(h * C) : nullptr,
                                                        &att_.value(h, 0), C, slope);
            }
            for (Eigen::Index h = 0; h < H; ++h) {
                // Subtract the row maximum before exp so no score overflows; start from -inf.
                T row_max = -std::numeric_limits<T>::infinity();
                for (EdgeId e = e0; e < e1; ++e) row_max = std::max(row_max, cache.alpha(e, h));
                T sum = 0;
                for (EdgeId e = e0; e < e1; ++e) {
                    const T w = std::exp(cache.alpha(e, h) - row_max);
                    cache.alpha(e, h) = w;
                    sum += w;
                }
                const T inv = T(1) / sum;  // sum >= 1: the max term contributes exp(0)
                auto out_h = out.row(i).segment(options_.concat ? h * C : 0, C);
                for (EdgeId e = e0; e < e1; ++e) {
                    cache.alpha(e, h) *= inv;
                    T a = cache.alpha(e, h) * head_scale;
                    if (attn_drop) a = times_kept(a, cache.attn_mult(e, h));
                    if (a != T(0)) out_h.noalias() += a * xs.row(src[e]).segment(h * C, C);
                }
            }
        }
    }
    if (options_.residual) cache.input.times(res_weight_.value, out, /*accumulate=*/true);
    if (options_.bias) out.rowwise() += bias_.value.row(0);
    return out;
}

template <class T>
MatrixT<T> Gatv2ConvT<T>::backward(const MatrixT<T>& dout, const Gatv2ConvCache<T>& cache, bool need_dx) {
    using RowVec = Eigen::Matrix<T, 1, Eigen::Dynamic>;
    if (!cache.graph) throw ConfigError(name_ + ": backward called before forward");
    const Graph& g = *cache.graph;
    const Eigen::Index N = g.num_nodes(), H = options_.heads, C = options_.out, D = options_.edge_dim, HC = H * C;
    if (dout.rows() != N || dout.cols() != out_width())
        throw ShapeError(name_ + ": dout is " + std::to_string(dout.rows()) + "x" + std::to_string(dout.cols()) +
                         ", expected " + std::to_string(N) + "x" + std::to_string(out_width()));
    const auto& offsets = g.in_offsets();
    const auto& src = g.in_src();
    const bool share = options_.share_weights;
    const bool has_edges = D > 0;
    const MatrixT<T>& xs = cache.x_src;
    const MatrixT<T>& xd = share ? cache.x_src : cache.x_dst;
    const MatrixT<T>& att = att_.value;
    const T slope = static_cast<T>(options_.negative_slope);
    const bool attn_drop = cache.attn_drop.active;
    const T head_scale = options_.concat ? T(1) : T(1) / T(H);
    // In the forward pass α'_eh = dropout(α_eh) · head_scale multiplied the message; this is it.
    auto alpha_used = [&](EdgeId e, Eigen::Index h) {
        T a = cache.alpha(e, h) * head_scale;
        if (attn_drop) a = times_kept(a, cache.attn_mult(e, h));
        return a;
    };
    // Column block of dout that head h's output went to.
    const auto head_col = [&](Eigen::Index h) { return options_.concat ? h * C : Eigen::Index(0); };

    if (options_.bias) bias_.grad.row(0) += dout.colwise().sum();

    // Pass 1, over destination rows i (in fixed chunks, see row_chunks):
    //   out_ih = Σ_e α'_eh x_s,jh             ⇒ dα'_eh = dout_ih · x_s,jh
    //   α = softmax(s) over the row           ⇒ ds_eh = α_eh (dα_eh − Σ_e' α_e'h dα_e'h)
    //   s_eh = a_hᵀ LeakyReLU(z_eh)            ⇒ da_h += ds_eh LeakyReLU(z_eh),
    //                                           dz_eh = ds_eh a_h ⊙ LeakyReLU'(z_eh)
    //   z_eh = x_s,jh + x_d,ih [+ (e_e·W_e)_h]  ⇒ dx_d,ih += dz_eh, dW_e += e_eᵀ dz_e
    // z is per edge and channel, so it is recomputed here (and in pass 2), never stored.
    MatrixT<T> ds(g.num_edges(), H);
    MatrixT<T> dxd = MatrixT<T>::Zero(N, HC);
    const std::vector<Eigen::Index> chunks = row_chunks(offsets);
    const auto n_chunks = static_cast<Eigen::Index>(chunks.size() - 1);
    std::vector<MatrixT<T>> datt_part(static_cast<std::size_t>(n_chunks));
    std::vector<MatrixT<T>> dlin_edge_part(static_cast<std::size_t>(n_chunks));
#pragma omp parallel
    {
        RowVec ew(has_edges ? HC : 0);  // e_e · W_e, all heads
        RowVec dz(has_edges ? HC : 0);  // dz_e, all heads (for dW_e)
#pragma omp for schedule(dynamic, 1)
        for (Eigen::Index k = 0; k < n_chunks; ++k) {
            MatrixT<T>& datt = datt_part[static_cast<std::size_t>(k)];
            MatrixT<T>& dlin_edge = dlin_edge_part[static_cast<std::size_t>(k)];
            datt.setZero(H, C);
            if (has_edges) dlin_edge.setZero(D, HC);
            for (Eigen::Index i = chunks[static_cast<std::size_t>(k)]; i < chunks[static_cast<std::size_t>(k + 1)]; ++i) {
                const EdgeId e0 = offsets[i], e1 = offsets[i + 1];
                for (Eigen::Index h = 0; h < H; ++h) {
                    const auto dout_ih = dout.row(i).segment(head_col(h), C);
                    T weighted = 0;
                    for (EdgeId e = e0; e < e1; ++e) {
                        // d(out)/d(α_eh) folds in the head scale and the dropout mask of α'
                        T da = dout_ih.dot(xs.row(src[e]).segment(h * C, C)) * head_scale;
                        if (attn_drop) da = times_kept(da, cache.attn_mult(e, h));
                        ds(e, h) = da;
                        weighted += cache.alpha(e, h) * da;
                    }
                    for (EdgeId e = e0; e < e1; ++e) ds(e, h) = cache.alpha(e, h) * (ds(e, h) - weighted);
                }
                for (EdgeId e = e0; e < e1; ++e) {
                    const NodeId j = src[e];
                    if (has_edges) ew.noalias() = cache.edge_attr.row(e) * lin_edge_.value;
                    for (Eigen::Index h = 0; h < H; ++h) {
                        const T ds_eh = ds(e, h);
                        for (Eigen::Index c = 0; c < C; ++c) {
                            const Eigen::Index col = h * C + c;
                            const T z = xs(j, col) + xd(i, col) + (has_edges ? ew(col) : T(0));
                            datt(h, c) += ds_eh * (z > T(0) ? z : slope * z);
                            const T dz_c = ds_eh * att(h, c) * (z > T(0) ? T(1) : slope);
                            dxd(i, col) += dz_c;
                            if (has_edges) dz(col) = dz_c;
                        }
                    }
                    if (has_edges) dlin_edge.noalias() += cache.edge_attr.row(e).transpose() * dz;
                }
            }
        }
    }
    // The chunk partials, added in chunk order.
    {
        MatrixT<T> datt = MatrixT<T>::Zero(H, C);
        for (const auto& part : datt_part) datt += part;
        att_.grad += datt;
        if (has_edges) {
            MatrixT<T> dlin_edge = MatrixT<T>::Zero(D, HC);
            for (const auto& part : dlin_edge_part) dlin_edge += part;
            lin_edge_.grad += dlin_edge;
        }
    }

    // Pass 2, over source rows j of the transposed CSR (each thread owns rows of dx_s):
    //   out_ih = Σ α'_eh x_s,jh  ⇒ dx_s,jh += α'_eh dout_ih                    (value path)
    //   z_eh = x_s,jh + …        ⇒ dx_s,jh += ds_eh a_h ⊙ LeakyReLU'(z_eh)     (score path)
    MatrixT<T> dxs = MatrixT<T>::Zero(N, HC);
    const auto& out_offsets = g.out_offsets();
    const auto& out_dst = g.out_dst();
    const auto& out_edge = g.out_edge();
#pragma omp parallel
    {
        RowVec ew(has_edges ? HC : 0);
#pragma omp for schedule(dynamic, 64)
        for (Eigen::Index j = 0; j < N; ++j)
            for (EdgeId k = out_offsets[j]; k < out_offsets[j + 1]; ++k) {
                const NodeId i = out_dst[k];
                const EdgeId e = out_edge[k];
                if (has_edges) ew.noalias() = cache.edge_attr.row(e) * lin_edge_.value;
                for (Eigen::Index h = 0; h < H; ++h) {
                    const T a = alpha_used(e, h);
                    if (a != T(0)) dxs.row(j).segment(h * C, C).noalias() += a * dout.row(i).segment(head_col(h), C);
                    const T ds_eh = ds(e, h);
                    for (Eigen::Index c = 0; c < C; ++c) {
                        const Eigen::Index col = h * C + c;
                        const T z = xs(j, col) + xd(i, col) + (has_edges ? ew(col) : T(0));
                        dxs(j, col) += ds_eh * att(h, c) * (z > T(0) ? T(1) : slope);
                    }
                }
            }
    }

    // x_s = x'·W_s + b_s ⇒ dW_s += x'ᵀ·dx_s, db_s += Σ_rows dx_s, dx' = dx_s·W_sᵀ; the same for
    // x_d. With share_weights both went through lin_l: its gradient sees dx_s + dx_d.
    if (share) dxs += dxd;
    cache.input.transpose_times_add(dxs, lin_l_weight_.grad);
    if (options_.bias) lin_l_bias_.grad.row(0) += dxs.colwise().sum();
    if (!share) {
        cache.input.transpose_times_add(dxd, lin_r_weight_.grad);
        if (options_.bias) lin_r_bias_.grad.row(0) += dxd.colwise().sum();
    }
    // residual: out += x'·W_res
    if (options_.residual) cache.input.transpose_times_add(dout, res_weight_.grad);
    MatrixT<T> dx;
    if (!need_dx) return dx;
    gemm_nt(dxs, lin_l_weight_.value, dx);
    if (!share) gemm_nt(dxd, lin_r_weight_.value, dx, /*accumulate=*/true);
    if (options_.residual) gemm_nt(dout, res_weight_.value, dx, /*accumulate=*/true);
    // x' = dropout(x) ⇒ dx = mask ⊙ dx'
    if (cache.input.dropout().active) apply_dropout_mask(dx, cache.input.dropout().key, options_.input_dropout);
    return dx;
}

template <class T>
void Gatv2ConvT<T>::parameters(ParameterList<T>& out) {
    out.push_back(&lin_l_weight_);
    if (options_.bias) out.push_back(&lin_l_bias_);
    if (!options_.share_weights) {
        out.push_back(&lin_r_weight_);
        if (options_.bias) out.push_back(&lin_r_bias_);
    }
    out.push_back(&att_);
    if (options_.edge_dim > 0) out.push_back(&lin_edge_);
    if (options_.residual) out.push_back(&res_weight_);
    if (options_.bias) out.push_back(&bias_);
}

template class Gatv2ConvT<float>;
template class Gatv2ConvT<double>;

}  // namespace gatkit
