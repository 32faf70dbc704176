// Gatv2Conv: dense reference, dynamic vs static attention, invariants, gradients, thread independence.
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/nn/gatv2_conv.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

// Straight from the GATv2 formula, written independently of the CSR kernel: all-pairs scores
// a_hᵀ LeakyReLU(x_s,j + x_d,i [+ (e_ij · W_e)_h]), non-edges at -inf, row softmax, times x_s.
// Edge attributes (edge_attr E×D, rows in the edge-id order of `graph`, no parallel edges): the
// added self-loop of i carries the mean attribute of i's incoming non-loop edges (zeros if none).
MatrixT<double> dense_gatv2(const Graph& graph, const MatrixT<double>& x, Gatv2ConvT<double>& layer,
                            const MatrixT<double>* edge_attr = nullptr) {
    const auto& o = layer.options();
    const Eigen::Index N = x.rows(), H = o.heads, C = o.out;
    const Graph& g = o.add_self_loops ? graph.with_self_loops() : graph;
    MatrixT<double> mask = MatrixT<double>::Zero(N, N);  // mask(i, j) = 1 when j → i
    for (const auto& [j, i] : g.edge_list()) mask(i, j) = 1;
    std::map<std::pair<NodeId, NodeId>, VectorT<double>> attr;  // attr[(j, i)] = e_ij
    if (edge_attr) {
        const auto edges = graph.edge_list();
        for (std::size_t k = 0; k < edges.size(); ++k)
            if (!o.add_self_loops || edges[k].first != edges[k].second) attr[edges[k]] = edge_attr->row(static_cast<Eigen::Index>(k)).transpose();
        if (o.add_self_loops)
            for (NodeId i = 0; i < N; ++i) {
                VectorT<double> sum = VectorT<double>::Zero(o.edge_dim);
                int count = 0;
                for (std::size_t k = 0; k < edges.size(); ++k)
                    if (edges[k].second == i && edges[k].first != i) {
                        sum += edge_attr->row(static_cast<Eigen::Index>(k)).transpose();
                        ++count;
                    }
                attr[{i, i}] = count > 0 ? VectorT<double>(sum / count) : sum;
            }
    }
    const auto& W_s = layer.lin_l_weight().value;
    const auto& W_d = o.share_weights ? layer.lin_l_weight().value : layer.lin_r_weight().value;
    MatrixT<double> xs = x * W_s, xd = x * W_d;
    if (o.bias) {
        xs.rowwise() += layer.lin_l_bias().value.row(0);
        xd.rowwise() += (o.share_weights ? layer.lin_l_bias() : layer.lin_r_bias()).value.row(0);
    }
    const auto leaky = [&](double z) { return z > 0 ? z : o.negative_slope * z; };
    MatrixT<double> out = MatrixT<double>::Zero(N, o.concat ? H * C : C);
    for (Eigen::Index h = 0; h < H; ++h) {
        const MatrixT<double> Vs = xs.middleCols(h * C, C), Vd = xd.middleCols(h * C, C);
        MatrixT<double> scores(N, N);
        for (Eigen::Index i = 0; i < N; ++i)
            for (Eigen::Index j = 0; j < N; ++j) {
                if (mask(i, j) == 0) {
                    scores(i, j) = -std::numeric_limits<double>::infinity();
                    continue;
                }
                VectorT<double> z = (Vs.row(j) + Vd.row(i)).transpose();
                if (edge_attr) z += (layer.lin_edge().value.transpose() * attr.at({NodeId(j), NodeId(i)})).segment(h * C, C);
                scores(i, j) = z.unaryExpr(leaky).dot(layer.att().value.row(h).transpose());
            }
        MatrixT<double> A = MatrixT<double>::Zero(N, N);
        for (Eigen::Index i = 0; i < N; ++i) {
            const double m = scores.row(i).maxCoeff();
            if (!std::isfinite(m)) continue;  // nothing to attend to: zero row
            A.row(i) = (scores.row(i).array() - m).exp();
            A.row(i) /= A.row(i).sum();
        }
        const MatrixT<double> head = A * Vs;
        if (o.concat)
            out.middleCols(h * C, C) = head;
        else
            out += head / static_cast<double>(H);
    }
    if (o.residual) out += x * layer.res_weight().value;
    if (o.bias) out.rowwise() += layer.bias().value.row(0);
    return out;
}

