// Degree features, Laplacian eigenvector PEs and random-walk PEs against dense references
// written straight from the definitions.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/algorithms.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/nn/positional.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <utility>
#include <vector>

using namespace gatkit;

namespace {

using Edges = std::vector<std::pair<NodeId, NodeId>>;

// Named tolerances: PEs come back as float, computed in double.
constexpr double kFloatTol = 2e-5;  // a float rounding of O(1) values plus solver error
constexpr double kResidualTol = 1e-4;

// Dense simple adjacency: symmetric, 0/1, no self-loops.
MatrixT<double> dense_adjacency(NodeId n, const Edges& edges) {
    MatrixT<double> a = MatrixT<double>::Zero(n, n);
    for (const auto& [u, v] : edges)
        if (u != v) a(u, v) = a(v, u) = 1.0;
    return a;
}

// L = I - D^-1/2 A D^-1/2 (rows of isolated nodes: 0).
MatrixT<double> dense_laplacian(const MatrixT<double>& a) {
    const Eigen::Index n = a.rows();
    MatrixT<double> l = MatrixT<double>::Zero(n, n);
    const Eigen::VectorXd d = a.rowwise().sum();
    for (Eigen::Index i = 0; i < n; ++i) {
        if (d[i] > 0) l(i, i) = 1.0;
        for (Eigen::Index j = 0; j < n; ++j)
            if (a(i, j) != 0) l(i, j) = -1.0 / std::sqrt(d[i] * d[j]);
    }
    return l;
}

// A connected random graph on nodes[0..): a random spanning tree plus each other pair with
// probability p. Node ids are taken from `nodes`, so components can interleave.
void add_connected(const std::vector<NodeId>& nodes, double p, Rng& rng, Edges& edges) {
    for (std::size_t a = 1; a < nodes.size(); ++a) edges.emplace_back(nodes[a], nodes[rng.below(a)]);
    for (std::size_t a = 0; a < nodes.size(); ++a)
        for (std::size_t b = a + 1; b < nodes.size(); ++b)
            if (rng.uniform() < p) edges.emplace_back(nodes[a], nodes[b]);
}

std::vector<NodeId> range(NodeId first, NodeId count) {
    std::vector<NodeId> out;
    for (NodeId i = 0; i < count; ++i) out.push_back(first + i);
    return out;
}

Edges path_edges(NodeId n) {
    Edges e;
    for (NodeId i = 0; i + 1 < n; ++i) e.emplace_back(i, i + 1);
    return e;
}

// Checks the Laplacian PE contract on every component: eigenpairs of L restricted to the
// component, orthonormal columns, ascending positive eigenvalues, zero padding, sign convention.
void check_laplacian_pe(NodeId n, const Edges& edges, const LaplacianPe& pe, int k) {
    const Graph g = build_graph(n, edges, {.undirected = true});
    REQUIRE(pe.vectors.rows() == n);
    REQUIRE(pe.vectors.cols() == k);
    REQUIRE(pe.eigenvalues.rows() == n);
    REQUIRE(pe.eigenvalues.cols() == k);
    const MatrixT<double> l = dense_laplacian(dense_adjacency(n, edges));
    NodeId count = 0;
    const auto comp = connected_components(g, &count);
    for (NodeId c = 0; c < count; ++c) {
        std::vector<NodeId> nodes;
        for (NodeId i = 0; i < n; ++i)
            if (comp[i] == c) nodes.push_back(i);
        const auto size = static_cast<int>(nodes.size());
        const int filled = std::min(k, size - 1);
        INFO("component " << c << " of " << size << " nodes");
        // The component's block of L, its columns of the PE, its eigenvalues.
        const auto m = static_cast<Eigen::Index>(size);
        MatrixT<double> lc(m, m), v(m, k), lambda(m, k);
        for (Eigen::Index a = 0; a < m; ++a) {
            for (Eigen::Index b = 0; b < m; ++b) lc(a, b) = l(nodes[a], nodes[b]);
            v.row(a) = pe.vectors.row(nodes[a]).cast<double>();
            lambda.row(a) = pe.eigenvalues.row(nodes[a]).cast<double>();
        }
        for (int j = 0; j < k; ++j) {
            INFO("column " << j);
            // One eigenvalue per column, shared by the component's rows.
            for (Eigen::Index a = 1; a < m; ++a) REQUIRE(lambda(a, j) == lambda(0, j));
            if (j >= filled) {
                REQUIRE(v.col(j).cwiseAbs().maxCoeff() == 0.0);
                REQUIRE(lambda(0, j) == 0.0);
                continue;
            }
            const double lam = lambda(0, j);
            REQUIRE(lam > 1e-6);
            REQUIRE(lam <= 2.0 + kFloatTol);
            if (j > 0) REQUIRE(lam >= lambda(0, j - 1) - kFloatTol);
            REQUIRE((lc * v.col(j) - lam * v.col(j)).norm() < kResidualTol);
            for (int jj = 0; jj < filled; ++jj)
                REQUIRE(std::abs(v.col(j).dot(v.col(jj)) - (j == jj ? 1.0 : 0.0)) < kResidualTol);
            // Sign: the largest magnitude is positive (up to float ties).
            REQUIRE(v.col(j).maxCoeff() >= v.col(j).cwiseAbs().maxCoeff() - kFloatTol);
        }
    }
}

}  // namespace

