// Sparse inputs (core/sparse.hpp): the CSR/CSC structure, its products against dense ones, the
// dropout mask shared with the dense path, and Model on sparse features against the same
// features dense. The layers on sparse inputs: test_sparse_attention.cpp.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/graph/batch.hpp"
#include "gatkit/io/dataset.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/nn/dropout.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace gatkit;
using gatkit::test::gradients;
using gatkit::test::random_matrix;

namespace {

// Two small graphs in one batch with 30 node features each, one-hot (one 1 per row) or dense
// random, and 3 random bond features.
struct TwoGraphBatch {
    GraphSample a, b;
    GraphBatch batch;
    Matrix x, attr;  // the batch's features: a's rows, then b's
};

TwoGraphBatch two_graph_batch(Rng& rng, bool one_hot) {
    TwoGraphBatch t;
    t.a.graph = test::random_graph(9, 0.3, rng);
    t.b.graph = test::random_graph(7, 0.35, rng);
    for (GraphSample* s : {&t.a, &t.b}) {
        if (one_hot) {
            s->x = Matrix::Zero(s->graph.num_nodes(), 30);
            for (Eigen::Index i = 0; i < s->x.rows(); ++i) s->x(i, static_cast<Eigen::Index>(rng.next_u64() % 30)) = 1;
        } else {
            s->x = random_matrix<float>(s->graph.num_nodes(), 30, rng);
        }
        s->edge_attr = random_matrix<float>(s->graph.num_edges(), 3, rng);
    }
    t.batch = make_batch({&t.a.graph, &t.b.graph});
    t.x.resize(16, 30);
    t.attr.resize(t.a.edge_attr.rows() + t.b.edge_attr.rows(), 3);
    t.x << t.a.x, t.b.x;
    t.attr << t.a.edge_attr, t.b.edge_attr;
    return t;
}

// A 2-layer, 2-head binary graph model over those 30 features and 3 bond features.
ModelConfig two_layer_graph_config(Eigen::Index hidden) {
    ModelConfig config;
    config.task = "graph";
    config.in_features = 30;
    config.num_classes = 2;
    config.target_type = "binary";
    config.layers = 2;
    config.heads = 2;
    config.hidden = hidden;
    config.edge_dim = 3;
    return config;
}

}  // namespace

TEST_CASE("SparseRows stores exactly the non-zeros, by rows and by columns", "[core][sparse]") {
    Rng rng(3);
    const MatrixT<float> dense = test::mostly_zero_matrix<float>(17, 23, 0.15, rng);
    const SparseRows s = SparseRows::from_dense(dense);
    CHECK(s.rows == 17);
    CHECK(s.cols == 23);
    CHECK(s.nnz() == (dense.array() != 0.0f).count());
    CHECK(s.nnz() > 20);
    CHECK(s.density() == Approx(density(dense)));
    CHECK((s.to_dense().array() == dense.array()).all());
    // The column index lists every entry once, rows increasing within a column.
    std::vector<int> seen(static_cast<std::size_t>(s.nnz()), 0);
    for (Eigen::Index f = 0; f < s.cols; ++f)
        for (EdgeId c = s.col_offsets[f]; c < s.col_offsets[f + 1]; ++c) {
            const EdgeId k = s.col_entry[c];
            ++seen[static_cast<std::size_t>(k)];
            CHECK(s.col[k] == f);
            CHECK(dense(s.entry_row[k], f) == s.value[k]);
            if (c > s.col_offsets[f]) CHECK(s.entry_row[s.col_entry[c - 1]] < s.entry_row[k]);
        }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    const SparseRows empty = SparseRows::from_dense(MatrixT<float>::Zero(4, 5));
    CHECK(empty.nnz() == 0);
    CHECK(empty.density() == 0.0);

    // Rows only (inference): the same rows, no column index, the same density as the dense scan.
    const SparseRows rows_only = SparseRows::from_dense(dense, /*with_columns=*/false);
    CHECK(rows_only.row_offsets == s.row_offsets);
    CHECK(rows_only.col == s.col);
    CHECK(rows_only.value == s.value);
    CHECK(rows_only.col_offsets.empty());
    CHECK(rows_only.col_entry.empty());
    CHECK(rows_only.entry_row.empty());
    CHECK(rows_only.density() == density(dense));
    MatrixT<float> y_rows, y_full;
    const MatrixT<float> w = random_matrix<float>(23, 6, rng);
    sparse_times_dense(rows_only, rows_only.value, w, y_rows);
    sparse_times_dense(s, s.value, w, y_full);
    CHECK(y_rows == y_full);
}

