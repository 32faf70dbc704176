// Graph readout: dense reference per kind, gradients, empty graphs, α invariants, threads.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/readout.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

// Graphs of 3, 0 (empty), 1 and 4 nodes.
const std::vector<NodeId> kOffsets = {0, 3, 3, 4, 8};

// Straight from the definitions, one graph at a time, no shared code with the kernel.
MatrixT<double> dense_pool(Readout kind, const std::vector<NodeId>& offsets, const MatrixT<double>& h, GraphPoolT<double>& pool) {
    const Eigen::Index B = static_cast<Eigen::Index>(offsets.size()) - 1;
    MatrixT<double> out = MatrixT<double>::Zero(B, h.cols());
    for (Eigen::Index b = 0; b < B; ++b) {
        const Eigen::Index n = offsets[b + 1] - offsets[b];
        if (n == 0) continue;
        const MatrixT<double> hb = h.middleRows(offsets[b], n);
        switch (kind) {
            case Readout::mean: out.row(b) = hb.colwise().mean(); break;
            case Readout::sum: out.row(b) = hb.colwise().sum(); break;
            case Readout::max: out.row(b) = hb.colwise().maxCoeff(); break;
            case Readout::attention: {
                const VectorT<double> gate =
                    (hb * pool.gate_nn().weight().value).col(0).array() + pool.gate_nn().bias().value(0, 0);
                const VectorT<double> alpha = gate.array().exp() / gate.array().exp().sum();
                out.row(b) = alpha.transpose() * hb;
                break;
            }
        }
    }
    return out;
}

// Several kinds side by side: each kind's reference in its own block of columns.
MatrixT<double> dense_pool(const std::vector<Readout>& kinds, const std::vector<NodeId>& offsets, const MatrixT<double>& h,
                           GraphPoolT<double>& pool) {
    const Eigen::Index C = h.cols();
    MatrixT<double> out(static_cast<Eigen::Index>(offsets.size()) - 1, C * static_cast<Eigen::Index>(kinds.size()));
    for (std::size_t k = 0; k < kinds.size(); ++k) out.middleCols(static_cast<Eigen::Index>(k) * C, C) = dense_pool(kinds[k], offsets, h, pool);
    return out;
}

// Every single kind, and joined readouts with and without the gate, in several orders.
const std::vector<std::vector<Readout>> kKindSets = {
    {Readout::mean},
    {Readout::sum},
    {Readout::max},
    {Readout::attention},
    {Readout::mean, Readout::max},
    {Readout::max, Readout::sum, Readout::attention},
    {Readout::attention, Readout::mean, Readout::sum, Readout::max},
};

}  // namespace

TEST_CASE("readout names parse and print", "[nn][readout]") {
    for (const Readout r : {Readout::mean, Readout::sum, Readout::max, Readout::attention}) CHECK(parse_readout(to_string(r)) == r);
    CHECK_THROWS_WITH(parse_readout("median"), Catch::Contains("'median'") && Catch::Contains("attention"));
    for (const auto& kinds : kKindSets) CHECK(parse_readouts(to_string(kinds)) == kinds);
    CHECK(to_string(std::vector<Readout>{Readout::mean, Readout::max}) == "mean+max");
    CHECK(parse_readouts("max+mean") == std::vector<Readout>{Readout::max, Readout::mean});
    CHECK_THROWS_WITH(parse_readouts("mean+median"), Catch::Contains("'median'"));
    CHECK_THROWS_WITH(parse_readouts("mean+max+mean"), Catch::Contains("'mean+max+mean'") && Catch::Contains("'mean' twice"));
    CHECK_THROWS_WITH(parse_readouts("mean+"), Catch::Contains("empty part"));
    CHECK_THROWS_WITH(parse_readouts("+max"), Catch::Contains("empty part"));
    CHECK_THROWS_WITH(parse_readouts(""), Catch::Contains("empty part"));
}