TEST_CASE("degree_features on a hand graph", "[nn][positional]") {
    // 0: {1, 2, 3}; 1: {0, 2}; 2: {0, 1}; 3: {0}; 4: only a self-loop; 5: isolated.
    // Duplicates and the self-loop are ignored; the edge 3 → 0 is given only one way.
    const Graph g = build_graph(6, {{0, 1}, {1, 0}, {0, 1}, {0, 2}, {2, 0}, {1, 2}, {2, 1}, {3, 0}, {4, 4}},
                                {.drop_duplicates = false});
    const Matrix f = degree_features(g);
    REQUIRE(f.rows() == 6);
    REQUIRE(f.cols() == kDegreeFeatureWidth);
    const std::vector<int> degree{3, 2, 2, 1, 0, 0};
    const std::vector<int> bucket{2, 1, 1, 1, 0, 0};  // floor(log2(1 + d))
    for (NodeId i = 0; i < 6; ++i) {
        INFO("node " << i);
        for (int b = 0; b < kDegreeBuckets; ++b) CHECK(f(i, b) == (b == bucket[i] ? 1.0f : 0.0f));
        CHECK(f(i, kDegreeBuckets) == Approx(std::log1p(degree[i]) / std::log1p(3.0)));
    }

    // No edges at all: bucket 0 and a 0 (not NaN) log column.
    const Matrix none = degree_features(build_graph(3, {{1, 1}}));
    for (NodeId i = 0; i < 3; ++i) {
        CHECK(none(i, 0) == 1.0f);
        CHECK(none.row(i).sum() == 1.0f);
    }
    CHECK(degree_features(build_graph(0, {})).rows() == 0);
}

TEST_CASE("degree_features: bucket boundaries and the clamp at 15", "[nn][positional]") {
    // A star with 65535 leaves: the centre has 1 + d = 2^16, bucket 16 clamped to 15;
    // a second star with 32766 leaves sits just below the boundary (1 + d = 2^15 - 1 → 14).
    const NodeId big = 65535, small = 32766;
    Edges edges;
    for (NodeId i = 1; i <= big; ++i) edges.emplace_back(0, i);
    const NodeId centre2 = big + 1;
    for (NodeId i = 1; i <= small; ++i) edges.emplace_back(centre2, centre2 + i);
    const Matrix f = degree_features(build_graph(centre2 + small + 1, edges, {.undirected = true}));
    CHECK(f(0, kDegreeBuckets - 1) == 1.0f);
    CHECK(f(0, kDegreeBuckets) == 1.0f);
    CHECK(f(centre2, 14) == 1.0f);
    CHECK(f(centre2, kDegreeBuckets) == Approx(std::log1p(double(small)) / std::log1p(double(big))));
    CHECK(f(1, 1) == 1.0f);  // a leaf: d = 1
}

