// Pair decoders (link and edge heads): dense reference, finite-difference gradients, threads.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/decoder.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

std::vector<NodePair> random_pairs(NodeId n, std::size_t count, Rng& rng) {
    std::vector<NodePair> pairs;
    for (std::size_t k = 0; k < count; ++k)
        pairs.emplace_back(static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(n))), static_cast<NodeId>(rng.below(static_cast<std::uint64_t>(n))));
    pairs.emplace_back(1, 1);  // u == v: both gradient terms land on one row
    return pairs;
}

// The decoders written out with the MLP as a plain function of its parameters.
MatrixT<double> reference(PairDecoderKind kind, PairDecoderT<double>& d, const MatrixT<double>& z, const std::vector<NodePair>& pairs) {
    const Eigen::Index C = z.cols();
    const auto P = static_cast<Eigen::Index>(pairs.size());
    if (kind == PairDecoderKind::dot) {
        MatrixT<double> s(P, 1);
        for (Eigen::Index p = 0; p < P; ++p) {
            double acc = 0;
            for (Eigen::Index c = 0; c < C; ++c) acc += z(pairs[p].first, c) * z(pairs[p].second, c);
            s(p, 0) = acc;
        }
        return s;
    }
    const bool concat = kind == PairDecoderKind::edge_classes;
    MatrixT<double> in(P, concat ? 3 * C : C);
    for (Eigen::Index p = 0; p < P; ++p)
        for (Eigen::Index c = 0; c < C; ++c) {
            const double a = z(pairs[p].first, c), b = z(pairs[p].second, c);
            if (concat) {
                in(p, c) = a;
                in(p, C + c) = b;
                in(p, 2 * C + c) = a * b;
            } else {
                in(p, c) = a * b;
            }
        }
    ParameterList<double> params;
    d.parameters(params);
    MatrixT<double> h = in * params[0]->value;
    h.rowwise() += params[1]->value.row(0);
    h = h.cwiseMax(0.0);
    MatrixT<double> out = h * params[2]->value;
    out.rowwise() += params[3]->value.row(0);
    return out;
}

}  // namespace

TEST_CASE("Pair decoders equal their formulas", "[nn][decoder]") {
    for (const PairDecoderKind kind : {PairDecoderKind::dot, PairDecoderKind::hadamard_mlp, PairDecoderKind::edge_classes}) {
        CAPTURE(to_string(kind));
        Rng rng(3);
        const Eigen::Index out = kind == PairDecoderKind::edge_classes ? 4 : 1;
        PairDecoderT<double> d({.kind = kind, .dim = 5, .mlp_hidden = 6, .out = out}, rng);
        ParameterList<double> params;
        d.parameters(params);
        for (auto* p : params) p->value = random_matrix<double>(p->value.rows(), p->value.cols(), rng);
        const MatrixT<double> z = random_matrix<double>(12, 5, rng);
        const auto pairs = random_pairs(12, 30, rng);
        PairDecoderCache<double> cache;
        const MatrixT<double> s = d.forward(z, pairs, cache, /*training=*/false);
        REQUIRE(s.rows() == static_cast<Eigen::Index>(pairs.size()));
        REQUIRE(s.cols() == out);
        CHECK((s - reference(kind, d, z, pairs)).cwiseAbs().maxCoeff() < 1e-12);
    }
}

TEST_CASE("Pair decoder gradients match finite differences", "[nn][decoder][gradcheck]") {
    for (const PairDecoderKind kind : {PairDecoderKind::dot, PairDecoderKind::hadamard_mlp, PairDecoderKind::edge_classes})
        for (const double dropout : {0.0, 0.3}) {
            if (kind == PairDecoderKind::dot && dropout > 0) continue;
            CAPTURE(to_string(kind), dropout);
            Rng rng(5);
            const Eigen::Index out = kind == PairDecoderKind::edge_classes ? 3 : 1;
            PairDecoderT<double> d({.kind = kind, .dim = 4, .mlp_hidden = 5, .out = out, .dropout = dropout}, rng);
            MatrixT<double> z = random_matrix<double>(10, 4, rng);
            const auto pairs = random_pairs(10, 70, rng);  // > one 64-row chunk
            const MatrixT<double> w = random_matrix<double>(static_cast<Eigen::Index>(pairs.size()), out, rng);
            const std::uint64_t seed = rng.next_u64();
            auto loss = [&] {
                Rng r(seed);
                PairDecoderCache<double> c;
                return (d.forward(z, pairs, c, /*training=*/true, &r).array() * w.array()).sum();
            };
            PairDecoderCache<double> cache;
            Rng r(seed);
            d.forward(z, pairs, cache, true, &r);
            ParameterList<double> params;
            d.parameters(params);
            CHECK(params.size() == (kind == PairDecoderKind::dot ? 0u : 4u));
            test::prefill_grads(params);
            MatrixT<double> dz = MatrixT<double>::Zero(z.rows(), z.cols());
            d.backward(w, z, cache, dz);
            const auto pr = test::check_parameter_gradients(params, loss);
            INFO(pr.worst);
            CHECK(pr.ok);
            const auto zr = test::check_input_gradient(z, dz, loss);
            INFO(zr.worst);
            CHECK(zr.ok);
        }
}

TEST_CASE("Pair decoder backward adds into dz", "[nn][decoder]") {
    Rng rng(8);
    PairDecoderT<double> d({.kind = PairDecoderKind::dot, .dim = 3}, rng);
    const MatrixT<double> z = random_matrix<double>(4, 3, rng);
    PairDecoderCache<double> cache;
    d.forward(z, {{0, 1}}, cache, false);
    MatrixT<double> dz = MatrixT<double>::Ones(4, 3);
    d.backward(MatrixT<double>::Constant(1, 1, 2.0), z, cache, dz);
    CHECK((dz.row(0).array() - (1.0 + 2.0 * z.row(1).array())).abs().maxCoeff() < 1e-15);
    CHECK((dz.row(1).array() - (1.0 + 2.0 * z.row(0).array())).abs().maxCoeff() < 1e-15);
    CHECK((dz.row(2).array() - 1.0).abs().maxCoeff() == 0.0);
}