TEST_CASE("sparse products equal the dense products, dropout masks equal the dense mask", "[core][sparse]") {
    Rng rng(4);
    const MatrixT<double> x = test::mostly_zero_matrix<double>(40, 30, 0.1, rng);
    const SparseRowsT<double> s = SparseRowsT<double>::from_dense(x);
    const MatrixT<double> w = random_matrix<double>(30, 7, rng), dy = random_matrix<double>(40, 7, rng);
    MatrixT<double> y;
    sparse_times_dense(s, s.value, w, y);
    CHECK((y - x * w).cwiseAbs().maxCoeff() < 1e-12);
    sparse_times_dense(s, s.value, w, y, /*accumulate=*/true);
    CHECK((y - 2 * x * w).cwiseAbs().maxCoeff() < 1e-12);
    MatrixT<double> g = MatrixT<double>::Ones(30, 7);
    sparse_transpose_times_dense_add(s, s.value, dy, g);
    CHECK((g - (MatrixT<double>::Ones(30, 7) + x.transpose() * dy)).cwiseAbs().maxCoeff() < 1e-12);

    MatrixT<double> masked = x;
    apply_dropout_mask(masked, /*key=*/77, 0.4);
    const std::vector<double> dropped = dropped_values(s, 77, 0.4);
    SparseRowsT<double> ds = s;
    ds.value = dropped;
    CHECK((ds.to_dense().array() == masked.array()).all());
    CHECK(std::count(dropped.begin(), dropped.end(), 0.0) > 0);

    MatrixT<double> bad(29, 7);
    CHECK_THROWS_AS(sparse_times_dense(s, s.value, bad, y), ShapeError);
    CHECK_THROWS_AS(sparse_transpose_times_dense_add(s, s.value, bad, g), ShapeError);
}