TEST_CASE("laplacian_pe on a path matches the closed-form spectrum", "[nn][positional]") {
    // P_n's normalised Laplacian has eigenvalues 1 - cos(pi j / (n - 1)), j = 0 .. n-1.
    const NodeId n = 12;
    const int k = 5;
    const Edges edges = path_edges(n);
    const Graph g = build_graph(n, edges, {.undirected = true});
    const LaplacianPe pe = laplacian_pe(g, {.k = k});
    check_laplacian_pe(n, edges, pe, k);
    for (int j = 0; j < k; ++j) CHECK(pe.eigenvalues(0, j) == Approx(1.0 - std::cos(M_PI * (j + 1) / (n - 1))).epsilon(1e-5));

    // k >= n: every non-zero eigenvalue, then zero columns.
    const LaplacianPe short_path = laplacian_pe(build_graph(4, path_edges(4), {.undirected = true}), {.k = 6});
    check_laplacian_pe(4, path_edges(4), short_path, 6);
    for (int j = 0; j < 3; ++j) CHECK(short_path.eigenvalues(2, j) == Approx(1.0 - std::cos(M_PI * (j + 1) / 3)).epsilon(1e-5));
}

TEST_CASE("laplacian_pe: sign convention, ties going to the lowest node", "[nn][positional]") {
    // On P_5 the eigenvectors are sqrt(d_i) cos(pi j i / 4), up to scale:
    //   j = 1: ( 1,  1,  0, -1, -1)/2  → four tied magnitudes, node 0 decides: positive
    //   j = 2: ( 1,  0, -√2, 0,  1)/2  → node 2 is largest: positive, so node 0 negative
    const LaplacianPe pe = laplacian_pe(build_graph(5, path_edges(5), {.undirected = true}), {.k = 2});
    CHECK(pe.vectors(0, 0) == Approx(0.5).epsilon(1e-5));
    CHECK(pe.vectors(4, 0) == Approx(-0.5).epsilon(1e-5));
    CHECK(pe.vectors(2, 1) == Approx(std::sqrt(0.5)).epsilon(1e-5));
    CHECK(pe.vectors(0, 1) == Approx(-0.5).epsilon(1e-5));
}

TEST_CASE("laplacian_pe: components are solved separately and padded", "[nn][positional]") {
    Rng rng(31);
    // Interleaved ids: a random 12-node component on the even ids 0..22, a 3-node path on
    // 1, 3, 5, an edge 9-11, and node 7 isolated (with a self-loop, which is ignored).
    std::vector<NodeId> evens;
    for (NodeId i = 0; i < 24; i += 2) evens.push_back(i);
    Edges edges;
    add_connected(evens, 0.3, rng, edges);
    edges.insert(edges.end(), {{1, 3}, {3, 5}, {9, 11}, {7, 7}});
    const NodeId n = 24;  // 13, 15, ... 23 are isolated too
    const int k = 4;
    const LaplacianPe pe = laplacian_pe(build_graph(n, edges, {.undirected = true}), {.k = k});
    check_laplacian_pe(n, edges, pe, k);
    CHECK(pe.vectors.row(7).isZero(0.0));
    CHECK(pe.eigenvalues.row(7).isZero(0.0));
    // The 3-node path: eigenvalues 1 and 2, then padding.
    CHECK(pe.eigenvalues(3, 0) == Approx(1.0));
    CHECK(pe.eigenvalues(3, 1) == Approx(2.0));
    CHECK(pe.eigenvalues(3, 2) == 0.0f);
    // The single edge: eigenvalue 2, vector (1, -1)/√2 with the lower node positive (a tie).
    CHECK(pe.eigenvalues(9, 0) == Approx(2.0));
    CHECK(pe.vectors(9, 0) == Approx(std::sqrt(0.5)));
    CHECK(pe.vectors(11, 0) == Approx(-std::sqrt(0.5)));
    CHECK(pe.vectors.block(9, 1, 1, k - 1).isZero(0.0));
}

