// GatConv: dense reference, invariants, gradients, thread independence.
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

// Straight from the matrix form of masked self-attention, written independently of the CSR
// kernel: all-pairs scores, non-edges at -inf, row softmax, times V. With edge features
// (edge_attr E×D, rows in the edge-id order of `graph`, no parallel edges), the score of j → i
// gains a_edge[h]ᵀ (e_ij · W_e)_h, and the added self-loop of i carries the mean attribute of
// i's incoming non-loop edges (zeros when it has none).
MatrixT<double> dense_gat(const Graph& graph, const MatrixT<double>& x, GatConvT<double>& layer,
                          const MatrixT<double>* edge_attr = nullptr) {
    const auto& o = layer.options();
    const Eigen::Index N = x.rows(), H = o.heads, C = o.out;
    const Graph& g = o.add_self_loops ? graph.with_self_loops() : graph;
    MatrixT<double> mask = MatrixT<double>::Zero(N, N);  // mask(i, j) = 1 when j → i
    for (const auto& [j, i] : g.edge_list()) mask(i, j) = 1;
    // attr[(j, i)] = e_ij for every edge attention runs on
    std::map<std::pair<NodeId, NodeId>, VectorT<double>> attr;
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
    const MatrixT<double> xw = x * layer.weight().value;
    MatrixT<double> out = MatrixT<double>::Zero(N, o.concat ? H * C : C);
    for (Eigen::Index h = 0; h < H; ++h) {
        const MatrixT<double> V = xw.middleCols(h * C, C);
        const VectorT<double> s_src = V * layer.att_src().value.row(h).transpose();
        const VectorT<double> s_dst = V * layer.att_dst().value.row(h).transpose();
        MatrixT<double> scores(N, N);
        for (Eigen::Index i = 0; i < N; ++i)
            for (Eigen::Index j = 0; j < N; ++j) {
                double z = s_dst(i) + s_src(j);
                if (edge_attr && mask(i, j) > 0) {
                    const VectorT<double> ew = layer.lin_edge().value.transpose() * attr.at({NodeId(j), NodeId(i)});  // H·C
                    z += ew.segment(h * C, C).dot(layer.att_edge().value.row(h));
                }
                scores(i, j) = mask(i, j) > 0 ? (z > 0 ? z : o.negative_slope * z) : -std::numeric_limits<double>::infinity();
            }
        MatrixT<double> A = MatrixT<double>::Zero(N, N);
        for (Eigen::Index i = 0; i < N; ++i) {
            const double m = scores.row(i).maxCoeff();
            if (!std::isfinite(m)) continue;  // nothing to attend to: zero row
            A.row(i) = (scores.row(i).array() - m).exp();
            A.row(i) /= A.row(i).sum();
        }
        const MatrixT<double> head = A * V;
        if (o.concat)
            out.middleCols(h * C, C) = head;
        else
            out += head / static_cast<double>(H);
    }
    if (o.residual) out += x * layer.res_weight().value;
    if (o.bias) out.rowwise() += layer.bias().value.row(0);
    return out;
}

// A random graph on 8 nodes where node 7 has no incoming edge (isolated as a destination).
Graph test_graph(Rng& rng) {
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (NodeId u = 0; u < 8; ++u)
        for (NodeId v = 0; v < 7; ++v)
            if (u != v && rng.uniform() < 0.35) edges.emplace_back(u, v);
    edges.emplace_back(7, 0);
    edges.emplace_back(3, 3);  // an existing self-loop: replaced when add_self_loops
    return build_graph(8, edges);
}

void randomize_bias(GatConvT<double>& layer, Rng& rng) {
    if (layer.options().bias) layer.bias().value = random_matrix<double>(1, layer.out_width(), rng);
}

}  // namespace

TEST_CASE("GatConv equals the dense masked self-attention reference", "[nn][gat]") {
    Rng rng(7);
    const Graph g = test_graph(rng);
    for (const Eigen::Index heads : {1, 3})
        for (const bool concat : {true, false})
            for (const bool self_loops : {true, false})
                for (const bool residual : {false, true}) {
                    CAPTURE(heads, concat, self_loops, residual);
                    GatConvT<double> layer({.in = 5, .out = 4, .heads = heads, .concat = concat, .add_self_loops = self_loops,
                                            .residual = residual},
                                           rng);
                    randomize_bias(layer, rng);
                    const MatrixT<double> x = random_matrix<double>(8, 5, rng);
                    GatConvCache<double> cache;
                    const MatrixT<double> out = layer.forward(g, x, cache, /*training=*/false);
                    const MatrixT<double> ref = dense_gat(g, x, layer);
                    REQUIRE(out.rows() == 8);
                    REQUIRE(out.cols() == (concat ? heads * 4 : 4));
                    CHECK((out - ref).cwiseAbs().maxCoeff() < 1e-12);
                }
}