TEMPLATE_TEST_CASE("drop_entries keeps the kept entries of the dense mask, and its products have the bits of the zero-filled ones",
                   "[core][sparse][dropout]", float, double) {
    using T = TestType;
    Rng rng(21);
    const MatrixT<T> x = test::mostly_zero_matrix<T>(60, 45, 0.2, rng);
    const SparseRowsT<T> s = SparseRowsT<T>::from_dense(x);
    SparseRowsT<T> kept;
    for (const double p : {0.0, 0.3, 0.6, 0.95}) {
        CAPTURE(p);
        const std::uint64_t key = rng.next_u64();
        drop_entries(s, key, p, kept);  // reused from the previous p: the buffers must be resized
        MatrixT<T> masked = x;
        if (p > 0.0) apply_dropout_mask(masked, key, p);
        CHECK(kept.rows == s.rows);
        CHECK(kept.cols == s.cols);
        CHECK((kept.to_dense().array() == masked.array()).all());
        CHECK(kept.nnz() == static_cast<EdgeId>((masked.array() != T(0)).count()));
        if (p >= 0.3) CHECK(kept.nnz() < s.nnz());
        // The column index: every kept entry once, rows increasing within a column.
        REQUIRE(kept.col_offsets.size() == static_cast<std::size_t>(s.cols) + 1);
        REQUIRE(kept.col_offsets.back() == kept.nnz());
        std::vector<int> seen(static_cast<std::size_t>(kept.nnz()), 0);
        for (Eigen::Index f = 0; f < kept.cols; ++f)
            for (EdgeId c = kept.col_offsets[f]; c < kept.col_offsets[f + 1]; ++c) {
                const EdgeId k = kept.col_entry[c];
                ++seen[static_cast<std::size_t>(k)];
                CHECK(kept.col[k] == f);
                CHECK(masked(kept.entry_row[k], f) == kept.value[k]);
                if (c > kept.col_offsets[f]) CHECK(kept.entry_row[kept.col_entry[c - 1]] < kept.entry_row[k]);
            }
        CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
        // Products over the kept entries against those over all entries with the dropped ones 0.
        const std::vector<T> zero_filled = dropped_values(s, key, p);
        const MatrixT<T> w = random_matrix<T>(45, 19, rng), dy = random_matrix<T>(60, 19, rng);
        MatrixT<T> y_kept, y_all, g_kept = MatrixT<T>::Zero(45, 19), g_all = MatrixT<T>::Zero(45, 19);
        sparse_times_dense(kept, kept.value, w, y_kept);
        sparse_times_dense(s, zero_filled, w, y_all);
        sparse_transpose_times_dense_add(kept, kept.value, dy, g_kept);
        sparse_transpose_times_dense_add(s, zero_filled, dy, g_all);
        CHECK(std::memcmp(y_kept.data(), y_all.data(), sizeof(T) * static_cast<std::size_t>(y_all.size())) == 0);
        CHECK(std::memcmp(g_kept.data(), g_all.data(), sizeof(T) * static_cast<std::size_t>(g_all.size())) == 0);
    }
    const SparseRowsT<T> rows_only = SparseRowsT<T>::from_dense(x, /*with_columns=*/false);
    CHECK_THROWS_AS(drop_entries(rows_only, 1, 0.5, kept), ShapeError);
}

TEMPLATE_TEST_CASE("sparse products of every output width equal the dense products, the same with 1 and 2 threads",
                   "[core][sparse][threads]", float, double) {
    // Output widths around the register blocks of core/row_sums.hpp (64 bytes: 16 floats or 8
    // doubles; four at a time, then one at a time, then the rest in memory).
    using T = TestType;
    const int saved = thread_count();
    const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
    Rng rng(9);
    const MatrixT<T> x = test::mostly_zero_matrix<T>(150, 40, 0.15, rng);
    const SparseRowsT<T> s = SparseRowsT<T>::from_dense(x);
    for (const Eigen::Index O : {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129}) {
        CAPTURE(O);
        const MatrixT<T> w = random_matrix<T>(40, O, rng), dy = random_matrix<T>(150, O, rng);
        const MatrixT<T> start = random_matrix<T>(150, O, rng), gstart = random_matrix<T>(40, O, rng);
        MatrixT<T> y[2], acc[2], g[2];
        for (int t = 1; t <= 2; ++t) {
            set_thread_count(t);
            sparse_times_dense(s, s.value, w, y[t - 1]);
            acc[t - 1] = start;
            sparse_times_dense(s, s.value, w, acc[t - 1], /*accumulate=*/true);
            g[t - 1] = gstart;
            sparse_transpose_times_dense_add(s, s.value, dy, g[t - 1]);
        }
        CHECK((y[0] - x * w).cwiseAbs().maxCoeff() < tol);
        CHECK((acc[0] - (start + x * w)).cwiseAbs().maxCoeff() < tol);
        CHECK((g[0] - (gstart + x.transpose() * dy)).cwiseAbs().maxCoeff() < tol);
        CHECK((y[0].array() == y[1].array()).all());
        CHECK((acc[0].array() == acc[1].array()).all());
        CHECK((g[0].array() == g[1].array()).all());
    }
    set_thread_count(saved);
}

