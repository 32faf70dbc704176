// DotAttentionConv: dense reference, full-mask self-attention, invariants, gradients, thread
// independence, errors.
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/dot_attention.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Straight from the matrix form, written independently of the CSR kernel: Q, K, V projections;
// per head all-pairs scores Q_i·K_ij/√C with non-edges at −∞, row softmax, times V_ij; heads
// concatenated or averaged; then the skip (+ beta gate). With edge features (edge_attr E×D, rows
// in the edge-id order of `graph`, no parallel edges) K_ij = K_j + W_eᵀ e_ij and
// V_ij = V_j + W_eᵀ e_ij per pair; an added self-loop of i carries the mean attribute of i's
// incoming non-loop edges (zeros when it has none).
MatrixT<double> dense_dot(const Graph& graph, const MatrixT<double>& x, DotAttentionConvT<double>& layer,
                          const MatrixT<double>* edge_attr = nullptr) {
    const auto& o = layer.options();
    const Eigen::Index N = x.rows(), H = o.heads, C = o.out, W = layer.out_width();
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
    auto project = [&](ParameterT<double>& w, ParameterT<double>& b) {
        MatrixT<double> y = x * w.value;
        if (o.bias) y.rowwise() += b.value.row(0);
        return y;
    };
    const MatrixT<double> Q = project(layer.lin_query_weight(), layer.lin_query_bias());
    const MatrixT<double> K = project(layer.lin_key_weight(), layer.lin_key_bias());
    const MatrixT<double> V = project(layer.lin_value_weight(), layer.lin_value_bias());
    MatrixT<double> a = MatrixT<double>::Zero(N, W);
    for (Eigen::Index h = 0; h < H; ++h) {
        MatrixT<double> scores(N, N);
        for (Eigen::Index i = 0; i < N; ++i)
            for (Eigen::Index j = 0; j < N; ++j) {
                if (mask(i, j) == 0) {
                    scores(i, j) = -kInf;
                    continue;
                }
                VectorT<double> k_ij = K.row(j).segment(h * C, C).transpose();
                if (edge_attr) k_ij += (layer.lin_edge_weight().value.transpose() * attr.at({NodeId(j), NodeId(i)})).segment(h * C, C);
                scores(i, j) = Q.row(i).segment(h * C, C).dot(k_ij.transpose()) / std::sqrt(double(C));
            }
        MatrixT<double> head = MatrixT<double>::Zero(N, C);
        for (Eigen::Index i = 0; i < N; ++i) {
            const double m = scores.row(i).maxCoeff();
            if (!std::isfinite(m)) continue;  // nothing to attend to: zero row
            VectorT<double> p = (scores.row(i).array() - m).exp().transpose();
            p /= p.sum();
            for (Eigen::Index j = 0; j < N; ++j) {
                if (mask(i, j) == 0) continue;
                VectorT<double> v_ij = V.row(j).segment(h * C, C).transpose();
                if (edge_attr) v_ij += (layer.lin_edge_weight().value.transpose() * attr.at({NodeId(j), NodeId(i)})).segment(h * C, C);
                head.row(i) += p(j) * v_ij.transpose();
            }
        }
        if (o.concat)
            a.middleCols(h * C, C) = head;
        else
            a += head / static_cast<double>(H);
    }
    if (!o.root_weight) return a;
    const MatrixT<double> r = project(layer.lin_skip_weight(), layer.lin_skip_bias());
    if (!o.beta) return a + r;
    MatrixT<double> out(N, W);
    for (Eigen::Index i = 0; i < N; ++i) {
        VectorT<double> cat(3 * W);
        cat << a.row(i).transpose(), r.row(i).transpose(), (a.row(i) - r.row(i)).transpose();
        const double beta = 1.0 / (1.0 + std::exp(-cat.dot(layer.lin_beta_weight().value.col(0))));
        out.row(i) = beta * r.row(i) + (1 - beta) * a.row(i);
    }
    return out;
}

// A random graph on n nodes where the last node has no incoming edge, with one self-loop.
Graph test_graph(NodeId n, double p, Rng& rng) {
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (NodeId u = 0; u < n; ++u)
        for (NodeId v = 0; v < n - 1; ++v)
            if (u != v && rng.uniform() < p) edges.emplace_back(u, v);
    edges.emplace_back(n - 1, 0);
    edges.emplace_back(3, 3);  // an existing self-loop: replaced when add_self_loops
    return build_graph(n, edges);
}