TEST_CASE("GatConv with edge features equals the dense reference", "[nn][gat][edge]") {
    Rng rng(17);
    const Graph g = test_graph(rng);  // node 3 has a self-loop, node 7 no incoming edge
    for (const Eigen::Index heads : {1, 3})
        for (const bool concat : {true, false})
            for (const bool self_loops : {true, false}) {
                CAPTURE(heads, concat, self_loops);
                GatConvT<double> layer({.in = 5, .out = 4, .heads = heads, .concat = concat, .add_self_loops = self_loops,
                                        .edge_dim = 3},
                                       rng);
                randomize_bias(layer, rng);
                const MatrixT<double> x = random_matrix<double>(8, 5, rng);
                // Large attributes so the edge term moves the softmax well away from the edge-free one.
                const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), 3, rng) * 4.0;
                GatConvCache<double> cache;
                const MatrixT<double> out = layer.forward(g, x, cache, /*training=*/false, nullptr, &edge_attr);
                REQUIRE(cache.edge_score.rows() == cache.graph->num_edges());
                REQUIRE(cache.edge_score.cols() == heads);
                CHECK((out - dense_gat(g, x, layer, &edge_attr)).cwiseAbs().maxCoeff() < 1e-12);
                // the edge term matters: without it the reference differs
                CHECK((out - dense_gat(g, x, layer)).cwiseAbs().maxCoeff() > 1e-3);
            }
}

TEST_CASE("with_self_loops traces every edge back to the original graph", "[graph][gat][edge]") {
    // Parallel edges and an existing self-loop, kept by drop_duplicates = false.
    const Graph g = build_graph(4, {{1, 0}, {2, 0}, {1, 0}, {0, 0}, {3, 2}, {0, 2}, {2, 2}}, {.drop_duplicates = false});
    const Graph& looped = g.with_self_loops();
    const auto& origin = g.self_loop_origin();
    REQUIRE(origin.size() == static_cast<std::size_t>(looped.num_edges()));
    const auto edges = g.edge_list();
    const auto looped_edges = looped.edge_list();
    std::vector<int> used(edges.size(), 0);
    for (std::size_t k = 0; k < origin.size(); ++k) {
        CAPTURE(k);
        if (origin[k] < 0) {
            CHECK(looped_edges[k].first == looped_edges[k].second);
            continue;
        }
        CHECK(edges[static_cast<std::size_t>(origin[k])] == looped_edges[k]);
        CHECK(edges[static_cast<std::size_t>(origin[k])].first != edges[static_cast<std::size_t>(origin[k])].second);
        ++used[static_cast<std::size_t>(origin[k])];
    }
    // every non-loop edge exactly once, the old loops never; one added loop per node
    for (std::size_t e = 0; e < edges.size(); ++e) CHECK(used[e] == (edges[e].first == edges[e].second ? 0 : 1));
    CHECK(std::count(origin.begin(), origin.end(), EdgeId(-1)) == 4);
    CHECK(&g.self_loop_origin() == &origin);  // computed once
}