TEST_CASE("laplacian_pe: eigenpairs on random graphs", "[nn][positional]") {
    Rng rng(32);
    for (int trial = 0; trial < 6; ++trial) {
        const NodeId n = 5 + static_cast<NodeId>(rng.below(40));
        Edges edges;
        for (NodeId u = 0; u < n; ++u)
            for (NodeId v = u + 1; v < n; ++v)
                if (rng.uniform() < 2.5 / n) edges.emplace_back(u, v);
        const int k = 1 + static_cast<int>(rng.below(6));
        INFO("trial " << trial << " n=" << n << " k=" << k);
        check_laplacian_pe(n, edges, laplacian_pe(build_graph(n, edges, {.undirected = true}), {.k = k}), k);
    }
}

TEST_CASE("laplacian_pe: the Spectra path agrees with the dense path", "[nn][positional]") {
    Rng rng(33);
    // A 300-node component and a 60-node one: with dense_max_nodes = 50 both go to Spectra
    // (both are above 2k + 2 nodes), then compare with the all-dense result.
    Edges edges;
    add_connected(range(0, 300), 4.0 / 300, rng, edges);
    add_connected(range(300, 60), 4.0 / 60, rng, edges);
    const NodeId n = 361;  // node 360 isolated
    const int k = 8;
    const Graph g = build_graph(n, edges, {.undirected = true});
    const LaplacianPe dense = laplacian_pe(g, {.k = k, .dense_max_nodes = 1500});
    const LaplacianPe sparse = laplacian_pe(g, {.k = k, .dense_max_nodes = 50});
    check_laplacian_pe(n, edges, sparse, k);
    CHECK((dense.eigenvalues - sparse.eigenvalues).cwiseAbs().maxCoeff() < kFloatTol);
    for (const auto& [first, count] : {std::pair<NodeId, NodeId>{0, 300}, {300, 60}}) {
        for (int j = 0; j < k; ++j) {
            const Vector a = dense.vectors.block(first, j, count, 1);
            const Vector b = sparse.vectors.block(first, j, count, 1);
            const float sign = a.dot(b) < 0 ? -1.0f : 1.0f;  // "up to sign"
            INFO("component at " << first << ", column " << j);
            CHECK((a - sign * b).cwiseAbs().maxCoeff() < 1e-4);
        }
    }
}

TEST_CASE("laplacian_pe: the Spectra path finds every copy of a repeated eigenvalue", "[nn][positional]") {
    // Four identical 30-node paths hanging off node 0 of a random graph: their antisymmetric
    // modes give small eigenvalues of multiplicity 3; on this graph the first Lanczos run misses
    // copies and two more runs are needed (checked by hand with a single-run build).
    Rng rng(37);
    Edges edges;
    add_connected(range(0, 500), 6.0 / 500, rng, edges);
    NodeId n = 500;
    for (int p = 0; p < 4; ++p) {
        NodeId previous = 0;
        for (int a = 0; a < 30; ++a, ++n) {
            edges.emplace_back(previous, n);
            previous = n;
        }
    }
    const int k = 8;
    const Graph g = build_graph(n, edges, {.undirected = true});
    const LaplacianPe dense = laplacian_pe(g, {.k = k, .dense_max_nodes = n});
    const LaplacianPe sparse = laplacian_pe(g, {.k = k, .dense_max_nodes = 0});
    check_laplacian_pe(n, edges, sparse, k);
    int repeated = 0;  // the fixture really has repeated eigenvalues among the k
    for (int j = 1; j < k; ++j) repeated += std::abs(dense.eigenvalues(0, j) - dense.eigenvalues(0, j - 1)) < 1e-6f;
    CHECK(repeated >= 2);
    for (int j = 0; j < k; ++j) CHECK(sparse.eigenvalues(0, j) == Approx(dense.eigenvalues(0, j)).epsilon(1e-5));
}