TEST_CASE("Pair decoders reject bad pairs and options", "[nn][decoder]") {
    Rng rng(1);
    CHECK_THROWS_AS(PairDecoder({.kind = PairDecoderKind::dot, .dim = 0}, rng), ConfigError);
    CHECK_THROWS_AS(PairDecoder({.kind = PairDecoderKind::dot, .dim = 2, .out = 3}, rng), ConfigError);
    CHECK_THROWS_AS(PairDecoder({.kind = PairDecoderKind::hadamard_mlp, .dim = 2, .mlp_hidden = 0}, rng), ConfigError);
    CHECK_THROWS_AS(parse_link_decoder("cosine"), ConfigError);
    CHECK(parse_link_decoder("hadamard-mlp") == PairDecoderKind::hadamard_mlp);
    PairDecoder d({.kind = PairDecoderKind::dot, .dim = 2}, rng);
    PairDecoderCache<float> cache;
    const Matrix z = Matrix::Ones(3, 2);
    CHECK_THROWS_AS(d.forward(z, {{0, 3}}, cache, false), GraphError);
    CHECK_THROWS_AS(d.forward(z, {{-1, 0}}, cache, false), GraphError);
    CHECK_THROWS_AS(d.forward(Matrix::Ones(3, 4), {{0, 1}}, cache, false), ShapeError);
}

TEST_CASE("Pair decoders give identical results with 1 and 2 threads", "[nn][decoder][threads]") {
    const int saved = thread_count();
    Rng rng(4);
    PairDecoder d({.kind = PairDecoderKind::edge_classes, .dim = 8, .mlp_hidden = 16, .out = 3, .dropout = 0.2}, rng);
    const Matrix z = random_matrix<float>(300, 8, rng);
    std::vector<NodePair> pairs;
    for (int k = 0; k < 1000; ++k) pairs.emplace_back(static_cast<NodeId>(rng.below(300)), static_cast<NodeId>(rng.below(300)));
    const Matrix w = random_matrix<float>(1000, 3, rng);
    Matrix out[2], dz[2];
    for (int t = 1; t <= 2; ++t) {
        set_thread_count(t);
        Rng r(9);
        PairDecoderCache<float> cache;
        out[t - 1] = d.forward(z, pairs, cache, true, &r);
        dz[t - 1] = Matrix::Zero(300, 8);
        d.backward(w, z, cache, dz[t - 1]);
    }
    set_thread_count(saved);
    CHECK(out[0] == out[1]);
    CHECK(dz[0] == dz[1]);
}

// The scatter gives each dz row the serial loop's additions in the serial loop's order, but
// whether the compiler fuses a multiply and an add differs between its register sums and Eigen's
// row update (it did under the sanitizers), so the reference is compared within rounding; the
// thread counts are compared bit for bit.
TEST_CASE("Dot decoder backward scattered by node equals the serial pair loop, the same bits with 1 and 2 threads",
          "[nn][decoder][threads]") {
    const int saved = thread_count();
    Rng rng(6);
    // widths: one register, one register and a tail summed in memory, four registers
    // (core/row_sums.hpp)
    const Eigen::Index dim = GENERATE(16, 21, 64);
    PairDecoder d({.kind = PairDecoderKind::dot, .dim = dim}, rng);
    const Matrix z = random_matrix<float>(200, dim, rng);
    // 3,002 pairs: one counting-sort range; 20,002: eight ranges of pairs (decoder.cpp)
    const int count = GENERATE(3000, 20000);
    INFO(count + 2 << " pairs, dim " << dim);
    std::vector<NodePair> pairs;
    for (int k = 0; k < count; ++k) pairs.emplace_back(static_cast<NodeId>(rng.below(200)), static_cast<NodeId>(rng.below(200)));
    pairs.emplace_back(7, 7);  // u = v: 2·g·z_u
    pairs.emplace_back(7, 7);
    const Matrix g = random_matrix<float>(static_cast<Eigen::Index>(pairs.size()), 1, rng);
    // The reference: pair by pair, u then v, as the formula reads.
    Matrix expected = random_matrix<float>(200, dim, rng);
    const Matrix start = expected;
    for (std::size_t p = 0; p < pairs.size(); ++p) {
        const auto [u, v] = pairs[p];
        const Matrix zu = z.row(u), zv = z.row(v);
        expected.row(u) += g(static_cast<Eigen::Index>(p), 0) * zv;
        expected.row(v) += g(static_cast<Eigen::Index>(p), 0) * zu;
    }
    Matrix dz[2];
    for (int t = 1; t <= 2; ++t) {
        set_thread_count(t);
        PairDecoderCache<float> cache;
        d.forward(z, pairs, cache, false);
        dz[t - 1] = start;  // backward adds into dz
        d.backward(g, z, cache, dz[t - 1]);
    }
    set_thread_count(saved);
    CHECK((dz[0] - expected).cwiseAbs().maxCoeff() < 1e-4f * (1.0f + expected.cwiseAbs().maxCoeff()));
    CHECK((dz[0].array() == dz[1].array()).all());
    PairDecoderCache<float> cache;
    d.forward(z, pairs, cache, false);
    Matrix same = z;
    CHECK_THROWS_AS(d.backward(g, same, cache, same), ConfigError);
}