TEST_CASE("Model on sparse features equals the model on the same features dense, for every conv", "[model][sparse]") {
    Rng rng(10);
    const Graph g = test::random_graph(40, 0.1, rng);
    const Matrix x = test::mostly_zero_matrix<float>(40, 60, 0.05, rng);
    const SparseRows xs = SparseRows::from_dense(x);
    const std::vector<int> labels(40, 1);
    for (const std::string conv : {"gat", "gatv2", "transformer"})
        for (const int layers : {1, 2}) {
            CAPTURE(conv, layers);
            ModelConfig config;
            config.task = "node";
            config.conv = conv;
            config.in_features = 60;
            config.num_classes = 3;
            config.layers = layers;
            config.hidden = 4;
            config.heads = 2;
            Model model(config, 3);
            const auto run = [&](bool sparse) {
                auto params = model.parameters();
                for (auto* p : params) p->grad.setZero();
                Rng drop(12);
                Matrix out = sparse ? model.forward(g, xs, true, &drop) : model.forward(g, x, true, &drop);
                Matrix embeddings = model.node_embeddings();
                model.backward(Matrix::Ones(out.rows(), out.cols()));
                return std::make_tuple(out, embeddings, gradients(params));
            };
            const auto [out_d, emb_d, grads_d] = run(false);
            const auto [out_s, emb_s, grads_s] = run(true);
            CHECK((out_d - out_s).cwiseAbs().maxCoeff() < 1e-5f);
            CHECK((emb_d - emb_s).cwiseAbs().maxCoeff() < 1e-5f);
            for (std::size_t k = 0; k < grads_d.size(); ++k) CHECK((grads_d[k] - grads_s[k]).cwiseAbs().maxCoeff() < 1e-4f);
        }
}

TEST_CASE("Graph task: one-hot batch features through the sparse first layer give the dense numbers", "[model][sparse]") {
    Rng rng(13);
    // Two small graphs in one batch; one-hot features (one 1 in 30 columns), bond features.
    const TwoGraphBatch t = two_graph_batch(rng, /*one_hot=*/true);
    const GraphBatch& batch = t.batch;
    const Matrix &x = t.x, &attr = t.attr;
    ModelConfig config = two_layer_graph_config(4);
    config.dropout = 0.3;
    Model model(config, 5);
    REQUIRE(model.takes_sparse_input());
    const auto run = [&](bool sparse) {
        model.set_sparse_input(sparse);
        auto params = model.parameters();
        for (auto* p : params) p->grad.setZero();
        Rng drop(4);
        Matrix out = model.forward(batch, x, &attr, /*training=*/true, &drop);
        model.backward(Matrix::Ones(out.rows(), out.cols()));
        return std::make_pair(out, gradients(params));
    };
    const auto [out_d, grads_d] = run(false);
    const auto [out_s, grads_s] = run(true);
    CHECK((out_d - out_s).cwiseAbs().maxCoeff() < 1e-5f);
    for (std::size_t k = 0; k < grads_d.size(); ++k) CHECK((grads_d[k] - grads_s[k]).cwiseAbs().maxCoeff() < 1e-4f);
    model.set_sparse_input(false);
    CHECK_FALSE(model.takes_sparse_input());
}

