#include "gatkit/nn/decoder.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/row_sums.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>

namespace gatkit {

PairDecoderKind parse_link_decoder(const std::string& name) {
    if (name == "dot") return PairDecoderKind::dot;
    if (name == "hadamard-mlp") return PairDecoderKind::hadamard_mlp;
    if (name == "edge-classes") return PairDecoderKind::edge_classes;
    throw ConfigError("unknown decoder '" + name + "' (expected dot or hadamard-mlp)");
}

std::string to_string(PairDecoderKind kind) {
    switch (kind) {
        case PairDecoderKind::dot: return "dot";
        case PairDecoderKind::hadamard_mlp: return "hadamard-mlp";
        case PairDecoderKind::edge_classes: return "edge-classes";
    }
    return "?";
}

namespace {

const PairDecoderOptions& checked(const PairDecoderOptions& o, const std::string& name) {
    if (o.dim <= 0) throw ConfigError(name + ": dim must be positive, got " + std::to_string(o.dim));
    if (o.kind == PairDecoderKind::dot && o.out != 1)
        throw ConfigError(name + ": the dot decoder has one output, got out = " + std::to_string(o.out));
    if (o.kind != PairDecoderKind::dot && (o.mlp_hidden <= 0 || o.out <= 0))
        throw ConfigError(name + ": mlp_hidden and out must be positive, got " + std::to_string(o.mlp_hidden) + " and " +
                          std::to_string(o.out));
    return o;
}

// Every pair names rows of z (GraphError naming the first that does not), and the cache holds a
// copy of them for backward. Both in parallel: a link epoch has ~150k pairs.
template <class T>
void check_and_keep_pairs(const MatrixT<T>& z, const std::vector<NodePair>& pairs, std::vector<NodePair>& kept) {
    const auto n = static_cast<NodeId>(z.rows());
    const auto P = static_cast<std::ptrdiff_t>(pairs.size());
    std::ptrdiff_t first_bad = P;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
    for (std::ptrdiff_t p = 0; p < P; ++p) {
        const auto [u, v] = pairs[static_cast<std::size_t>(p)];
        if (u < 0 || u >= n || v < 0 || v >= n) first_bad = std::min(first_bad, p);
    }
    if (first_bad < P) {
        const auto [u, v] = pairs[static_cast<std::size_t>(first_bad)];
        throw GraphError("pair " + std::to_string(first_bad) + " (" + std::to_string(u) + ", " + std::to_string(v) +
                         ") names a node outside [0, " + std::to_string(n) + ")");
    }
    if (kept.size() != pairs.size()) {
        kept = pairs;
        return;
    }
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t p = 0; p < P; ++p) kept[static_cast<std::size_t>(p)] = pairs[static_cast<std::size_t>(p)];
}

}  // namespace

template <class T>
PairDecoderT<T>::PairDecoderT(const PairDecoderOptions& options, Rng& rng, const std::string& name)
    : options_(checked(options, name)) {
    if (options_.kind == PairDecoderKind::dot) return;
    const Eigen::Index in = options_.kind == PairDecoderKind::edge_classes ? 3 * options_.dim : options_.dim;
    mlp_ = std::make_unique<MlpT<T>>(MlpOptions{.in = in, .hidden = options_.mlp_hidden, .out = options_.out, .dropout = options_.dropout},
                                     rng, name);
}

template <class T>
MatrixT<T> PairDecoderT<T>::forward(const MatrixT<T>& z, const std::vector<NodePair>& pairs, PairDecoderCache<T>& cache,
                                    bool training, Rng* rng) const {
    if (z.cols() != options_.dim)
        throw ShapeError("decoder: z has " + std::to_string(z.cols()) + " columns, expected " + std::to_string(options_.dim));
    check_and_keep_pairs(z, pairs, cache.pairs);
    const auto P = static_cast<Eigen::Index>(pairs.size());
    const Eigen::Index C = options_.dim;
    if (options_.kind == PairDecoderKind::dot) {
        MatrixT<T> s(P, 1);
#pragma omp parallel for schedule(static)
        for (Eigen::Index p = 0; p < P; ++p) s(p, 0) = z.row(pairs[p].first).dot(z.row(pairs[p].second));
        return s;
    }
    const bool concat = options_.kind == PairDecoderKind::edge_classes;
    MatrixT<T> in(P, concat ? 3 * C : C);
#pragma omp parallel for schedule(static)
    for (Eigen::Index p = 0; p < P; ++p) {
        const auto zu = z.row(pairs[p].first), zv = z.row(pairs[p].second);
        if (concat) {
            in.row(p).segment(0, C) = zu;
            in.row(p).segment(C, C) = zv;
            in.row(p).segment(2 * C, C) = zu.cwiseProduct(zv);
        } else {
            in.row(p) = zu.cwiseProduct(zv);
        }
    }
    return mlp_->forward(in, cache.mlp, training, rng);
}

