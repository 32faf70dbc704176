// GatConv<float>'s vector row kernels (src/nn/gat_simd.hpp: AVX-512, or AVX2 without it) against its portable loops: the
// same layer on the same input, outputs, attention, input gradient and every parameter gradient
// equal up to float rounding, over the shapes the kernels take (heads per block, blocks per head,
// one head, a partial last block), with and without edge features, dropout, self-loops, a node
// without edges and a hub whose row outgrows the kernels' per-row buffer. The portable loops are
// the ones checked against the dense reference and finite differences (test_gat_conv.cpp). The
// kernels' two sources of the source scores (the gathered rows, the stored array) agree bit for bit.
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <tuple>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

struct Run {
    Matrix out, alpha, dx;
    std::vector<Matrix> grads;
};

// A random graph plus a hub (node 0) that receives an edge from every node, and, without
// self-loops added, a node (the last) that receives none.
Graph test_graph(NodeId n, Rng& rng) {
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (NodeId u = 0; u < n; ++u)
        for (NodeId v = 0; v < n - 1; ++v)
            if (u != v && (v == 0 || rng.uniform() < 0.04)) edges.emplace_back(u, v);
    return build_graph(n, std::move(edges));
}

Run run_layer(const Graph& g, const GatConvOptions& o, bool simd, bool training) {
    set_gat_simd_kernels(simd);
    Rng rng(11);
    GatConvT<float> layer(o, rng);
    const NodeId n = g.num_nodes();
    const Matrix x = random_matrix<float>(n, o.in, rng);
    const Matrix w = random_matrix<float>(n, layer.out_width(), rng);
    Matrix edge_attr;
    if (o.edge_dim > 0) edge_attr = random_matrix<float>(g.num_edges(), o.edge_dim, rng);
    GatConvCache<float> cache;
    Rng drop(5);
    Run r;
    r.out = layer.forward(g, x, cache, training, &drop, o.edge_dim > 0 ? &edge_attr : nullptr);
    r.alpha = cache.alpha;
    r.dx = layer.backward(w, cache);
    ParameterList<float> params;
    layer.parameters(params);
    for (auto* p : params) r.grads.push_back(p->grad);
    set_gat_simd_kernels(true);
    return r;
}

void check_same_bits(const Run& a, const Run& b) {
    CHECK((a.out.array() == b.out.array()).all());
    CHECK((a.alpha.array() == b.alpha.array()).all());
    CHECK((a.dx.array() == b.dx.array()).all());
    REQUIRE(a.grads.size() == b.grads.size());
    for (std::size_t k = 0; k < a.grads.size(); ++k) CHECK((a.grads[k].array() == b.grads[k].array()).all());
}

void check_close(const Matrix& a, const Matrix& b, const char* what) {
    INFO(what);
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    REQUIRE(a.allFinite());
    const float scale = std::max(1.0f, b.cwiseAbs().maxCoeff());
    CHECK((a - b).cwiseAbs().maxCoeff() <= 2e-5f * scale);
}

}  // namespace