// Biases start at zero; random ones make the reference check them too.
void randomize_biases(DotAttentionConvT<double>& layer, Rng& rng) {
    for (auto* b : {&layer.lin_query_bias(), &layer.lin_key_bias(), &layer.lin_value_bias(), &layer.lin_skip_bias()})
        if (b->value.size() > 0) b->value = random_matrix<double>(b->value.rows(), b->value.cols(), rng);
}

}  // namespace

TEST_CASE("DotAttentionConv equals the dense masked dot-product attention reference", "[nn][dot_attention]") {
    Rng rng(7);
    const Graph g = test_graph(8, 0.35, rng);
    for (const Eigen::Index edge_dim : {0, 3})
        for (const Eigen::Index heads : {1, 3})
            for (const bool concat : {true, false})
                for (const bool root_weight : {true, false})
                    for (const bool beta : {false, true})
                        for (const bool self_loops : {false, true}) {
                            CAPTURE(edge_dim, heads, concat, root_weight, beta, self_loops);
                            DotAttentionConvT<double> layer({.in = 5, .out = 4, .heads = heads, .concat = concat, .beta = beta,
                                                             .edge_dim = edge_dim, .root_weight = root_weight,
                                                             .add_self_loops = self_loops},
                                                            rng);
                            randomize_biases(layer, rng);
                            const MatrixT<double> x = random_matrix<double>(8, 5, rng) * 2.0;
                            // Large attributes so the edge term moves the softmax well away from the edge-free one.
                            const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), edge_dim, rng) * 4.0;
                            const MatrixT<double>* attr = edge_dim > 0 ? &edge_attr : nullptr;
                            DotAttentionCache<double> cache;
                            const MatrixT<double> out = layer.forward(g, x, cache, /*training=*/false, nullptr, attr);
                            REQUIRE(out.rows() == 8);
                            REQUIRE(out.cols() == (concat ? heads * 4 : 4));
                            REQUIRE(cache.alpha.rows() == cache.graph->num_edges());
                            REQUIRE(cache.alpha.cols() == heads);
                            CHECK((out - dense_dot(g, x, layer, attr)).cwiseAbs().maxCoeff() < 1e-12);
                            // the edge term matters: without it the reference differs
                            if (edge_dim > 0) CHECK((out - dense_dot(g, x, layer)).cwiseAbs().maxCoeff() > 1e-3);
                        }
}

TEST_CASE("DotAttentionConv with a full mask is softmax(QKᵀ/√C)·V per graph", "[nn][dot_attention]") {
    // A batch of two graphs (5 and 4 nodes), block-diagonal: every ordered pair inside a graph,
    // self-pairs included, is an edge; no edge crosses graphs.
    const std::vector<NodeId> offsets = {0, 5, 9};
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (std::size_t b = 0; b + 1 < offsets.size(); ++b)
        for (NodeId u = offsets[b]; u < offsets[b + 1]; ++u)
            for (NodeId v = offsets[b]; v < offsets[b + 1]; ++v) edges.emplace_back(u, v);
    const Graph g = build_graph(9, edges);
    REQUIRE(g.num_edges() == 25 + 16);
    Rng rng(31);
    for (const bool root_weight : {false, true})
        for (const bool concat : {true, false}) {
            CAPTURE(root_weight, concat);
            const Eigen::Index H = 2, C = 3;
            DotAttentionConvT<double> layer({.in = 4, .out = C, .heads = H, .concat = concat, .root_weight = root_weight}, rng);
            randomize_biases(layer, rng);
            const MatrixT<double> x = random_matrix<double>(9, 4, rng) * 2.0;
            DotAttentionCache<double> cache;
            const MatrixT<double> out = layer.forward(g, x, cache, false);

            MatrixT<double> expected = MatrixT<double>::Zero(9, layer.out_width());
            for (std::size_t b = 0; b + 1 < offsets.size(); ++b) {
                const Eigen::Index n0 = offsets[b], n = offsets[b + 1] - offsets[b];
                const MatrixT<double> xb = x.middleRows(n0, n);
                const MatrixT<double> Q = (xb * layer.lin_query_weight().value).rowwise() + layer.lin_query_bias().value.row(0);
                const MatrixT<double> K = (xb * layer.lin_key_weight().value).rowwise() + layer.lin_key_bias().value.row(0);
                const MatrixT<double> V = (xb * layer.lin_value_weight().value).rowwise() + layer.lin_value_bias().value.row(0);
                for (Eigen::Index h = 0; h < H; ++h) {
                    const MatrixT<double> S = Q.middleCols(h * C, C) * K.middleCols(h * C, C).transpose() / std::sqrt(double(C));
                    const VectorT<double> row_max = S.rowwise().maxCoeff();
                    const MatrixT<double> P = (S.colwise() - row_max).array().exp().matrix();
                    const VectorT<double> row_sum = P.rowwise().sum();
                    const MatrixT<double> A = P.array().colwise() / row_sum.array();
                    const MatrixT<double> head = A * V.middleCols(h * C, C);
                    if (concat)
                        expected.block(n0, h * C, n, C) = head;
                    else
                        expected.block(n0, 0, n, C) += head / double(H);
                }
                if (root_weight)
                    expected.middleRows(n0, n) +=
                        (xb * layer.lin_skip_weight().value).rowwise() + layer.lin_skip_bias().value.row(0);
            }
            CHECK((out - expected).cwiseAbs().maxCoeff() < 1e-12);
        }
}