TEST_CASE("SparseRows from stacked dense blocks equals from_dense of the stacked matrix, entry for entry", "[core][sparse]") {
    Rng rng(21);
    // Widths around the 16-lane blocks of the vector scan; values include -0, +0, NaN and
    // infinities (stored unless exactly zero, as v != 0 decides).
    for (const Eigen::Index F : {Eigen::Index{1}, Eigen::Index{15}, Eigen::Index{16}, Eigen::Index{17}, Eigen::Index{33}, Eigen::Index{173}}) {
        CAPTURE(F);
        std::vector<Matrix> blocks;
        for (const Eigen::Index rows : {Eigen::Index{3}, Eigen::Index{0}, Eigen::Index{1}, Eigen::Index{7}}) {
            Matrix m = test::mostly_zero_matrix<float>(std::max<Eigen::Index>(rows, 1), F, 0.2, rng).topRows(rows);
            if (rows >= 3) {
                m(0, 0) = -0.0f;
                m(1, F - 1) = std::numeric_limits<float>::quiet_NaN();
                m(2, F / 2) = -std::numeric_limits<float>::infinity();
            }
            blocks.push_back(m);
        }
        Matrix stacked(3 + 0 + 1 + 7, F);
        stacked << blocks[0], blocks[2], blocks[3];
        std::vector<const Matrix*> ptrs;
        for (const Matrix& m : blocks) ptrs.push_back(&m);

        // The reference: a plain scan of the stacked matrix.
        std::vector<EdgeId> offsets{0};
        std::vector<std::int32_t> cols;
        std::vector<float> values;
        for (Eigen::Index i = 0; i < stacked.rows(); ++i) {
            for (Eigen::Index f = 0; f < F; ++f)
                if (stacked(i, f) != 0.0f) {
                    cols.push_back(static_cast<std::int32_t>(f));
                    values.push_back(stacked(i, f));
                }
            offsets.push_back(static_cast<EdgeId>(cols.size()));
        }
        const auto same_values = [&](const std::vector<float>& v) {
            REQUIRE(v.size() == values.size());
            for (std::size_t k = 0; k < v.size(); ++k) {
                if (std::isnan(values[k])) {
                    CHECK(std::isnan(v[k]));
                } else {
                    CHECK(v[k] == values[k]);
                }
            }
        };
        for (const int threads : {1, 2}) {
            CAPTURE(threads);
            const ThreadScope scope(threads);
            const SparseRows from_blocks = SparseRows::from_dense_blocks(ptrs, F);
            const SparseRows from_stacked = SparseRows::from_dense(stacked, /*with_columns=*/false);
            for (const SparseRows* s : {&from_blocks, &from_stacked}) {
                CHECK(s->rows == stacked.rows());
                CHECK(s->cols == F);
                CHECK(s->row_offsets == offsets);
                CHECK(s->col == cols);
                same_values(s->value);
                CHECK(s->col_offsets.empty());
            }
        }
    }
    // No blocks: an empty matrix of the given width; a block of another width: a ShapeError.
    const SparseRows none = SparseRows::from_dense_blocks({}, 5);
    CHECK(none.rows == 0);
    CHECK(none.cols == 5);
    CHECK(none.row_offsets == std::vector<EdgeId>{0});
    const Matrix narrow = Matrix::Ones(2, 4), wide = Matrix::Ones(2, 5);
    CHECK_THROWS_AS(SparseRows::from_dense_blocks({&wide, &narrow}, 5), ShapeError);
}

TEST_CASE("Model::predict on sparse rows equals predict on the same features dense, bit for bit", "[model][sparse][inference]") {
    Rng rng(17);
    // One-hot features (sparse path) and, second, dense random ones (densified), with and
    // without residual projections.
    for (const bool one_hot : {true, false})
        for (const bool residual : {true, false}) {
            CAPTURE(one_hot, residual);
            const TwoGraphBatch t = two_graph_batch(rng, one_hot);
            const GraphBatch& batch = t.batch;
            const Matrix &x = t.x, &attr = t.attr;
            const Matrix &xa = t.a.x, &xb = t.b.x;
            ModelConfig config = two_layer_graph_config(16);
            config.residual = residual;
            Model model(config, 5);
            REQUIRE(model.takes_sparse_input());
            const Matrix dense = model.predict(batch, x, &attr);
            const Matrix dense_nodes = model.node_embeddings();
            const Matrix sparse = model.predict(batch, SparseRows::from_dense_blocks({&xa, &xb}, 30), &attr);
            CHECK(sparse == dense);
            CHECK(model.node_embeddings() == dense_nodes);
            CHECK_THROWS_AS(model.backward(Matrix::Ones(sparse.rows(), sparse.cols())), ConfigError);
            // A model with the sparse input switched off takes the same rows densified.
            model.set_sparse_input(false);
            const Matrix dense_off = model.predict(batch, x, &attr);
            CHECK(model.predict(batch, SparseRows::from_dense_blocks({&xa, &xb}, 30), &attr) == dense_off);
        }
}