// A random graph on n nodes where node n-1 has no incoming edge and node 3 has a self-loop
// (replaced when add_self_loops).
Graph test_graph(NodeId n, double p, Rng& rng) {
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (NodeId u = 0; u < n; ++u)
        for (NodeId v = 0; v < n - 1; ++v)
            if (u != v && rng.uniform() < p) edges.emplace_back(u, v);
    edges.emplace_back(n - 1, 0);
    edges.emplace_back(3, 3);
    return build_graph(n, edges);
}

// The output bias starts at 0 (as PyG); a random one makes the tests see it.
void randomize_bias(Gatv2ConvT<double>& layer, Rng& rng) {
    if (layer.options().bias) layer.bias().value = random_matrix<double>(1, layer.out_width(), rng);
}

// For each destination with incoming edges and each head, the source its largest α comes from.
template <class Cache>
std::map<std::pair<NodeId, Eigen::Index>, NodeId> argmax_sources(const Cache& cache) {
    const Graph& g = *cache.graph;
    std::map<std::pair<NodeId, Eigen::Index>, NodeId> best;
    for (NodeId i = 0; i < g.num_nodes(); ++i) {
        const EdgeId e0 = g.in_offsets()[i], e1 = g.in_offsets()[i + 1];
        if (e0 == e1) continue;
        for (Eigen::Index h = 0; h < cache.alpha.cols(); ++h) {
            EdgeId arg = e0;
            for (EdgeId e = e0; e < e1; ++e)
                if (cache.alpha(e, h) > cache.alpha(arg, h)) arg = e;
            best[{i, h}] = g.in_src()[arg];
        }
    }
    return best;
}

}  // namespace

TEST_CASE("Gatv2Conv equals the dense GATv2 reference", "[nn][gatv2]") {
    Rng rng(7);
    const Graph g = test_graph(8, 0.35, rng);
    for (const Eigen::Index heads : {1, 3})
        for (const bool concat : {true, false})
            for (const bool self_loops : {true, false})
                for (const bool share : {false, true})
                    for (const bool residual : {false, true})
                        for (const Eigen::Index edge_dim : {0, 3}) {
                            CAPTURE(heads, concat, self_loops, share, residual, edge_dim);
                            Gatv2ConvT<double> layer({.in = 5, .out = 4, .heads = heads, .concat = concat, .add_self_loops = self_loops,
                                                      .residual = residual, .edge_dim = edge_dim, .share_weights = share},
                                                     rng);
                            randomize_bias(layer, rng);
                            const MatrixT<double> x = random_matrix<double>(8, 5, rng);
                            // Large attributes so the edge term moves the softmax well away from the edge-free one.
                            const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), edge_dim, rng) * 4.0;
                            const MatrixT<double>* attr = edge_dim > 0 ? &edge_attr : nullptr;
                            Gatv2ConvCache<double> cache;
                            const MatrixT<double> out = layer.forward(g, x, cache, /*training=*/false, nullptr, attr);
                            REQUIRE(out.rows() == 8);
                            REQUIRE(out.cols() == (concat ? heads * 4 : 4));
                            REQUIRE(cache.alpha.rows() == cache.graph->num_edges());
                            REQUIRE(cache.alpha.cols() == heads);
                            CHECK(cache.graph == (self_loops ? &g.with_self_loops() : &g));
                            CHECK((out - dense_gatv2(g, x, layer, attr)).cwiseAbs().maxCoeff() < 1e-12);
                            // the edge term matters: without it the reference differs
                            if (attr) CHECK((out - dense_gatv2(g, x, layer)).cwiseAbs().maxCoeff() > 1e-3);
                        }
}