TEST_CASE("DotAttentionConv gradients match finite differences in double precision", "[nn][dot_attention][gradcheck]") {
    Rng rng(11);
    // 80 nodes: more than one 64-row chunk in every kernel; node 79 has no incoming edge.
    const Graph g = test_graph(80, 0.05, rng);
    REQUIRE(g.in_degree(79) == 0);
    struct Config {
        Eigen::Index heads;
        bool concat, root_weight, beta, self_loops;
        Eigen::Index edge_dim;
        double dropout;
    };
    const Config configs[] = {
        {1, true, true, false, false, 0, 0.0},  {3, true, true, true, false, 0, 0.0},   {3, false, true, true, false, 0, 0.3},
        {3, true, false, false, false, 3, 0.3}, {3, true, true, true, false, 3, 0.3},   {3, false, true, false, true, 3, 0.3},
        {1, false, true, true, true, 2, 0.0},   {2, false, false, false, true, 0, 0.3},
    };
    for (const Config& c : configs) {
        CAPTURE(c.heads, c.concat, c.root_weight, c.beta, c.self_loops, c.edge_dim, c.dropout);
        DotAttentionConvT<double> layer({.in = 4, .out = 3, .heads = c.heads, .concat = c.concat, .beta = c.beta, .dropout = c.dropout,
                                         .input_dropout = c.dropout, .edge_dim = c.edge_dim, .root_weight = c.root_weight,
                                         .add_self_loops = c.self_loops},
                                        rng);
        randomize_biases(layer, rng);
        MatrixT<double> x = random_matrix<double>(80, 4, rng) * 2.0;
        const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), c.edge_dim, rng) * 2.0;
        const MatrixT<double>* attr = c.edge_dim > 0 ? &edge_attr : nullptr;
        const MatrixT<double> weights = random_matrix<double>(80, layer.out_width(), rng);
        const std::uint64_t dropout_seed = rng.next_u64();
        // Loss = Σ out ⊙ weights; the same dropout masks on every evaluation.
        auto loss = [&] {
            Rng r(dropout_seed);
            DotAttentionCache<double> cache;
            return (layer.forward(g, x, cache, /*training=*/true, &r, attr).array() * weights.array()).sum();
        };
        DotAttentionCache<double> cache;
        Rng r(dropout_seed);
        layer.forward(g, x, cache, true, &r, attr);
        ParameterList<double> params;
        layer.parameters(params);
        const std::size_t expected_params =
            6 + (c.edge_dim > 0 ? 1 : 0) + (c.root_weight ? 2 : 0) + (c.beta && c.root_weight ? 1 : 0);
        REQUIRE(params.size() == expected_params);
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

