// GatConv, Gatv2Conv and DotAttentionConv on sparse inputs (core/sparse.hpp; the latter two
// through nn/layer_input.hpp): against the same layers on the same input dense, finite-difference
// checked, identical with 1 and 2 threads, and the model's first layer taking the sparse rows for
// every conv. Also their attention-dropout
// multipliers (drawn once per forward) against the element-wise mask.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/nn/dot_attention.hpp"
#include "gatkit/nn/dropout.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/nn/gatv2_conv.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace gatkit;
using gatkit::test::gradients;
using gatkit::test::random_matrix;

namespace {

// Each layer with its cache, in the variants the tests run: every option that touches the input
// products (heads, concat, the skip or residual projection, shared weights, beta).
template <class Layer>
struct Kind;
template <class T>
struct Kind<GatConvT<T>> {
    using Cache = GatConvCache<T>;
    static GatConvT<T> make(Eigen::Index in, int variant, double dropout, Eigen::Index edge_dim, Rng& rng, Eigen::Index out,
                              Eigen::Index heads) {
        return GatConvT<T>({.in = in, .out = out, .heads = variant % 2 ? heads : 1, .concat = variant != 3, .dropout = dropout,
                            .input_dropout = dropout, .residual = variant >= 1, .edge_dim = edge_dim},
                           rng);
    }
    static bool took_sparse(const Cache& c) { return c.x_sparse != nullptr; }
};
template <class T>
struct Kind<Gatv2ConvT<T>> {
    using Cache = Gatv2ConvCache<T>;
    static Gatv2ConvT<T> make(Eigen::Index in, int variant, double dropout, Eigen::Index edge_dim, Rng& rng, Eigen::Index out,
                              Eigen::Index heads) {
        return Gatv2ConvT<T>({.in = in, .out = out, .heads = variant % 2 ? heads : 1, .concat = variant != 3, .dropout = dropout,
                              .input_dropout = dropout, .residual = variant >= 1, .edge_dim = edge_dim, .share_weights = variant == 3},
                             rng);
    }
    static bool took_sparse(const Cache& c) { return c.input.is_sparse(); }
};
template <class T>
struct Kind<DotAttentionConvT<T>> {
    using Cache = DotAttentionCache<T>;
    static DotAttentionConvT<T> make(Eigen::Index in, int variant, double dropout, Eigen::Index edge_dim, Rng& rng, Eigen::Index out,
                              Eigen::Index heads) {
        return DotAttentionConvT<T>({.in = in, .out = out, .heads = variant % 2 ? heads : 1, .concat = variant != 3, .beta = variant == 3,
                                     .dropout = dropout, .input_dropout = dropout, .edge_dim = edge_dim, .root_weight = variant >= 1},
                                    rng);
    }
    static bool took_sparse(const Cache& c) { return c.input.is_sparse(); }
};
constexpr int kVariants = 4;

// variant 0: one head; 1: several, with the skip or residual term; 2: one head with it; 3: several
// averaged, with it and GATv2's shared weights or the dot product's beta gate.
template <class Layer>
Layer make(Eigen::Index in, int variant, double dropout, Eigen::Index edge_dim, Rng& rng, Eigen::Index out = 3, Eigen::Index heads = 3) {
    return Kind<Layer>::make(in, variant, dropout, edge_dim, rng, out, heads);
}

template <class Layer>
using CacheOf = typename Kind<Layer>::Cache;

}  // namespace