TEST_CASE("share_weights is one lin_l used on both sides", "[nn][gatv2]") {
    Rng rng(31);
    const Graph g = test_graph(8, 0.4, rng);
    Gatv2ConvT<double> shared({.in = 4, .out = 3, .heads = 2, .share_weights = true}, rng);
    Gatv2ConvT<double> separate({.in = 4, .out = 3, .heads = 2}, rng);
    separate.lin_l_weight().value = shared.lin_l_weight().value;
    separate.lin_l_bias().value = shared.lin_l_bias().value;
    separate.lin_r_weight().value = shared.lin_l_weight().value;
    separate.lin_r_bias().value = shared.lin_l_bias().value;
    separate.att().value = shared.att().value;
    const MatrixT<double> x = random_matrix<double>(8, 4, rng);
    const MatrixT<double> dout = random_matrix<double>(8, 6, rng);
    Gatv2ConvCache<double> c1, c2;
    const MatrixT<double> out1 = shared.forward(g, x, c1, false);
    const MatrixT<double> out2 = separate.forward(g, x, c2, false);
    CHECK((out1 - out2).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(c1.x_dst.size() == 0);  // x_d is x_s, not stored twice
    const MatrixT<double> dx1 = shared.backward(dout, c1);
    const MatrixT<double> dx2 = separate.backward(dout, c2);
    CHECK((dx1 - dx2).cwiseAbs().maxCoeff() < 1e-12);
    // the shared projection's gradient is the sum of the two sides'
    CHECK((shared.lin_l_weight().grad - separate.lin_l_weight().grad - separate.lin_r_weight().grad).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((shared.lin_l_bias().grad - separate.lin_l_bias().grad - separate.lin_r_bias().grad).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((shared.att().grad - separate.att().grad).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("GATv2 attention is dynamic, GAT's is static", "[nn][gatv2]") {
    // Keys 0..3 each send an edge to every query 4..6: all queries share the same neighbour set.
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (NodeId key = 0; key < 4; ++key)
        for (NodeId query = 4; query < 7; ++query) edges.emplace_back(key, query);
    const Graph g = build_graph(7, edges);

    // GAT: score(i, j) = LeakyReLU(a_srcᵀ W x_j + a_dstᵀ W x_i) is monotone in a_srcᵀ W x_j, so
    // every query ranks the keys the same way, whatever the weights and features.
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        CAPTURE(seed);
        Rng rng(seed);
        GatConvT<double> gat({.in = 3, .out = 4, .heads = 2, .add_self_loops = false}, rng);
        GatConvCache<double> cache;
        gat.forward(g, random_matrix<double>(7, 3, rng), cache, false);
        const auto best = argmax_sources(cache);
        for (Eigen::Index h = 0; h < 2; ++h)
            for (NodeId query = 5; query < 7; ++query) CHECK(best.at({query, h}) == best.at({4, h}));
    }

    // GATv2 with x = t (one feature), x_s = (t, −t), x_d = (−t, t), a = (−1, −1):
    //   score(i, j) = −LeakyReLU(t_j − t_i) − LeakyReLU(t_i − t_j) = −(1 − slope)·|t_j − t_i|,
    // so each query attends most to the key nearest to it.
    Rng rng(1);
    Gatv2ConvT<double> v2({.in = 1, .out = 2, .add_self_loops = false, .bias = false}, rng);
    v2.lin_l_weight().value << 1, -1;
    v2.lin_r_weight().value << -1, 1;
    v2.att().value << -1, -1;
    MatrixT<double> t(7, 1);
    t << 0.0, 1.0, 2.0, 3.0, 0.1, 1.1, 2.9;
    Gatv2ConvCache<double> cache;
    v2.forward(g, t, cache, false);
    const auto best = argmax_sources(cache);
    CHECK(best.at({4, 0}) == 0);
    CHECK(best.at({5, 0}) == 1);
    CHECK(best.at({6, 0}) == 3);
}

TEST_CASE("Gatv2Conv gradients match finite differences in double precision", "[nn][gatv2][gradcheck]") {
    Rng rng(11);
    // 70 nodes and several hundred edges: more than one row chunk of the gemms and of the
    // edge-sum partials. Node 69 has no incoming edge, node 3 a self-loop.
    const Graph g = test_graph(70, 0.15, rng);
    REQUIRE(g.num_edges() > 600);
    for (const Eigen::Index heads : {1, 3})
        for (const bool concat : {true, false})
            for (const bool self_loops : {true, false})
                for (const bool share : {false, true})
                    for (const Eigen::Index edge_dim : {0, 3}) {
                        const bool residual = share != concat;  // both values across the loops
                        CAPTURE(heads, concat, self_loops, share, residual, edge_dim);
                        Gatv2ConvT<double> layer({.in = 4, .out = 3, .heads = heads, .concat = concat, .dropout = 0.3,
                                                  .input_dropout = 0.2, .add_self_loops = self_loops, .residual = residual,
                                                  .edge_dim = edge_dim, .share_weights = share},
                                                 rng);
                        randomize_bias(layer, rng);
                        MatrixT<double> x = random_matrix<double>(70, 4, rng);
                        const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), edge_dim, rng) * 2.0;
                        const MatrixT<double>* attr = edge_dim > 0 ? &edge_attr : nullptr;
                        const MatrixT<double> weights = random_matrix<double>(70, layer.out_width(), rng);
                        const std::uint64_t dropout_seed = rng.next_u64();
                        // Loss = Σ out ⊙ weights; the same dropout masks on every evaluation.
                        auto loss = [&] {
                            Rng r(dropout_seed);
                            Gatv2ConvCache<double> c;
                            return (layer.forward(g, x, c, /*training=*/true, &r, attr).array() * weights.array()).sum();
                        };
                        Gatv2ConvCache<double> cache;
                        Rng r(dropout_seed);
                        layer.forward(g, x, cache, true, &r, attr);
                        ParameterList<double> params;
                        layer.parameters(params);
                        // lin_l (weight, bias), lin_r (weight, bias) unless shared, att, lin_edge, res, bias
                        REQUIRE(params.size() == (share ? 2u : 4u) + 1u + (edge_dim > 0 ? 1u : 0u) + (residual ? 1u : 0u) + 1u);
                        test::prefill_grads(params);
                        const MatrixT<double> dx = layer.backward(weights, cache);
                        const auto pr = test::check_parameter_gradients(params, loss);
                        INFO(pr.worst);
                        CHECK(pr.ok);
                        CHECK(pr.checked == count_values(params));
                        const auto xr = test::check_input_gradient(x, dx, loss);
                        INFO(xr.worst);
                        CHECK(xr.ok);
                    }
}

TEST_CASE("Gatv2Conv attention coefficients sum to 1 over every node's neighbourhood", "[nn][gatv2]") {
    Rng rng(3);
    const Graph g = test_graph(8, 0.35, rng);
    for (const bool self_loops : {true, false}) {
        CAPTURE(self_loops);
        Gatv2ConvT<float> layer({.in = 6, .out = 3, .heads = 4, .add_self_loops = self_loops, .edge_dim = 2}, rng);
        const Matrix edge_attr = random_matrix<float>(g.num_edges(), 2, rng);
        Gatv2ConvCache<float> cache;
        layer.forward(g, random_matrix<float>(8, 6, rng), cache, false, nullptr, &edge_attr);
        const Graph& used = *cache.graph;
        REQUIRE(cache.alpha.rows() == used.num_edges());
        for (NodeId i = 0; i < used.num_nodes(); ++i)
            for (Eigen::Index h = 0; h < 4; ++h) {
                double sum = 0;
                for (EdgeId e = used.in_offsets()[i]; e < used.in_offsets()[i + 1]; ++e) {
                    CHECK(cache.alpha(e, h) >= 0.0f);
                    sum += cache.alpha(e, h);
                }
                if (used.in_degree(i) > 0) CHECK(sum == Approx(1.0).epsilon(1e-6));
            }
    }
}

TEST_CASE("Gatv2Conv: a node with no incoming edge outputs bias (+ residual), never NaN", "[nn][gatv2]") {
    Rng rng(5);
    const Graph g = test_graph(8, 0.35, rng);  // node 7 has no incoming edge
    REQUIRE(g.in_degree(7) == 0);
    for (const bool residual : {false, true}) {
        CAPTURE(residual);
        Gatv2ConvT<double> layer({.in = 5, .out = 2, .heads = 2, .add_self_loops = false, .residual = residual, .edge_dim = 2}, rng);
        randomize_bias(layer, rng);
        const MatrixT<double> x = random_matrix<double>(8, 5, rng);
        const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), 2, rng);
        Gatv2ConvCache<double> cache;
        const MatrixT<double> out = layer.forward(g, x, cache, false, nullptr, &edge_attr);
        CHECK(out.allFinite());
        MatrixT<double> expected = layer.bias().value;
        if (residual) expected += x.row(7) * layer.res_weight().value;
        CHECK((out.row(7) - expected.row(0)).cwiseAbs().maxCoeff() < 1e-12);
        const MatrixT<double> dx = layer.backward(MatrixT<double>::Ones(8, 4), cache);
        CHECK(dx.allFinite());
        CHECK(layer.att().grad.allFinite());
        CHECK(layer.lin_edge().grad.allFinite());
    }
}