TEST_CASE("GatConv attention coefficients sum to 1 over every node's neighbourhood", "[nn][gat]") {
    Rng rng(3);
    const Graph g = test_graph(rng);
    for (const bool self_loops : {true, false}) {
        GatConvT<float> layer({.in = 6, .out = 3, .heads = 4, .add_self_loops = self_loops}, rng);
        GatConvCache<float> cache;
        layer.forward(g, random_matrix<float>(8, 6, rng), cache, false);
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

TEST_CASE("GatConv: a node with no incoming edge outputs its bias, never NaN", "[nn][gat]") {
    Rng rng(5);
    const Graph g = test_graph(rng);  // node 7 has no incoming edge
    REQUIRE(g.in_degree(7) == 0);
    GatConvT<double> layer({.in = 5, .out = 2, .heads = 2, .add_self_loops = false}, rng);
    randomize_bias(layer, rng);
    GatConvCache<double> cache;
    const MatrixT<double> out = layer.forward(g, random_matrix<double>(8, 5, rng), cache, false);
    CHECK(out.allFinite());
    CHECK((out.row(7) - layer.bias().value.row(0)).cwiseAbs().maxCoeff() == 0.0);
    // backward stays finite too
    const MatrixT<double> dx = layer.backward(MatrixT<double>::Ones(8, 4), cache);
    CHECK(dx.allFinite());
}

TEST_CASE("GatConv gradients match finite differences in double precision", "[nn][gat][gradcheck]") {
    Rng rng(11);
    const Graph g = test_graph(rng);
    for (const Eigen::Index heads : {1, 3})
        for (const bool concat : {true, false})
            for (const bool self_loops : {true, false})
                for (const bool residual : {false, true})
                    for (const double dropout : {0.0, 0.4}) {
                        CAPTURE(heads, concat, self_loops, residual, dropout);
                        GatConvT<double> layer({.in = 5, .out = 3, .heads = heads, .concat = concat, .dropout = dropout,
                                                .input_dropout = dropout, .add_self_loops = self_loops, .residual = residual},
                                               rng);
                        randomize_bias(layer, rng);
                        MatrixT<double> x = random_matrix<double>(8, 5, rng);
                        const MatrixT<double> weights = random_matrix<double>(8, layer.out_width(), rng);
                        const std::uint64_t dropout_seed = rng.next_u64();
                        // Loss = Σ out ⊙ weights; the same dropout masks on every evaluation.
                        GatConvCache<double> cache;
                        auto loss = [&] {
                            Rng r(dropout_seed);
                            GatConvCache<double> c;
                            return (layer.forward(g, x, c, /*training=*/true, &r).array() * weights.array()).sum();
                        };
                        Rng r(dropout_seed);
                        layer.forward(g, x, cache, true, &r);
                        ParameterList<double> params;
                        layer.parameters(params);
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

TEST_CASE("GatConv with edge features: gradients match finite differences", "[nn][gat][edge][gradcheck]") {
    Rng rng(23);
    const Graph g = test_graph(rng);
    for (const Eigen::Index edge_dim : {0, 3})
        for (const Eigen::Index heads : {1, 3})
            for (const bool concat : {true, false})
                for (const bool self_loops : {true, false}) {
                    CAPTURE(edge_dim, heads, concat, self_loops);
                    GatConvT<double> layer({.in = 4, .out = 3, .heads = heads, .concat = concat, .dropout = 0.3,
                                            .add_self_loops = self_loops, .edge_dim = edge_dim},
                                           rng);
                    randomize_bias(layer, rng);
                    MatrixT<double> x = random_matrix<double>(8, 4, rng);
                    const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), edge_dim, rng) * 2.0;
                    const MatrixT<double>* attr = edge_dim > 0 ? &edge_attr : nullptr;
                    const MatrixT<double> weights = random_matrix<double>(8, layer.out_width(), rng);
                    const std::uint64_t dropout_seed = rng.next_u64();
                    auto loss = [&] {
                        Rng r(dropout_seed);
                        GatConvCache<double> c;
                        return (layer.forward(g, x, c, /*training=*/true, &r, attr).array() * weights.array()).sum();
                    };
                    GatConvCache<double> cache;
                    Rng r(dropout_seed);
                    layer.forward(g, x, cache, true, &r, attr);
                    ParameterList<double> params;
                    layer.parameters(params);
                    REQUIRE(params.size() == (edge_dim > 0 ? 6u : 4u));
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

TEST_CASE("GatConv with edge features is identical with 1 and 2 threads", "[nn][gat][edge][threads]") {
    Rng graph_rng(4);
    const Graph g = test::random_graph(600, 0.015, graph_rng, /*allow_self_loops=*/true);
    const int saved = thread_count();
    auto run = [&](int threads) {
        set_thread_count(threads);
        Rng rng(98);
        GatConvT<float> layer({.in = 30, .out = 8, .heads = 4, .dropout = 0.5, .input_dropout = 0.5, .edge_dim = 6}, rng);
        const Matrix x = random_matrix<float>(600, 30, rng);
        const Matrix edge_attr = random_matrix<float>(g.num_edges(), 6, rng);
        const Matrix w = random_matrix<float>(600, 32, rng);
        GatConvCache<float> cache;
        Rng drop(5);
        Matrix out = layer.forward(g, x, cache, true, &drop, &edge_attr);
        Matrix dx = layer.backward(w, cache);
        ParameterList<float> params;
        layer.parameters(params);
        std::vector<Matrix> grads;
        for (auto* p : params) grads.push_back(p->grad);
        return std::make_tuple(out, dx, grads);
    };
    const auto [out1, dx1, g1] = run(1);
    const auto [out2, dx2, g2] = run(2);
    set_thread_count(saved);
    CHECK((out1.array() == out2.array()).all());
    CHECK((dx1.array() == dx2.array()).all());
    REQUIRE(g1.size() == g2.size());
    for (std::size_t k = 0; k < g1.size(); ++k) CHECK((g1[k].array() == g2[k].array()).all());
}

TEST_CASE("GatConv edge features: missing, misshapen or unexpected edge_attr is rejected with the numbers", "[nn][gat][edge]") {
    Rng rng(8);
    const Graph g = test::random_graph(5, 0.5, rng);
    const Matrix x = Matrix::Zero(5, 3);
    GatConvCache<float> cache;
    GatConv with_edges({.in = 3, .out = 2, .edge_dim = 4}, rng);
    CHECK_THROWS_WITH(with_edges.forward(g, x, cache, false), Catch::Contains("edge_dim = 4") && Catch::Contains("needs edge_attr"));
    const Matrix wrong = Matrix::Zero(g.num_edges(), 2);
    CHECK_THROWS_WITH(with_edges.forward(g, x, cache, false, nullptr, &wrong),
                      Catch::Contains(std::to_string(g.num_edges()) + "x2") && Catch::Contains("edge_dim = 4"));
    const Matrix too_few = Matrix::Zero(g.num_edges() + 1, 4);
    CHECK_THROWS_AS(with_edges.forward(g, x, cache, false, nullptr, &too_few), ShapeError);
    GatConv without({.in = 3, .out = 2}, rng);
    const Matrix attr = Matrix::Zero(g.num_edges(), 4);
    CHECK_THROWS_WITH(without.forward(g, x, cache, false, nullptr, &attr), Catch::Contains("edge_dim = 0"));
    CHECK_THROWS_WITH(GatConv({.in = 3, .out = 2, .edge_dim = -1}, rng), Catch::Contains("edge_dim must be >= 0, got -1"));
    // parameter names and shapes
    ParameterList<float> params;
    with_edges.parameters(params);
    CHECK(with_edges.lin_edge().name == "gat_conv.lin_edge");
    CHECK(with_edges.lin_edge().value.rows() == 4);
    CHECK(with_edges.lin_edge().value.cols() == 2);
    CHECK(with_edges.att_edge().value.rows() == 1);
    CHECK(std::find(params.begin(), params.end(), &with_edges.att_edge()) != params.end());
}

TEST_CASE("GatConv gives identical outputs and gradients with 1 and 2 threads", "[nn][gat][threads]") {
    Rng graph_rng(2);
    const Graph g = test::random_graph(600, 0.015, graph_rng);
    const int saved = thread_count();
    auto run = [&](int threads) {
        set_thread_count(threads);
        Rng rng(99);
        GatConvT<float> layer({.in = 70, .out = 8, .heads = 4, .dropout = 0.5, .input_dropout = 0.5}, rng);
        const Matrix x = random_matrix<float>(600, 70, rng);
        const Matrix w = random_matrix<float>(600, 32, rng);
        GatConvCache<float> cache;
        Rng drop(5);
        Matrix out = layer.forward(g, x, cache, true, &drop);
        Matrix dx = layer.backward(w, cache);
        ParameterList<float> params;
        layer.parameters(params);
        std::vector<Matrix> grads;
        for (auto* p : params) grads.push_back(p->grad);
        return std::make_tuple(out, dx, grads);
    };
    const auto [out1, dx1, g1] = run(1);
    const auto [out2, dx2, g2] = run(2);
    set_thread_count(saved);
    CHECK((out1.array() == out2.array()).all());
    CHECK((dx1.array() == dx2.array()).all());
    REQUIRE(g1.size() == g2.size());
    for (std::size_t k = 0; k < g1.size(); ++k) CHECK((g1[k].array() == g2[k].array()).all());
}

TEST_CASE("GatConv rejects bad options and shapes with the numbers", "[nn][gat]") {
    Rng rng(1);
    CHECK_THROWS_AS(GatConv({.in = 0, .out = 4}, rng), ConfigError);
    CHECK_THROWS_WITH(GatConv({.in = 3, .out = 4, .heads = 0}, rng), Catch::Contains("heads = 0"));
    CHECK_THROWS_WITH(GatConv({.in = 3, .out = 4, .dropout = 1.0}, rng), Catch::Contains("dropout"));
    GatConv layer({.in = 3, .out = 4}, rng);
    const Graph g = test::random_graph(5, 0.5, rng);
    GatConvCache<float> cache;
    CHECK_THROWS_WITH(layer.forward(g, Matrix::Zero(5, 7), cache, false), Catch::Contains("5x7") && Catch::Contains("in_features = 3"));
    GatConv dropping({.in = 3, .out = 4, .dropout = 0.5}, rng);
    CHECK_THROWS_AS(dropping.forward(g, Matrix::Zero(5, 3), cache, /*training=*/true, /*rng=*/nullptr), ConfigError);
}

TEST_CASE("GatConv on the input's distinct rows gives the same bits as on every row", "[nn][gat][distinct]") {
    // Input rows drawn from a few patterns, as atom vectors in a batch of molecules; the layer
    // with distinct_rows runs its input products on the patterns only. Outputs, dx and every
    // gradient but the input weights' have the same bits; the input weights' gradients sum dy
    // per pattern first (DistinctRows::transpose_times_add), so they agree to rounding and
    // have the same bits with 1 and 2 threads.
    Rng graph_rng(6);
    const Graph g = test::random_graph(300, 0.02, graph_rng);
    Rng data_rng(7);
    const Matrix patterns = random_matrix<float>(9, 64, data_rng);
    Matrix x(300, 64);
    for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) = patterns.row((i * 7) % 9);
    const Matrix attr = random_matrix<float>(g.num_edges(), 5, data_rng);
    const Matrix w = random_matrix<float>(300, 32, data_rng);
    const int saved = thread_count();
    for (const bool residual : {false, true})
        for (const bool edges : {false, true})
            for (const double input_dropout : {0.0, 0.3})
                for (const int threads : {1, 2}) {
                    INFO("residual " << residual << ", edge features " << edges << ", input dropout " << input_dropout << ", threads " << threads);
                    set_thread_count(threads);
                    auto run = [&](bool distinct) {
                        Rng rng(31);
                        GatConvT<float> layer({.in = 64, .out = 8, .heads = 4, .input_dropout = input_dropout, .residual = residual,
                                               .edge_dim = edges ? 5 : 0, .distinct_rows = distinct},
                                              rng);
                        const Matrix* ea = edges ? &attr : nullptr;
                        GatConvCache<float> cache;
                        Rng drop(3);
                        Matrix out = layer.forward(g, x, cache, true, &drop, ea);
                        CHECK(cache.distinct_found == (distinct && input_dropout == 0.0));
                        if (cache.distinct_found) CHECK(cache.distinct.count() == 9);
                        Matrix dx = layer.backward(w, cache);
                        std::vector<Matrix> grads;
                        ParameterList<float> params;
                        layer.parameters(params);
                        for (auto* p : params) grads.push_back(p->grad);
                        GatConvCache<float> infer_cache;
                        Matrix inferred = layer.infer(g, x, infer_cache, Activation::elu, ea);
                        std::vector<bool> input_weight;
                        for (auto* p : params) input_weight.push_back(p == params.front() || (residual && p == params.back()));
                        return std::make_tuple(out, dx, grads, inferred, input_weight);
                    };
                    const auto [out0, dx0, g0, inf0, w0] = run(false);
                    const auto [out1, dx1, g1, inf1, w1] = run(true);
                    CHECK((out0.array() == out1.array()).all());
                    CHECK((dx0.array() == dx1.array()).all());
                    CHECK((inf0.array() == inf1.array()).all());
                    REQUIRE(g0.size() == g1.size());
                    for (std::size_t k = 0; k < g0.size(); ++k) {
                        INFO("parameter " << k);
                        if (w1[k] && input_dropout == 0.0) {  // 9 of 300 rows distinct: grouped sums
                            const float scale = g0[k].cwiseAbs().maxCoeff();
                            CHECK(scale > 0.0f);
                            CHECK((g0[k] - g1[k]).cwiseAbs().maxCoeff() <= 1e-5f * scale);
                        } else {  // every other gradient, and all under input dropout (no search for repeats there)
                            CHECK(test::same_bits(g0[k], g1[k]));
                        }
                    }
                    if (threads == 2) {
                        set_thread_count(1);
                        const auto [out2, dx2, g2, inf2, w2] = run(true);
                        for (std::size_t k = 0; k < g1.size(); ++k) CHECK(test::same_bits(g1[k], g2[k]));
                    }
                }
    set_thread_count(saved);
}