TEMPLATE_TEST_CASE("Each conv on sparse input equals the same layer on the input dense", "[nn][sparse]",
                   GatConvT<double>, Gatv2ConvT<double>, DotAttentionConvT<double>) {
    Rng rng(41);
    const Graph g = test::random_graph(30, 0.12, rng);
    for (int variant = 0; variant < kVariants; ++variant)
        for (const double dropout : {0.0, 0.5})
            for (const Eigen::Index edge_dim : {0, 2}) {
                CAPTURE(variant, dropout, edge_dim);
                TestType layer = make<TestType>(25, variant, dropout, edge_dim, rng);
                const MatrixT<double> x = test::mostly_zero_matrix<double>(30, 25, 0.12, rng);
                const SparseRowsT<double> xs = SparseRowsT<double>::from_dense(x);
                const MatrixT<double> attr = random_matrix<double>(g.num_edges(), edge_dim, rng);
                const MatrixT<double> dout = random_matrix<double>(30, layer.out_width(), rng);
                ParameterList<double> params;
                layer.parameters(params);
                const auto run = [&](bool sparse) {
                    for (auto* p : params) p->grad.setZero();
                    CacheOf<TestType> cache;
                    Rng drop(8);
                    const MatrixT<double>* a = edge_dim > 0 ? &attr : nullptr;
                    MatrixT<double> out = sparse ? layer.forward(g, xs, cache, true, &drop, a) : layer.forward(g, x, cache, true, &drop, a);
                    REQUIRE(Kind<TestType>::took_sparse(cache) == sparse);
                    MatrixT<double> dx = layer.backward(dout, cache);
                    return std::make_tuple(out, dx, gradients(params));
                };
                const auto [out_d, dx_d, grads_d] = run(false);
                const auto [out_s, dx_s, grads_s] = run(true);
                CHECK((out_d - out_s).cwiseAbs().maxCoeff() < 1e-12);
                CHECK((dx_d - dx_s).cwiseAbs().maxCoeff() < 1e-12);
                REQUIRE(grads_d.size() == grads_s.size());
                for (std::size_t k = 0; k < grads_d.size(); ++k) CHECK((grads_d[k] - grads_s[k]).cwiseAbs().maxCoeff() < 1e-12);
                // The outputs moved off zero: the comparison is not of two empty results.
                CHECK(out_d.cwiseAbs().maxCoeff() > 1e-3);
            }
}

TEMPLATE_TEST_CASE("Each conv on sparse input: gradients match finite differences", "[nn][sparse][gradcheck]",
                   GatConvT<double>, Gatv2ConvT<double>, DotAttentionConvT<double>) {
    Rng rng(42);
    const Graph g = test::random_graph(12, 0.25, rng);
    for (int variant = 0; variant < kVariants; ++variant) {
        CAPTURE(variant);
        TestType layer = make<TestType>(9, variant, 0.3, 0, rng);
        const SparseRowsT<double> xs = SparseRowsT<double>::from_dense(test::mostly_zero_matrix<double>(12, 9, 0.3, rng));
        const MatrixT<double> weights = random_matrix<double>(12, layer.out_width(), rng);
        auto loss = [&] {
            Rng r(31);
            CacheOf<TestType> c;
            return (layer.forward(g, xs, c, /*training=*/true, &r).array() * weights.array()).sum();
        };
        CacheOf<TestType> cache;
        Rng r(31);
        layer.forward(g, xs, cache, true, &r);
        ParameterList<double> params;
        layer.parameters(params);
        test::prefill_grads(params);
        layer.backward(weights, cache, /*need_dx=*/false);
        const auto pr = test::check_parameter_gradients(params, loss);
        INFO(pr.worst);
        CHECK(pr.ok);
        CHECK(pr.checked == count_values(params));
    }
}

TEMPLATE_TEST_CASE("Each conv on sparse input gives identical outputs and gradients with 1 and 2 threads",
                   "[nn][sparse][threads]", GatConvT<float>, Gatv2ConvT<float>, DotAttentionConvT<float>) {
    Rng graph_rng(43);
    const Graph g = test::random_graph(700, 0.012, graph_rng);
    const int saved = thread_count();
    auto run = [&](int threads) {
        set_thread_count(threads);
        Rng rng(9);
        // GatConv: 4 heads of 8 channels, the vector row kernels' shape where the CPU has them
        TestType layer = make<TestType>(300, 1, 0.5, 0, rng, /*out=*/8, /*heads=*/4);
        const SparseRows xs = SparseRows::from_dense(test::mostly_zero_matrix<float>(700, 300, 0.02, rng));
        const Matrix w = random_matrix<float>(700, layer.out_width(), rng);
        CacheOf<TestType> cache;
        Rng drop(5);
        Matrix out = layer.forward(g, xs, cache, true, &drop);
        Matrix dx = layer.backward(w, cache, /*need_dx=*/true);
        ParameterList<float> params;
        layer.parameters(params);
        return std::make_tuple(out, dx, gradients(params));
    };
    const auto [out1, dx1, g1] = run(1);
    const auto [out2, dx2, g2] = run(2);
    set_thread_count(saved);
    CHECK(test::same_bits(out1, out2));
    CHECK(test::same_bits(dx1, dx2));
    REQUIRE(g1.size() == g2.size());
    for (std::size_t k = 0; k < g1.size(); ++k) CHECK(test::same_bits(g1[k], g2[k]));
}