TEST_CASE("Gatv2Conv gives identical outputs and gradients with 1 and 2 threads", "[nn][gatv2][threads]") {
    Rng graph_rng(4);
    const Graph g = test::random_graph(600, 0.015, graph_rng, /*allow_self_loops=*/true);
    const int saved = thread_count();
    for (const bool share : {false, true}) {
        CAPTURE(share);
        auto run = [&](int threads) {
            set_thread_count(threads);
            Rng rng(98);
            Gatv2ConvT<float> layer({.in = 30, .out = 8, .heads = 4, .dropout = 0.5, .input_dropout = 0.5, .residual = true,
                                     .edge_dim = 6, .share_weights = share},
                                    rng);
            const Matrix x = random_matrix<float>(600, 30, rng);
            const Matrix edge_attr = random_matrix<float>(g.num_edges(), 6, rng);
            const Matrix w = random_matrix<float>(600, 32, rng);
            Gatv2ConvCache<float> cache;
            Rng drop(5);
            Matrix out = layer.forward(g, x, cache, true, &drop, &edge_attr);
            Matrix dx = layer.backward(w, cache);
            ParameterList<float> params;
            layer.parameters(params);
            std::vector<Matrix> grads;
            for (auto* p : params) grads.push_back(p->grad);
            return std::make_tuple(out, Matrix(cache.alpha), dx, grads);
        };
        const auto [out1, alpha1, dx1, g1] = run(1);
        const auto [out2, alpha2, dx2, g2] = run(2);
        set_thread_count(saved);
        CHECK((out1.array() == out2.array()).all());
        CHECK((alpha1.array() == alpha2.array()).all());
        CHECK((dx1.array() == dx2.array()).all());
        REQUIRE(g1.size() == g2.size());
        for (std::size_t k = 0; k < g1.size(); ++k) CHECK((g1[k].array() == g2[k].array()).all());
    }
}