TEST_CASE("laplacian_pe and random_walk_pe: the same bits with 1 and 2 threads", "[nn][positional]") {
    Rng rng(34);
    Edges edges;
    add_connected(range(0, 200), 5.0 / 200, rng, edges);
    for (NodeId c = 0; c < 20; ++c) add_connected(range(200 + 7 * c, 7), 0.4, rng, edges);
    const Graph g = build_graph(400, edges, {.undirected = true});
    const int before = thread_count();
    set_thread_count(1);
    const LaplacianPe pe1 = laplacian_pe(g, {.k = 6, .dense_max_nodes = 100});
    const Matrix rw1 = random_walk_pe(g, 7);
    set_thread_count(2);
    const LaplacianPe pe2 = laplacian_pe(g, {.k = 6, .dense_max_nodes = 100});
    const Matrix rw2 = random_walk_pe(g, 7);
    set_thread_count(before);
    CHECK(pe1.vectors == pe2.vectors);
    CHECK(pe1.eigenvalues == pe2.eigenvalues);
    CHECK(rw1 == rw2);
}

TEST_CASE("random_sign_flip flips whole columns, deterministically per seed", "[nn][positional]") {
    Rng data(35);
    Matrix pe(10, 64);
    for (Eigen::Index a = 0; a < pe.size(); ++a) pe.data()[a] = static_cast<float>(data.uniform(-1, 1));
    Matrix first = pe, again = pe, other = pe;
    Rng rng1(7), rng2(7), rng3(8);
    random_sign_flip(first, rng1);
    random_sign_flip(again, rng2);
    random_sign_flip(other, rng3);
    CHECK(first == again);
    CHECK(first != other);
    int flipped = 0;
    for (Eigen::Index j = 0; j < pe.cols(); ++j) {
        const bool same = first.col(j) == pe.col(j);
        const bool negated = first.col(j) == -pe.col(j);
        REQUIRE(same != negated);
        flipped += negated;
    }
    // 64 fair coins: both outcomes appear (fails with probability 2^-63).
    CHECK(flipped > 0);
    CHECK(flipped < 64);
}

TEST_CASE("random_walk_pe equals the diagonal of dense powers of D^-1 A", "[nn][positional]") {
    Rng rng(36);
    for (int trial = 0; trial < 6; ++trial) {
        const NodeId n = 2 + static_cast<NodeId>(rng.below(30));
        const int k = 1 + static_cast<int>(rng.below(9));
        Edges edges;
        for (NodeId u = 0; u < n; ++u)
            for (NodeId v = 0; v < n; ++v)  // both directions, duplicates and self-loops: all ignored
                if (rng.uniform() < 2.0 / n) edges.emplace_back(u, v);
        const Graph g = build_graph(n, edges, {.undirected = true, .drop_duplicates = false});
        INFO("trial " << trial << " n=" << n << " k=" << k);
        const MatrixT<double> a = dense_adjacency(n, edges);
        MatrixT<double> p = a;
        for (NodeId i = 0; i < n; ++i)
            if (a.row(i).sum() > 0) p.row(i) /= a.row(i).sum();
        const Matrix rw = random_walk_pe(g, k);
        REQUIRE(rw.rows() == n);
        REQUIRE(rw.cols() == k);
        MatrixT<double> power = MatrixT<double>::Identity(n, n);
        for (int t = 1; t <= k; ++t) {
            power = power * p;
            for (NodeId i = 0; i < n; ++i) REQUIRE(rw(i, t - 1) == Approx(power(i, i)).margin(1e-6));
        }
    }
}

