// The inference-only passes: GatConv::infer, AttentionLayer::infer and Model::predict give the
// same bits as forward with training off followed by the activation, and keep nothing for
// backward (which then throws instead of computing from stale caches).
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/nn/activation.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

// Keeps one entry per row (a one-hot-like input, sparse enough for the models' sparse path).
template <class T>
MatrixT<T> one_per_row(const MatrixT<T>& x) {
    MatrixT<T> out = MatrixT<T>::Zero(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) out(i, i % x.cols()) = x(i, i % x.cols());
    return out;
}

template <class T>
void check_gat_infer(const GatConvOptions& o, Activation act) {
    Rng rng(17);
    const Graph graph = test::random_graph(23, 0.2, rng);
    GatConvT<T> layer(o, rng);
    const MatrixT<T> x = random_matrix<T>(graph.num_nodes(), o.in, rng);
    MatrixT<T> attr;
    if (o.edge_dim > 0) attr = random_matrix<T>(static_cast<Eigen::Index>(graph.num_edges()), o.edge_dim, rng);
    const MatrixT<T>* edge_attr = o.edge_dim > 0 ? &attr : nullptr;

    GatConvCache<T> forward_cache, infer_cache;
    const MatrixT<T> expected = activation_forward(act, layer.forward(graph, x, forward_cache, /*training=*/false, nullptr, edge_attr));
    const MatrixT<T> got = layer.infer(graph, x, infer_cache, act, edge_attr);
    CHECK(got == expected);
    CHECK(infer_cache.alpha == forward_cache.alpha);  // attention() reads these after either pass
    CHECK_THROWS_AS(layer.backward(got, infer_cache), ConfigError);

    // The sparse input: the same equality.
    const MatrixT<T> xs_dense = one_per_row(x);
    const SparseRowsT<T> xs = SparseRowsT<T>::from_dense(xs_dense);
    GatConvCache<T> forward_sparse, infer_sparse;
    const MatrixT<T> expected_sparse = activation_forward(act, layer.forward(graph, xs, forward_sparse, false, nullptr, edge_attr));
    CHECK(layer.infer(graph, xs, infer_sparse, act, edge_attr) == expected_sparse);

    // forward after infer on the same cache: backward works again.
    const MatrixT<T> again = layer.forward(graph, x, infer_cache, false, nullptr, edge_attr);
    CHECK_NOTHROW(layer.backward(MatrixT<T>::Ones(again.rows(), again.cols()), infer_cache));
}

Matrix forward_of(Model& model, const GraphBatchData& b) { return model.forward(b.batch, b.x, &b.edge_attr, false, nullptr, &b.u); }

}  // namespace

TEST_CASE("GatConv::infer equals forward then the activation bit for bit, and backward after it throws", "[nn][gat][inference]") {
    const Activation act = GENERATE(Activation::elu, Activation::relu, Activation::leaky_relu, Activation::none);
    const bool residual = GENERATE(false, true);
    const int edge_dim = GENERATE(0, 3);
    CAPTURE(to_string(act), residual, edge_dim);
    // 4 heads × 16: the float layer runs the vector row kernels where the build has them; the
    // double layer and 3 heads × 5 run the portable loops.
    check_gat_infer<float>({.in = 7, .out = 16, .heads = 4, .residual = residual, .edge_dim = edge_dim}, act);
    check_gat_infer<float>({.in = 7, .out = 5, .heads = 3, .concat = false, .residual = residual, .edge_dim = edge_dim}, act);
    check_gat_infer<double>({.in = 7, .out = 5, .heads = 3, .residual = residual, .edge_dim = edge_dim}, act);
}

TEST_CASE("add_row_and_activate equals adding the row then activation_forward, bit for bit", "[nn][activation][inference]") {
    const Activation act = GENERATE(Activation::elu, Activation::relu, Activation::leaky_relu, Activation::none);
    CAPTURE(to_string(act));
    Rng rng(3);
    const Matrix m = random_matrix<float>(37, 19, rng) * 4.0f;
    const Matrix row = random_matrix<float>(1, 19, rng);
    Matrix expected = m;
    add_row_to_rows(row, expected);
    expected = activation_forward(act, expected);
    Matrix got = m;
    add_row_and_activate(&row, act, got);
    CHECK(got == expected);
    Matrix no_row = m;
    add_row_and_activate<float>(nullptr, act, no_row);
    CHECK(no_row == activation_forward(act, m));
    const Matrix wrong = Matrix::Zero(1, 18);
    CHECK_THROWS_AS(add_row_and_activate(&wrong, act, got), ShapeError);
}

TEST_CASE("Model::predict equals forward with training off for every conv, block and mask, and backward after it throws",
          "[model][graph][inference]") {
    const std::string conv = GENERATE(std::string("gat"), std::string("gatv2"), std::string("transformer"));
    const std::string block = GENERATE(std::string("plain"), std::string("transformer"));
    const std::string mask = GENERATE(std::string("edges"), std::string("khop:2"), std::string("full"));
    const bool sparse = GENERATE(false, true);
    CAPTURE(conv, block, mask, sparse);
    GraphDataset data = test::random_graph_dataset(9, 5);
    Rng rng(8);
    for (auto& s : data.graphs) {
        s.edge_attr = random_matrix<float>(static_cast<Eigen::Index>(s.graph.num_edges()), 3, rng);
        if (sparse) {  // 12 columns, one value per row: below kSparseInputDensity, so gat's first layer reads it sparse
            Matrix wide = Matrix::Zero(s.x.rows(), 12);
            for (Eigen::Index i = 0; i < s.x.rows(); ++i) wide(i, (3 * i) % 12) = s.x(i, i % 4) + 1.0f;
            s.x = wide;
        }
    }
    GraphFitOptions fit = test::tiny_graph_fit();
    fit.edge_features = true;
    fit.model.conv = conv;
    fit.model.block = block;
    fit.model.mask = mask;
    fit.model.residual = true;
    Model model = make_graph_model(data, fit, 6);
    std::vector<std::size_t> all(data.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const GraphBatchData b = make_batch_data(data, all);
    if (sparse) CHECK(density(b.x) <= kSparseInputDensity);

    const Matrix expected = forward_of(model, b);
    const Matrix pooled = model.graph_embeddings(), nodes = model.node_embeddings(), alpha = model.attention(0);
    const Matrix got = model.predict(b.batch, b.x, &b.edge_attr, &b.u);
    CHECK(got == expected);
    CHECK(model.graph_embeddings() == pooled);
    CHECK(model.node_embeddings() == nodes);
    CHECK(model.attention(0) == alpha);
    CHECK_THROWS_AS(model.backward(Matrix::Ones(got.rows(), got.cols())), ConfigError);
    // A forward pass makes backward possible again.
    const Matrix y = forward_of(model, b);
    CHECK_NOTHROW(model.backward(Matrix::Ones(y.rows(), y.cols())));
}