TEST_CASE("Gatv2Conv parameters carry PyG's state-dict names and initial values", "[nn][gatv2]") {
    Rng rng(9);
    auto names = [](Gatv2ConvT<float>& layer) {
        ParameterList<float> params;
        layer.parameters(params);
        std::vector<std::string> out;
        for (auto* p : params) out.push_back(p->name);
        return out;
    };
    Gatv2Conv full({.in = 4, .out = 3, .heads = 2, .residual = true, .edge_dim = 5}, rng, "conv1");
    CHECK(names(full) == std::vector<std::string>{"conv1.lin_l.weight", "conv1.lin_l.bias", "conv1.lin_r.weight", "conv1.lin_r.bias",
                                                  "conv1.att", "conv1.lin_edge.weight", "conv1.res.weight", "conv1.bias"});
    CHECK(full.lin_l_weight().value.rows() == 4);
    CHECK(full.lin_l_weight().value.cols() == 6);
    CHECK(full.att().value.rows() == 2);
    CHECK(full.att().value.cols() == 3);
    CHECK(full.lin_edge().value.rows() == 5);
    CHECK(full.lin_edge().value.cols() == 6);
    CHECK(full.res_weight().value.cols() == 6);
    // PyG's Linear bias: uniform in ±1/√in; the output bias starts at 0.
    CHECK(full.lin_l_bias().value.cwiseAbs().maxCoeff() <= 0.5f);
    CHECK(full.lin_l_bias().value.cwiseAbs().maxCoeff() > 0.0f);
    CHECK(full.bias().value.cwiseAbs().maxCoeff() == 0.0f);
    Gatv2Conv shared({.in = 4, .out = 3, .concat = false, .bias = false, .share_weights = true}, rng);
    CHECK(names(shared) == std::vector<std::string>{"gatv2_conv.lin_l.weight", "gatv2_conv.att"});
    CHECK(shared.lin_r_weight().value.size() == 0);
    CHECK(shared.out_width() == 3);
}