TEST_CASE("GraphPool equals the per-graph reference for every kind and joined kinds", "[nn][readout]") {
    for (const auto& kinds : kKindSets) {
        CAPTURE(to_string(kinds));
        Rng rng(31);
        GraphPoolT<double> pool(kinds, 5, rng);
        CHECK(pool.kinds() == kinds);
        for (const Readout kind : kinds)
            if (kind == Readout::attention) pool.gate_nn().bias().value(0, 0) = 0.7;
        const MatrixT<double> h = random_matrix<double>(8, 5, rng) * 3.0;
        GraphPoolCache<double> cache;
        const MatrixT<double> out = pool.forward(kOffsets, h, cache);
        REQUIRE(out.rows() == 4);
        REQUIRE(out.cols() == 5 * static_cast<Eigen::Index>(kinds.size()));
        CHECK(pool.out_width() == out.cols());
        CHECK((out - dense_pool(kinds, kOffsets, h, pool)).cwiseAbs().maxCoeff() < 1e-12);
        CHECK(out.row(1).cwiseAbs().maxCoeff() == 0.0);  // the empty graph pools to 0
    }
}

TEST_CASE("GraphPool gradients match finite differences (h and gate_nn)", "[nn][readout][gradcheck]") {
    for (const auto& kinds : kKindSets) {
        CAPTURE(to_string(kinds));
        const bool gated = std::find(kinds.begin(), kinds.end(), Readout::attention) != kinds.end();
        Rng rng(37);
        GraphPoolT<double> pool(kinds, 4, rng);
        if (gated) pool.gate_nn().bias().value(0, 0) = -0.3;
        MatrixT<double> h = random_matrix<double>(8, 4, rng);  // distinct values: max is differentiable
        const MatrixT<double> weights = random_matrix<double>(4, pool.out_width(), rng);
        auto loss = [&] {
            GraphPoolCache<double> c;
            return (pool.forward(kOffsets, h, c).array() * weights.array()).sum();
        };
        GraphPoolCache<double> cache;
        pool.forward(kOffsets, h, cache);
        ParameterList<double> params;
        pool.parameters(params);
        REQUIRE(params.size() == (gated ? 2u : 0u));
        test::prefill_grads(params);
        const MatrixT<double> dh = pool.backward(weights, cache);
        const auto pr = test::check_parameter_gradients(params, loss);
        INFO(pr.worst);
        CHECK(pr.ok);
        CHECK(pr.checked == count_values(params));
        const auto hr = test::check_input_gradient(h, dh, loss);
        INFO(hr.worst);
        CHECK(hr.ok);
    }
}