TEST_CASE("random_walk_pe: both propagation schemes equal dense powers", "[nn][positional]") {
    // A dense-ish 80-node component (walks cover it in two hops: blocked propagation), a 150-node
    // path (balls stay small: one source at a time), a small component and an isolated node.
    Rng rng(38);
    Edges edges;
    add_connected(range(0, 80), 0.1, rng, edges);
    const Edges path = path_edges(150);
    for (const auto& [u, v] : path) edges.emplace_back(80 + u, 80 + v);
    add_connected(range(230, 5), 0.5, rng, edges);
    const NodeId n = 236;
    const MatrixT<double> a = dense_adjacency(n, edges);
    MatrixT<double> p = a;
    for (NodeId i = 0; i < n; ++i)
        if (a.row(i).sum() > 0) p.row(i) /= a.row(i).sum();
    for (const int k : {3, 8, 9}) {
        INFO("k=" << k);
        const Matrix rw = random_walk_pe(build_graph(n, edges, {.undirected = true}), k);
        MatrixT<double> power = MatrixT<double>::Identity(n, n);
        for (int t = 1; t <= k; ++t) {
            power = power * p;
            for (NodeId i = 0; i < n; ++i) REQUIRE(rw(i, t - 1) == Approx(power(i, i)).margin(1e-6));
        }
        CHECK(rw.row(n - 1).isZero(0.0));
    }
}

TEST_CASE("random_walk_pe: regular vertex-transitive graphs have equal rows", "[nn][positional]") {
    // (Regularity alone is not enough: closed walks count triangles, which differ by node.)
    // The cycle C_10 and the 4-cube Q_4.
    Edges cycle;
    for (NodeId i = 0; i < 10; ++i) cycle.emplace_back(i, (i + 1) % 10);
    Edges cube;
    for (NodeId i = 0; i < 16; ++i)
        for (int bit = 0; bit < 4; ++bit) cube.emplace_back(i, i ^ (1 << bit));
    for (const auto& [n, edges] : {std::pair<NodeId, Edges>{10, cycle}, {16, cube}}) {
        const Matrix rw = random_walk_pe(build_graph(n, edges, {.undirected = true}), 8);
        for (NodeId i = 1; i < n; ++i) CHECK((rw.row(i) - rw.row(0)).cwiseAbs().maxCoeff() < 1e-6f);
        // Both are bipartite: no closed walk of odd length.
        for (int t = 1; t <= 8; t += 2) CHECK(rw(0, t - 1) == 0.0f);
    }
    // C_10 by hand: t = 2 → 1/2, t = 4 → 6/16.
    const Matrix rw = random_walk_pe(build_graph(10, cycle, {.undirected = true}), 4);
    CHECK(rw(3, 1) == Approx(0.5));
    CHECK(rw(3, 3) == Approx(6.0 / 16.0));
}

TEST_CASE("positional encodings: bad options and empty graphs", "[nn][positional]") {
    const Graph g = build_graph(3, {{0, 1}, {1, 2}}, {.undirected = true});
    CHECK_THROWS_AS(laplacian_pe(g, {.k = 0}), ConfigError);
    CHECK_THROWS_WITH(laplacian_pe(g, {.k = -2}), Catch::Contains("-2"));
    CHECK_THROWS_AS(laplacian_pe(g, {.k = 2, .dense_max_nodes = -1}), ConfigError);
    CHECK_THROWS_AS(random_walk_pe(g, 0), ConfigError);
    CHECK_THROWS_WITH(random_walk_pe(g, -1), Catch::Contains("k must be at least 1"));

    const Graph empty = build_graph(0, {});
    const LaplacianPe pe = laplacian_pe(empty, {.k = 3});
    CHECK(pe.vectors.rows() == 0);
    CHECK(pe.vectors.cols() == 3);
    CHECK(random_walk_pe(empty, 2).rows() == 0);
}