TEST_CASE("GatConv vector kernels equal the portable loops", "[nn][gat][simd]") {
    if (!gat_simd_kernels_used({.in = 4, .out = 8, .heads = 8})) {
        WARN("this build has no vector GatConv kernels (not compiled for AVX-512F or AVX2 + FMA): nothing to compare, skipped");
        return;
    }
    const int lanes = gat_simd_kernel_lanes();
    INFO("kernel lanes: " << lanes);
    Rng graph_rng(4);
    const Graph g = test_graph(230, graph_rng);
    struct Shape {
        Eigen::Index heads, out;
        bool concat;
    };
    // C = 8 with 8 heads (Cora's first layer), one head of 7 (its output layer, a partial block),
    // 16 and 64 channels (blocks per head), 3 heads of 4 and 5 of 1 (partial blocks), 16 heads of 2,
    // one averaged head, and the widest row the kernels take (4 × 64 = 256); 16 heads only with 16
    // lanes. With 8 lanes: 3 heads of 4 are heads per block, 16 and 64 channels blocks per head.
    std::vector<Shape> shapes = {{8, 8, true}, {1, 7, false}, {4, 16, true}, {2, 64, true}, {3, 4, true},
                                 {5, 1, true}, {1, 24, true}, {4, 64, true}, {6, 2, true}};
    if (lanes == 16) shapes.push_back({16, 2, true});
    if (lanes == 8) shapes.push_back({2, 40, true});  // 5 blocks per head
    for (const Shape& s : shapes)
        for (int variant = 0; variant < 4; ++variant) {
            GatConvOptions o{.in = 13, .out = s.out, .heads = s.heads, .concat = s.concat};
            const bool training = variant != 0;
            if (variant >= 1) o.dropout = 0.4, o.input_dropout = 0.3;
            if (variant == 2) o.edge_dim = 3;
            if (variant == 3) o.add_self_loops = false, o.residual = true;
            CAPTURE(s.heads, s.out, s.concat, variant);
            REQUIRE(gat_simd_kernels_used(o));
            const Run fast = run_layer(g, o, true, training);
            const Run slow = run_layer(g, o, false, training);
            check_close(fast.out, slow.out, "out");
            check_close(fast.alpha, slow.alpha, "alpha");
            check_close(fast.dx, slow.dx, "dx");
            REQUIRE(fast.grads.size() == slow.grads.size());
            for (std::size_t k = 0; k < fast.grads.size(); ++k) check_close(fast.grads[k], slow.grads[k], "parameter gradient");
            if (variant == 3) CHECK((fast.out.row(g.num_nodes() - 1).array() == slow.out.row(g.num_nodes() - 1).array()).all());
            // The source scores computed from the gathered rows (large graphs) or read from the
            // stored N×H array (small ones): the same bits.
            set_gat_simd_source_scores(1);
            const Run from_rows = run_layer(g, o, true, training);
            set_gat_simd_source_scores(0);
            const Run from_array = run_layer(g, o, true, training);
            set_gat_simd_source_scores(-1);
            check_same_bits(from_rows, from_array);
        }
}

TEST_CASE("GatConv shapes outside the vector kernels take the portable loops", "[nn][gat][simd]") {
    CHECK_FALSE(gat_simd_kernels_used({.in = 4, .out = 5, .heads = 3}));                   // C = 5, several heads
    CHECK_FALSE(gat_simd_kernels_used({.in = 4, .out = 8, .heads = 6, .concat = false}));  // averaged heads
    CHECK_FALSE(gat_simd_kernels_used({.in = 4, .out = 32, .heads = 17}));                 // over 16 heads
    CHECK_FALSE(gat_simd_kernels_used({.in = 4, .out = 80, .heads = 4}));                  // row over 256
    if (gat_simd_kernel_lanes() == 8) {
        CHECK_FALSE(gat_simd_kernels_used({.in = 4, .out = 2, .heads = 16}));  // over 8 heads
        CHECK_FALSE(gat_simd_kernels_used({.in = 4, .out = 12, .heads = 2}));  // C neither a multiple of 8 nor below it
        CHECK(gat_simd_kernels_used({.in = 4, .out = 64, .heads = 4}));
    }
    set_gat_simd_kernels(false);
    CHECK_FALSE(gat_simd_kernels_used({.in = 4, .out = 8, .heads = 8}));
    set_gat_simd_kernels(true);
}

TEST_CASE("GatConv vector kernels give identical results with 1 and 2 threads", "[nn][gat][simd][threads]") {
    Rng graph_rng(6);
    const Graph g = test_graph(700, graph_rng);
    const int saved = thread_count();
    const GatConvOptions o{.in = 20, .out = 8, .heads = 8, .dropout = 0.5, .input_dropout = 0.5, .edge_dim = 2};
    set_thread_count(1);
    const Run one = run_layer(g, o, true, true);
    set_thread_count(2);
    const Run two = run_layer(g, o, true, true);
    set_thread_count(saved);
    check_same_bits(one, two);
}