TEST_CASE("GraphPool max routes the gradient to the first maximum on ties", "[nn][readout]") {
    Rng rng(2);
    GraphPoolT<double> pool(Readout::max, 2, rng);
    MatrixT<double> h(3, 2);
    h << 1, 5,  //
        4, 5,   //
        4, 2;
    GraphPoolCache<double> cache;
    const MatrixT<double> out = pool.forward({0, 3}, h, cache);
    CHECK(out(0, 0) == 4.0);
    CHECK(out(0, 1) == 5.0);
    const MatrixT<double> dh = pool.backward(MatrixT<double>::Constant(1, 2, 2.0), cache);
    MatrixT<double> expected(3, 2);
    expected << 0, 2,  //
        2, 0,          //
        0, 0;
    CHECK((dh - expected).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("GraphPool attention weights sum to 1 per graph and survive large gates", "[nn][readout]") {
    Rng rng(41);
    GraphPool pool(Readout::attention, 3, rng);
    Matrix h = random_matrix<float>(8, 3, rng) * 1e4f;  // gates of order 1e4: exp would overflow unshifted
    GraphPoolCache<float> cache;
    const Matrix out = pool.forward(kOffsets, h, cache);
    CHECK(out.allFinite());
    for (std::size_t b = 0; b + 1 < kOffsets.size(); ++b) {
        if (kOffsets[b + 1] == kOffsets[b]) continue;
        double sum = 0;
        for (NodeId i = kOffsets[b]; i < kOffsets[b + 1]; ++i) {
            CHECK(cache.alpha(i) >= 0.0f);
            sum += cache.alpha(i);
        }
        CHECK(sum == Approx(1.0).epsilon(1e-6));
    }
    CHECK(pool.backward(Matrix::Ones(4, 3), cache).allFinite());
}

TEST_CASE("GraphPool: empty graphs give zero outputs and zero gradients", "[nn][readout]") {
    for (const auto& kinds : kKindSets) {
        CAPTURE(to_string(kinds));
        Rng rng(3);
        GraphPoolT<double> pool(kinds, 2, rng);
        const MatrixT<double> h = random_matrix<double>(2, 2, rng);
        GraphPoolCache<double> cache;
        const MatrixT<double> out = pool.forward({0, 0, 2, 2}, h, cache);  // graphs 0 and 2 are empty
        CHECK(out.allFinite());
        CHECK(out.row(0).cwiseAbs().maxCoeff() == 0.0);
        CHECK(out.row(2).cwiseAbs().maxCoeff() == 0.0);
        CHECK(pool.backward(MatrixT<double>::Ones(3, pool.out_width()), cache).allFinite());
        // a batch with no nodes at all
        const MatrixT<double> none = pool.forward({0, 0}, MatrixT<double>(0, 2), cache);
        CHECK(none.rows() == 1);
        CHECK(none.cwiseAbs().maxCoeff() == 0.0);
    }
}

TEST_CASE("GraphPool gives identical results with 1 and 2 threads", "[nn][readout][threads]") {
    std::vector<NodeId> offsets = {0};
    Rng sizes(5);
    for (int b = 0; b < 300; ++b) offsets.push_back(offsets.back() + static_cast<NodeId>(sizes.below(12)));
    const int saved = thread_count();
    for (const auto& kinds : kKindSets) {
        CAPTURE(to_string(kinds));
        auto run = [&](int threads) {
            set_thread_count(threads);
            Rng rng(77);
            GraphPool pool(kinds, 16, rng);
            const Matrix h = random_matrix<float>(offsets.back(), 16, rng);
            GraphPoolCache<float> cache;
            Matrix out = pool.forward(offsets, h, cache);
            Matrix dh = pool.backward(random_matrix<float>(300, pool.out_width(), rng), cache);
            ParameterList<float> params;
            pool.parameters(params);
            std::vector<Matrix> grads;
            for (auto* p : params) grads.push_back(p->grad);
            return std::make_tuple(out, dh, grads);
        };
        const auto [out1, dh1, g1] = run(1);
        const auto [out2, dh2, g2] = run(2);
        CHECK((out1.array() == out2.array()).all());
        CHECK((dh1.array() == dh2.array()).all());
        REQUIRE(g1.size() == g2.size());
        for (std::size_t k = 0; k < g1.size(); ++k) CHECK((g1[k].array() == g2[k].array()).all());
    }
    set_thread_count(saved);
}

TEST_CASE("GraphPool rejects bad shapes and offsets with the numbers", "[nn][readout]") {
    Rng rng(1);
    CHECK_THROWS_WITH(GraphPool(Readout::mean, 0, rng), Catch::Contains("channels must be positive, got 0"));
    GraphPool pool(Readout::attention, 3, rng, "readout");
    CHECK(pool.gate_nn().weight().name == "readout.gate_nn.weight");
    GraphPoolCache<float> cache;
    CHECK_THROWS_WITH(pool.forward({0, 2}, Matrix::Zero(2, 4), cache), Catch::Contains("4 columns") && Catch::Contains("channels = 3"));
    CHECK_THROWS_WITH(pool.forward({0, 3}, Matrix::Zero(2, 3), cache), Catch::Contains("N = 2") && Catch::Contains("0 .. 3"));
    CHECK_THROWS_WITH(pool.forward({0, 2, 1, 2}, Matrix::Zero(2, 3), cache), Catch::Contains("graph 1"));
    CHECK_THROWS_AS(pool.forward({}, Matrix::Zero(2, 3), cache), ShapeError);
    pool.forward({0, 2}, Matrix::Zero(2, 3), cache);
    CHECK_THROWS_WITH(pool.backward(Matrix::Zero(2, 3), cache), Catch::Contains("2x3") && Catch::Contains("expected 1x3"));
    GraphPool mean(Readout::mean, 3, rng);
    CHECK_THROWS_AS(mean.gate_nn(), ConfigError);
    CHECK_THROWS_WITH(GraphPool(std::vector<Readout>{}, 3, rng), Catch::Contains("no readout kind"));
    CHECK_THROWS_WITH(GraphPool(std::vector<Readout>{Readout::max, Readout::max}, 3, rng), Catch::Contains("'max' given twice"));
    GraphPool joined(std::vector<Readout>{Readout::mean, Readout::max}, 3, rng);
    joined.forward({0, 2}, Matrix::Zero(2, 3), cache);
    CHECK_THROWS_WITH(joined.backward(Matrix::Zero(1, 3), cache), Catch::Contains("1x3") && Catch::Contains("expected 1x6"));
}