template <class T>
void PairDecoderT<T>::backward(const MatrixT<T>& dout, const MatrixT<T>& z, const PairDecoderCache<T>& cache, MatrixT<T>& dz) {
    const auto P = static_cast<Eigen::Index>(cache.pairs.size());
    if (dout.rows() != P || dout.cols() != options_.out)
        throw ShapeError("decoder: dout is " + std::to_string(dout.rows()) + "x" + std::to_string(dout.cols()) + ", expected " +
                         std::to_string(P) + "x" + std::to_string(options_.out));
    if (dz.rows() != z.rows() || dz.cols() != z.cols())
        throw ShapeError("decoder: dz is " + std::to_string(dz.rows()) + "x" + std::to_string(dz.cols()) + ", expected " +
                         std::to_string(z.rows()) + "x" + std::to_string(z.cols()));
    if (&dz == &z) throw ConfigError("decoder: dz must not be z itself");
    const Eigen::Index C = options_.dim;
    if (options_.kind == PairDecoderKind::dot) {
        // s_p = z_u · z_v ⇒ dz_u += g_p z_v, dz_v += g_p z_u (twice g_p z_u when u = v). Scattered
        // by node, in parallel: each node's contributions come from the pairs that touch it, in
        // pair order, so every row gets the same additions in the same order as a serial loop.
        // The pairs touching each node, in pair order, by a counting sort over R fixed ranges of
        // pairs (R = 1 for few pairs): each range counts, then places, its own entries, and node
        // n's entries from range r follow those from ranges < r, so the list is the serial one.
        const auto N = static_cast<std::size_t>(z.rows());
        const auto R = static_cast<std::ptrdiff_t>(P >= 8192 && static_cast<std::size_t>(P) >= N ? 8 : 1);
        const Eigen::Index range = (P + R - 1) / R;
        std::vector<EdgeId> place(static_cast<std::size_t>(R) * N, 0);  // per range: counts, then next positions
#pragma omp parallel for schedule(static) if (R > 1)
        for (std::ptrdiff_t r = 0; r < R; ++r) {
            EdgeId* count = place.data() + static_cast<std::size_t>(r) * N;
            for (Eigen::Index p = r * range; p < std::min(P, (r + 1) * range); ++p) {
                const auto [u, v] = cache.pairs[static_cast<std::size_t>(p)];
                ++count[static_cast<std::size_t>(u)];
                ++count[static_cast<std::size_t>(v)];
            }
        }
        std::vector<EdgeId> offsets(N + 1, 0);
        EdgeId total = 0;
        for (std::size_t n = 0; n < N; ++n) {
            offsets[n] = total;
            for (std::ptrdiff_t r = 0; r < R; ++r) {
                EdgeId& c = place[static_cast<std::size_t>(r) * N + n];
                const EdgeId k = c;
                c = total;
                total += k;
            }
        }
        offsets[N] = total;
        // (pair, other end) of each touch, every entry written below: not zero-filled first (a
        // serial pass over 2·P entries, 4.8 MB for an ego-Facebook epoch)
        struct Touch {
            Eigen::Index pair;
            NodeId other;
        };
        const auto touch = std::make_unique_for_overwrite<Touch[]>(static_cast<std::size_t>(total));
#pragma omp parallel for schedule(static) if (R > 1)
        for (std::ptrdiff_t r = 0; r < R; ++r) {
            EdgeId* next = place.data() + static_cast<std::size_t>(r) * N;
            for (Eigen::Index p = r * range; p < std::min(P, (r + 1) * range); ++p) {
                const auto [u, v] = cache.pairs[static_cast<std::size_t>(p)];
                touch[static_cast<std::size_t>(next[static_cast<std::size_t>(u)]++)] = {.pair = p, .other = v};
                touch[static_cast<std::size_t>(next[static_cast<std::size_t>(v)]++)] = {.pair = p, .other = u};
            }
        }
        // dz and z are row-major: row n of either starts at data() + n·C
        const auto rows = static_cast<Eigen::Index>(N);
#pragma omp parallel for schedule(dynamic, 64)
        for (Eigen::Index n = 0; n < rows; ++n)
            detail::sum_rows(dz.data() + n * C, C, offsets[static_cast<std::size_t>(n)], offsets[static_cast<std::size_t>(n) + 1],
                             /*accumulate=*/true, [&](EdgeId k) {
                                 const Touch t = touch[static_cast<std::size_t>(k)];
                                 return std::pair{dout(t.pair, 0), z.data() + static_cast<Eigen::Index>(t.other) * C};
                             });
        return;
    }
    const MatrixT<T> din = mlp_->backward(dout, cache.mlp, /*need_dx=*/true);
    const bool concat = options_.kind == PairDecoderKind::edge_classes;
    for (Eigen::Index p = 0; p < P; ++p) {
        const auto [u, v] = cache.pairs[p];
        const auto dh = din.row(p).segment(concat ? 2 * C : 0, C);
        dz.row(u) += dh.cwiseProduct(z.row(v));  // z is not dz: no copies needed when u = v
        dz.row(v) += dh.cwiseProduct(z.row(u));
        if (concat) {
            dz.row(u) += din.row(p).segment(0, C);
            dz.row(v) += din.row(p).segment(C, C);
        }
    }
}

template <class T>
void PairDecoderT<T>::parameters(ParameterList<T>& out) {
    if (mlp_) mlp_->parameters(out);
}

template class PairDecoderT<float>;
template class PairDecoderT<double>;

}  // namespace gatkit