TEST_CASE("Every conv takes sparse rows natively as the first layer, a transformer block densifies them", "[model][sparse]") {
    for (const std::string conv : {"gat", "gatv2", "transformer"})
        for (const std::string block : {"plain", "transformer"}) {
            CAPTURE(conv, block);
            ModelConfig config;
            config.task = "node";
            config.conv = conv;
            config.block = block;
            config.in_features = 60;
            config.num_classes = 3;
            config.layers = 2;
            config.hidden = 4;
            config.heads = 2;
            const Model model(config, 3);
            CHECK(model.takes_sparse_input() == (block == "plain"));
        }
}

TEMPLATE_TEST_CASE("Gatv2Conv and DotAttentionConv drop each alpha by the element-wise mask of index e*H + h", "[nn][dropout]",
                   Gatv2ConvT<float>, DotAttentionConvT<float>) {
    Rng rng(44);
    const Graph g = test::random_graph(60, 0.1, rng);
    const double p = 0.4;
    for (const Eigen::Index heads : {1, 3}) {
        CAPTURE(heads);
        // No skip or residual term (see the reference below); input dropout too.
        TestType layer = [&] {
            if constexpr (std::is_same_v<TestType, Gatv2ConvT<float>>)
                return Gatv2ConvT<float>({.in = 7, .out = 3, .heads = heads, .dropout = p, .input_dropout = p}, rng);
            else
                return DotAttentionConvT<float>({.in = 7, .out = 3, .heads = heads, .dropout = p, .input_dropout = p, .root_weight = false}, rng);
        }();
        const Matrix x = random_matrix<float>(60, 7, rng);
        CacheOf<TestType> cache;
        Rng drop(3);
        const Matrix out = layer.forward(g, x, cache, /*training=*/true, &drop);
        REQUIRE(cache.attn_drop.active);
        const Eigen::Index E = cache.graph->num_edges(), H = cache.alpha.cols();
        REQUIRE(cache.attn_mult.rows() == E);
        REQUIRE(cache.attn_mult.cols() == H);
        Eigen::Index dropped = 0;
        for (Eigen::Index e = 0; e < E; ++e)
            for (Eigen::Index h = 0; h < H; ++h) {
                const bool keep = dropout_keeps(cache.attn_drop.key, static_cast<std::uint64_t>(e * H + h), p);
                CHECK(cache.attn_mult(e, h) == (keep ? 1.0f / static_cast<float>(1 - p) : 0.0f));
                dropped += !keep;
            }
        CHECK(std::abs(static_cast<double>(dropped) / static_cast<double>(E * H) - p) < 0.1);
        // Without a skip or residual term the output is Σ_e α_eh · multiplier_eh · v_jh (+ the bias),
        // v the values (dot product) or the source projections (GATv2).
        const Matrix& v = [&]() -> const Matrix& {
            if constexpr (std::is_same_v<TestType, Gatv2ConvT<float>>)
                return cache.x_src;
            else
                return cache.value;
        }();
        const Eigen::Index C = v.cols() / H;
        Matrix want = Matrix::Zero(out.rows(), out.cols());
        for (Eigen::Index i = 0; i < g.num_nodes(); ++i)
            for (EdgeId e = cache.graph->in_offsets()[i]; e < cache.graph->in_offsets()[i + 1]; ++e)
                for (Eigen::Index h = 0; h < H; ++h)
                    want.row(i).segment(h * C, C) +=
                        cache.alpha(e, h) * cache.attn_mult(e, h) * v.row(cache.graph->in_src()[e]).segment(h * C, C);
        if constexpr (std::is_same_v<TestType, Gatv2ConvT<float>>) want.rowwise() += layer.bias().value.row(0);
        CHECK((out - want).cwiseAbs().maxCoeff() < 1e-5f);
    }
}

TEMPLATE_TEST_CASE("Each conv: backward after a forward on sparse rows without a column index is a ShapeError", "[nn][sparse]",
                   GatConvT<float>, Gatv2ConvT<float>, DotAttentionConvT<float>) {
    Rng rng(45);
    const Graph g = test::random_graph(20, 0.2, rng);
    TestType layer = make<TestType>(12, 1, 0.0, 0, rng);
    const SparseRows rows_only = SparseRows::from_dense(test::mostly_zero_matrix<float>(20, 12, 0.3, rng), /*with_columns=*/false);
    CacheOf<TestType> cache;
    const Matrix out = layer.forward(g, rows_only, cache, /*training=*/false);
    const Matrix dout = Matrix::Ones(out.rows(), out.cols());
    CHECK_THROWS_AS(layer.backward(dout, cache, /*need_dx=*/false), ShapeError);
    CHECK_THROWS_WITH(layer.backward(dout, cache, /*need_dx=*/false), Catch::Contains("no column index"));
}