TEST_CASE("Gatv2Conv rejects bad options and shapes with the numbers", "[nn][gatv2]") {
    Rng rng(1);
    CHECK_THROWS_AS(Gatv2Conv({.in = 0, .out = 4}, rng), ConfigError);
    CHECK_THROWS_WITH(Gatv2Conv({.in = 3, .out = 4, .heads = 0}, rng), Catch::Contains("heads = 0"));
    CHECK_THROWS_WITH(Gatv2Conv({.in = -2, .out = 4}, rng), Catch::Contains("in = -2"));
    CHECK_THROWS_WITH(Gatv2Conv({.in = 3, .out = 4, .dropout = 1.0}, rng), Catch::Contains("dropout"));
    CHECK_THROWS_WITH(Gatv2Conv({.in = 3, .out = 4, .input_dropout = -0.1}, rng), Catch::Contains("dropout"));
    CHECK_THROWS_WITH(Gatv2Conv({.in = 3, .out = 4, .negative_slope = -1.0}, rng), Catch::Contains("negative_slope"));
    CHECK_THROWS_WITH(Gatv2Conv({.in = 3, .out = 4, .edge_dim = -1}, rng), Catch::Contains("edge_dim must be >= 0, got -1"));

    const Graph g = test::random_graph(5, 0.5, rng);
    Gatv2ConvCache<float> cache;
    Gatv2Conv layer({.in = 3, .out = 4}, rng);
    CHECK_THROWS_WITH(layer.backward(Matrix::Zero(5, 4), cache), Catch::Contains("before forward"));
    CHECK_THROWS_WITH(layer.forward(g, Matrix::Zero(5, 7), cache, false), Catch::Contains("5x7") && Catch::Contains("in_features = 3"));
    CHECK_THROWS_AS(layer.forward(g, Matrix::Zero(4, 3), cache, false), ShapeError);
    layer.forward(g, Matrix::Zero(5, 3), cache, false);
    CHECK_THROWS_WITH(layer.backward(Matrix::Zero(5, 3), cache), Catch::Contains("5x3") && Catch::Contains("expected 5x4"));
    Gatv2Conv dropping({.in = 3, .out = 4, .dropout = 0.5}, rng);
    CHECK_THROWS_AS(dropping.forward(g, Matrix::Zero(5, 3), cache, /*training=*/true, /*rng=*/nullptr), ConfigError);

    Gatv2Conv with_edges({.in = 3, .out = 2, .edge_dim = 4}, rng);
    const Matrix x = Matrix::Zero(5, 3);
    CHECK_THROWS_WITH(with_edges.forward(g, x, cache, false), Catch::Contains("edge_dim = 4") && Catch::Contains("needs edge_attr"));
    const Matrix wrong = Matrix::Zero(g.num_edges(), 2);
    CHECK_THROWS_WITH(with_edges.forward(g, x, cache, false, nullptr, &wrong),
                      Catch::Contains(std::to_string(g.num_edges()) + "x2") && Catch::Contains("edge_dim = 4"));
    const Matrix too_many = Matrix::Zero(g.num_edges() + 1, 4);
    CHECK_THROWS_AS(with_edges.forward(g, x, cache, false, nullptr, &too_many), ShapeError);
    const Matrix attr = Matrix::Zero(g.num_edges(), 4);
    CHECK_THROWS_WITH(layer.forward(g, x, cache, false, nullptr, &attr), Catch::Contains("edge_dim = 0"));
}