TEST_CASE("DotAttentionConv attention coefficients sum to 1 over every node's neighbourhood", "[nn][dot_attention]") {
    Rng rng(3);
    const Graph g = test_graph(8, 0.35, rng);
    for (const bool self_loops : {false, true}) {
        DotAttentionConvT<float> layer({.in = 6, .out = 3, .heads = 4, .add_self_loops = self_loops}, rng);
        DotAttentionCache<float> cache;
        layer.forward(g, random_matrix<float>(8, 6, rng), cache, false);
        const Graph& used = *cache.graph;
        REQUIRE(cache.alpha.rows() == used.num_edges());
        REQUIRE(cache.alpha.cols() == 4);
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

TEST_CASE("DotAttentionConv: a node with no incoming edge outputs its skip only, never NaN", "[nn][dot_attention]") {
    Rng rng(5);
    const Graph g = test_graph(8, 0.35, rng);  // node 7 has no incoming edge
    REQUIRE(g.in_degree(7) == 0);
    for (const bool root_weight : {true, false})
        for (const bool beta : {false, true}) {
            CAPTURE(root_weight, beta);
            DotAttentionConvT<double> layer({.in = 5, .out = 2, .heads = 2, .beta = beta, .edge_dim = 2, .root_weight = root_weight}, rng);
            randomize_biases(layer, rng);
            const MatrixT<double> x = random_matrix<double>(8, 5, rng);
            const MatrixT<double> edge_attr = random_matrix<double>(g.num_edges(), 2, rng);
            DotAttentionCache<double> cache;
            const MatrixT<double> out = layer.forward(g, x, cache, false, nullptr, &edge_attr);
            CHECK(out.allFinite());
            if (!root_weight) {
                CHECK(out.row(7).cwiseAbs().maxCoeff() == 0.0);
            } else {
                const MatrixT<double> r = (x * layer.lin_skip_weight().value).rowwise() + layer.lin_skip_bias().value.row(0);
                // without beta out = 0 + r exactly; with beta out = β r (+ (1 − β)·0)
                const double scale = beta ? cache.beta(7, 0) : 1.0;
                CHECK((out.row(7) - scale * r.row(7)).cwiseAbs().maxCoeff() < 1e-12);
            }
            const MatrixT<double> dx = layer.backward(MatrixT<double>::Ones(8, 4), cache);
            CHECK(dx.allFinite());
        }
    // Extreme scores do not overflow: the row maximum is subtracted first.
    DotAttentionConvT<float> layer({.in = 3, .out = 2}, rng);
    DotAttentionCache<float> cache;
    const Matrix out = layer.forward(g, random_matrix<float>(8, 3, rng) * 1e4f, cache, false);
    CHECK(out.allFinite());
    CHECK(cache.alpha.allFinite());
}

TEST_CASE("DotAttentionConv gives identical outputs and gradients with 1 and 2 threads", "[nn][dot_attention][threads]") {
    Rng graph_rng(2);
    const Graph g = test::random_graph(600, 0.015, graph_rng, /*allow_self_loops=*/true);
    const int saved = thread_count();
    struct Config {
        bool concat, beta, self_loops;
        Eigen::Index edge_dim;
    };
    for (const Config c : {Config{true, true, false, 6}, Config{false, false, true, 0}, Config{false, true, true, 5}}) {
        CAPTURE(c.concat, c.beta, c.self_loops, c.edge_dim);
        auto run = [&](int threads) {
            set_thread_count(threads);
            Rng rng(99);
            DotAttentionConvT<float> layer({.in = 70, .out = 8, .heads = 4, .concat = c.concat, .beta = c.beta, .dropout = 0.5,
                                            .input_dropout = 0.5, .edge_dim = c.edge_dim, .add_self_loops = c.self_loops},
                                           rng);
            const Matrix x = random_matrix<float>(600, 70, rng);
            const Matrix edge_attr = random_matrix<float>(g.num_edges(), c.edge_dim, rng);
            const Matrix w = random_matrix<float>(600, layer.out_width(), rng);
            DotAttentionCache<float> cache;
            Rng drop(5);
            Matrix out = layer.forward(g, x, cache, true, &drop, c.edge_dim > 0 ? &edge_attr : nullptr);
            Matrix dx = layer.backward(w, cache);
            ParameterList<float> params;
            layer.parameters(params);
            std::vector<Matrix> grads;
            for (auto* p : params) grads.push_back(p->grad);
            return std::make_tuple(out, dx, grads, cache.alpha);
        };
        const auto [out1, dx1, g1, a1] = run(1);
        const auto [out2, dx2, g2, a2] = run(2);
        set_thread_count(saved);
        CHECK((out1.array() == out2.array()).all());
        CHECK((a1.array() == a2.array()).all());
        CHECK((dx1.array() == dx2.array()).all());
        REQUIRE(g1.size() == g2.size());
        for (std::size_t k = 0; k < g1.size(); ++k) CHECK((g1[k].array() == g2[k].array()).all());
    }
}

TEST_CASE("DotAttentionConv parameters follow PyG's TransformerConv names and shapes", "[nn][dot_attention]") {
    Rng rng(4);
    DotAttentionConv layer({.in = 5, .out = 3, .heads = 2, .beta = true, .edge_dim = 4}, rng, "conv1");
    ParameterList<float> params;
    layer.parameters(params);
    std::vector<std::string> names;
    for (const auto* p : params) names.push_back(p->name);
    CHECK(names == std::vector<std::string>{"conv1.lin_key.weight", "conv1.lin_key.bias", "conv1.lin_query.weight",
                                            "conv1.lin_query.bias", "conv1.lin_value.weight", "conv1.lin_value.bias",
                                            "conv1.lin_edge.weight", "conv1.lin_skip.weight", "conv1.lin_skip.bias",
                                            "conv1.lin_beta.weight"});
    CHECK(layer.lin_query_weight().value.rows() == 5);
    CHECK(layer.lin_query_weight().value.cols() == 6);
    CHECK(layer.lin_edge_weight().value.rows() == 4);
    CHECK(layer.lin_edge_weight().value.cols() == 6);
    CHECK(layer.lin_skip_weight().value.cols() == 6);
    CHECK(layer.lin_beta_weight().value.rows() == 18);
    CHECK(layer.lin_beta_weight().value.cols() == 1);
    // averaged heads: skip and beta have the width of one head
    DotAttentionConv mean({.in = 5, .out = 3, .heads = 2, .concat = false, .beta = true}, rng);
    CHECK(mean.out_width() == 3);
    CHECK(mean.lin_skip_weight().value.cols() == 3);
    CHECK(mean.lin_beta_weight().value.rows() == 9);
    // as PyG: beta acts only with root_weight; no bias, no bias parameters
    DotAttentionConv plain({.in = 5, .out = 3, .beta = true, .bias = false, .root_weight = false}, rng);
    CHECK_FALSE(plain.uses_beta());
    ParameterList<float> plain_params;
    plain.parameters(plain_params);
    CHECK(plain_params.size() == 3);
}

TEST_CASE("DotAttentionConv rejects bad options and shapes with the numbers", "[nn][dot_attention]") {
    Rng rng(1);
    CHECK_THROWS_AS(DotAttentionConv({.in = 0, .out = 4}, rng), ConfigError);
    CHECK_THROWS_WITH(DotAttentionConv({.in = 3, .out = 4, .heads = 0}, rng), Catch::Contains("heads = 0"));
    CHECK_THROWS_WITH(DotAttentionConv({.in = 3, .out = 0}, rng), Catch::Contains("out = 0"));
    CHECK_THROWS_WITH(DotAttentionConv({.in = 3, .out = 4, .dropout = 1.0}, rng), Catch::Contains("dropout"));
    CHECK_THROWS_AS(DotAttentionConv({.in = 3, .out = 4, .input_dropout = -0.1}, rng), ConfigError);
    CHECK_THROWS_WITH(DotAttentionConv({.in = 3, .out = 4, .edge_dim = -1}, rng), Catch::Contains("edge_dim must be >= 0, got -1"));

    const Graph g = test::random_graph(5, 0.5, rng);
    DotAttentionCache<float> cache;
    DotAttentionConv layer({.in = 3, .out = 4}, rng);
    CHECK_THROWS_WITH(layer.forward(g, Matrix::Zero(5, 7), cache, false), Catch::Contains("5x7") && Catch::Contains("in_features = 3"));
    CHECK_THROWS_AS(layer.forward(g, Matrix::Zero(6, 3), cache, false), ShapeError);
    CHECK_THROWS_WITH(layer.backward(Matrix::Zero(5, 4), DotAttentionCache<float>{}), Catch::Contains("before forward"));
    layer.forward(g, Matrix::Zero(5, 3), cache, false);
    CHECK_THROWS_WITH(layer.backward(Matrix::Zero(5, 3), cache), Catch::Contains("5x3") && Catch::Contains("expected 5x4"));
    CHECK_THROWS_AS(layer.backward(Matrix::Zero(4, 4), cache), ShapeError);
    DotAttentionConv dropping({.in = 3, .out = 4, .dropout = 0.5}, rng);
    CHECK_THROWS_AS(dropping.forward(g, Matrix::Zero(5, 3), cache, /*training=*/true, /*rng=*/nullptr), ConfigError);

    DotAttentionConv with_edges({.in = 3, .out = 2, .edge_dim = 4}, rng);
    const Matrix x = Matrix::Zero(5, 3);
    CHECK_THROWS_WITH(with_edges.forward(g, x, cache, false), Catch::Contains("edge_dim = 4") && Catch::Contains("needs edge_attr"));
    const Matrix wrong = Matrix::Zero(g.num_edges(), 2);
    CHECK_THROWS_WITH(with_edges.forward(g, x, cache, false, nullptr, &wrong),
                      Catch::Contains(std::to_string(g.num_edges()) + "x2") && Catch::Contains("edge_dim = 4"));
    const Matrix too_many = Matrix::Zero(g.num_edges() + 1, 4);
    CHECK_THROWS_AS(with_edges.forward(g, x, cache, false, nullptr, &too_many), ShapeError);
    const Matrix attr = Matrix::Zero(g.num_edges(), 4);
    CHECK_THROWS_WITH(layer.forward(g, x, cache, false, nullptr, &attr), Catch::Contains("edge_dim = 0"));
    CHECK_THROWS_AS(layer.forward(g, x, cache, false, nullptr, &attr), ConfigError);
}
