// Continuous node attributes (TU node_attributes): the model standardises the columns
// ModelInfo::node_feature_columns names with the training graphs' mean and standard deviation
// before the first layer. Dense reference, finite differences, the training set's statistics,
// model files and the command line.
#include "support/cli.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include "gatkit/gatkit.hpp"

#include "gatkit/io/tu.hpp"
#include "gatkit/model/model_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace gatkit;
using Catch::Matchers::Contains;
using gatkit::test::random_matrix;
using gatkit::test::run_gatkit;
using gatkit::test::TempDir;

namespace {

// random_graph_dataset's four columns, column 2 turned into a wide-ranging attribute (as
// PROTEINS's, whose values run from −538 to 798 around a median of 6).
GraphDataset attribute_dataset(int count) {
    GraphDataset data = gatkit::test::random_graph_dataset(count, 5);
    for (auto& g : data.graphs) g.x.col(2) = (g.x.col(2).array() * 40.0f + 30.0f).matrix();
    data.continuous_node_columns = {2};
    return data;
}

// A TU folder of eight path graphs whose one node attribute decides the label.
std::string write_tu_with_attributes(const TempDir& dir) {
    std::filesystem::create_directory(dir.path() / "ATTR");
    std::string a, indicator, labels, node_labels, attributes;
    int node = 1;
    for (int g = 1; g <= 8; ++g) {
        for (int k = 0; k < 3; ++k) {
            indicator += std::to_string(g) + "\n";
            node_labels += std::to_string(k % 2) + "\n";
            attributes += std::to_string(g % 2 ? 100 + 10 * g + k : -50 - 5 * g + k) + ".5\n";
        }
        for (const auto& [u, v] : std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {1, 2}, {2, 1}})
            a += std::to_string(node + u) + ", " + std::to_string(node + v) + "\n";
        node += 3;
        labels += (g % 2 ? "1\n" : "-1\n");
    }
    dir.write("ATTR/ATTR_A.txt", a);
    dir.write("ATTR/ATTR_graph_indicator.txt", indicator);
    dir.write("ATTR/ATTR_graph_labels.txt", labels);
    dir.write("ATTR/ATTR_node_labels.txt", node_labels);
    dir.write("ATTR/ATTR_node_attributes.txt", attributes);
    return (dir.path() / "ATTR").string();
}

}  // namespace

TEST_CASE("Node attribute columns are standardised and clipped before the first layer: dense reference and finite differences",
          "[model][node_attributes][gradcheck]") {
    const GraphDataset data = attribute_dataset(5);
    GraphFitOptions fit = gatkit::test::tiny_graph_fit();
    Model scaled = make_graph_model(data, fit, 9);
    Model plain = make_graph_model(data, fit, 9);  // the same weights, no scaling
    auto& info = scaled.info();
    info.node_feature_columns = {2, 0};
    info.node_feature_mean = {30.0, 0.25};
    info.node_feature_std = {40.0, 2.0};
    GraphDataset with_outlier = data;
    with_outlier.graphs[1].x(0, 2) = 1e5f;  // 2500 standard deviations: clipped to 6
    const GraphBatchData b = make_batch_data(with_outlier, {0, 1, 2, 3, 4});
    const Matrix out = scaled.forward(b.batch, b.x, nullptr, false);

    // Dense reference: the columns standardised by hand in double, clipped, through the model
    // without scaling.
    Matrix x = b.x;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        x(i, 2) = static_cast<float>(std::clamp((static_cast<double>(b.x(i, 2)) - 30.0) / 40.0, -6.0, 6.0));
        x(i, 0) = static_cast<float>(std::clamp((static_cast<double>(b.x(i, 0)) - 0.25) / 2.0, -6.0, 6.0));
    }
    CHECK(x(with_outlier.graphs[0].x.rows(), 2) == 6.0f);
    const Matrix expected = plain.forward(b.batch, x, nullptr, false);
    REQUIRE(out.rows() == 5);
    for (Eigen::Index i = 0; i < out.rows(); ++i) CHECK(out(i, 0) == Approx(expected(i, 0)).margin(1e-5));
    // The other columns are used as they are: changing column 1 changes the output exactly as
    // it changes the unscaled model's.
    Matrix x1 = b.x, r1 = x;
    x1(3, 1) += 0.7f;
    r1(3, 1) += 0.7f;
    CHECK((scaled.forward(b.batch, x1, nullptr, false) - plain.forward(b.batch, r1, nullptr, false)).norm() < 1e-5);
    CHECK((scaled.forward(b.batch, x1, nullptr, false) - out).norm() > 1e-6);

    // Sparse inputs (one-hot columns and an attribute, as TU data) take the stored-entries path
    // of the first layer: the same numbers as the dense reference.
    GraphDataset sparse = data;
    for (auto& g : sparse.graphs) {
        Matrix wide = Matrix::Zero(g.x.rows(), 40);
        for (Eigen::Index i = 0; i < g.x.rows(); ++i) {
            wide(i, 3 + (i % 30)) = 1.0f;
            wide(i, 2) = g.x(i, 2);
        }
        g.x = wide;
    }
    Model sparse_scaled = make_graph_model(sparse, fit, 4), sparse_plain = make_graph_model(sparse, fit, 4);
    sparse_scaled.info().node_feature_columns = {2};
    sparse_scaled.info().node_feature_mean = {30.0};
    sparse_scaled.info().node_feature_std = {40.0};
    const GraphBatchData s = make_batch_data(sparse, {0, 1, 2, 3, 4});
    REQUIRE(density(s.x) > 0.0);
    Matrix s_ref = s.x;
    s_ref.col(2) = ((s.x.col(2).array() - 30.0f) / 40.0f).matrix();
    REQUIRE(density(s_ref) <= kSparseInputDensity);
    CHECK((sparse_scaled.forward(s.batch, s.x, nullptr, false) - sparse_plain.forward(s.batch, s_ref, nullptr, false)).norm() < 1e-5);

    // Scaling that does not fit the input is refused, not guessed.
    Model broken = make_graph_model(data, fit, 9);
    broken.info().node_feature_columns = {2};
    CHECK_THROWS_WITH(broken.forward(b.batch, b.x, nullptr, false), Contains("no scaling yet"));
    broken.info().node_feature_columns = {7};
    broken.info().node_feature_mean = {0.0};
    broken.info().node_feature_std = {1.0};
    CHECK_THROWS_WITH(broken.forward(b.batch, b.x, nullptr, false), Contains("column 7"));

    // Finite differences (float, a few entries of every parameter; kinks skipped) of Σ out ⊙ w.
    Rng rng(12);
    const Matrix w = random_matrix<float>(out.rows(), out.cols(), rng);
    auto loss = [&] { return static_cast<double>((scaled.forward(b.batch, b.x, nullptr, false).array() * w.array()).cast<double>().sum()); };
    auto params = scaled.parameters();
    zero_grads(params);
    scaled.forward(b.batch, b.x, nullptr, false);
    scaled.backward(w);
    const auto n = gatkit::test::check_float_gradients(params, loss, 9);
    CHECK(n.checked > 30);
    CHECK(n.kinks * 10 <= n.checked);
}

TEST_CASE("Training standardises node attributes with the training graphs only, model files keep the scaling", "[train][node_attributes]") {
    TempDir dir;
    const GraphDataset data = load_tu(write_tu_with_attributes(dir));
    // x = node label one-hot (2 columns), the attribute, the degree one-hot
    REQUIRE(data.continuous_node_columns == std::vector<int>{2});
    GraphFitOptions fit = gatkit::test::tiny_graph_fit();
    fit.train.epochs = 3;
    Model model = make_graph_model(data, fit, 1);
    const IndexSplit split{.train = {0, 1, 2, 3, 5}, .val = {4, 6}, .test = {7}};
    train_graph_model(model, data, split, fit.train);
    const ModelInfo& info = model.info();
    REQUIRE(info.node_feature_columns == std::vector<int>{2});
    // Mean and sample standard deviation over every node of graphs 0, 1, 2, 3 and 5.
    std::vector<double> values;
    for (const std::size_t g : split.train)
        for (Eigen::Index i = 0; i < data.graphs[g].x.rows(); ++i) values.push_back(data.graphs[g].x(i, 2));
    double mean = 0, sq = 0;
    for (const double v : values) mean += v / static_cast<double>(values.size());
    for (const double v : values) sq += (v - mean) * (v - mean);
    REQUIRE(info.node_feature_mean.size() == 1);
    CHECK(info.node_feature_mean[0] == Approx(mean).epsilon(1e-9));
    CHECK(info.node_feature_std[0] == Approx(std::sqrt(sq / static_cast<double>(values.size() - 1))).epsilon(1e-9));
    // Graph 4 (validation) has other values: it does not enter the statistics.
    double with_val = mean * static_cast<double>(values.size());
    for (Eigen::Index i = 0; i < data.graphs[4].x.rows(); ++i) with_val += data.graphs[4].x(i, 2);
    CHECK(with_val / static_cast<double>(values.size() + 3) != Approx(info.node_feature_mean[0]).epsilon(1e-6));

    const std::string path = dir.file("m.gatkit");
    save_model(path, model);
    Model loaded = load_model(path);
    CHECK(loaded.info().node_feature_columns == info.node_feature_columns);
    CHECK(loaded.info().node_feature_mean == info.node_feature_mean);
    CHECK(loaded.info().node_feature_std == info.node_feature_std);
    const GraphBatchData b = make_batch_data(data, {0, 4, 7});
    CHECK((loaded.forward(b.batch, b.x, &b.edge_attr, false) - model.forward(b.batch, b.x, &b.edge_attr, false)).norm() == 0.0f);

    // Files whose scaling does not fit are refused with the reason.
    Model bad = load_model(path);
    bad.info().node_feature_std = {0.0};
    save_model(dir.file("bad.gatkit"), bad);
    CHECK_THROWS_WITH(load_model(dir.file("bad.gatkit")), Contains("standard deviation 0"));
    bad.info().node_feature_std = {1.0};
    bad.info().node_feature_columns = {99};
    save_model(dir.file("bad.gatkit"), bad);
    CHECK_THROWS_WITH(load_model(dir.file("bad.gatkit")), Contains("column 99 is outside"));
    bad.info().node_feature_columns = {2};
    bad.info().node_feature_mean.clear();
    save_model(dir.file("bad.gatkit"), bad);
    CHECK_THROWS_WITH(load_model(dir.file("bad.gatkit")), Contains("0 means"));

    // Data without continuous columns (molecules, TU sets without attributes) keeps x as it is.
    GraphDataset no_attr = data;
    no_attr.continuous_node_columns.clear();
    Model m2 = make_graph_model(no_attr, fit, 1);
    train_graph_model(m2, no_attr, split, fit.train);
    CHECK(m2.info().node_feature_columns.empty());
    CHECK(m2.info().node_feature_mean.empty());
}

TEST_CASE("gatkit train on TU data with node attributes: the model file and info name the standardised columns", "[cli][node_attributes]") {
    TempDir dir;
    const std::string tu = write_tu_with_attributes(dir);
    const std::string model = dir.file("m.gatkit");
    const auto r = run_gatkit("train --task graph --data " + tu + " --epochs 2 --layers 1 --heads 2 --hidden 4 --mlp-hidden 8 --threads 1 --quiet --out " +
                              model);
    REQUIRE(r.exit_code == 0);
    const auto info = run_gatkit("info --model " + model);
    CHECK_THAT(info.out, Contains("1 continuous node attribute columns standardised"));
    const Model m = load_model(model);
    CHECK(m.info().node_feature_columns == std::vector<int>{2});
    REQUIRE(m.info().node_feature_std.size() == 1);
    CHECK(m.info().node_feature_std[0] > 10.0);
}

TEST_CASE("TU models keep their column layout: other folders read with it, model files with another refused", "[model][node_attributes][tu]") {
    TempDir dir;
    const std::string folder = write_tu_with_attributes(dir);
    const GraphDataset data = load_tu(folder);
    // node labels 0..1 (2 columns), one attribute, no edge labels or attributes
    REQUIRE(data.tu_layout == std::vector<int>{2, 1, 0, 0});

    // The model's widths, not the folder's: wider node labels give zero columns, and the
    // attribute column moves with them.
    const GraphDataset wide = load_tu(folder, {.layout = {4, 1, 0, 0}});
    CHECK(wide.tu_layout == std::vector<int>{4, 1, 0, 0});
    REQUIRE(wide.continuous_node_columns == std::vector<int>{4});
    for (std::size_t g = 0; g < data.size(); ++g) {
        const Matrix& x = data.graphs[g].x;
        const Matrix& w = wide.graphs[g].x;
        REQUIRE(w.cols() == x.cols() + 2);
        CHECK(w.leftCols(2) == x.leftCols(2));
        CHECK(w.middleCols(2, 2).isZero());
        CHECK(w.rightCols(x.cols() - 2) == x.rightCols(x.cols() - 2));
    }
    CHECK_THROWS_WITH(load_tu(folder, {.layout = {1, 1, 0, 0}}), Contains("ATTR_node_labels.txt:2: label '1' is not one the model knows"));
    CHECK_THROWS_WITH(load_tu(folder, {.layout = {2, 2, 0, 0}}), Contains("1 node attributes per line, the model was trained with 2"));
    CHECK_THROWS_WITH(load_tu(folder, {.layout = {2, 1, 3, 0}}), Contains("the model was trained with edge labels"));
    CHECK_THROWS_WITH(load_tu(folder, {.layout = {2, 1}}), Contains("four counts"));
    // Classes by value; without the labels file (require_graph_labels off) the targets are NaN.
    const GraphDataset swapped = load_tu(folder, {.class_names = {"1", "-1"}});
    CHECK(swapped.class_names == std::vector<std::string>{"1", "-1"});
    CHECK(swapped.targets(0, 0) == 1.0f - data.targets(0, 0));
    CHECK_THROWS_WITH(load_tu(folder, {.class_names = {"1", "2"}}), Contains("ATTR_graph_labels.txt:2: graph label '-1' is not one of the model's classes (1, 2)"));
    std::filesystem::remove(folder + "/ATTR_graph_labels.txt");
    CHECK_THROWS_WITH(load_tu(folder), Contains("ATTR_graph_labels.txt"));
    const GraphDataset unlabelled = load_tu(folder, {.require_graph_labels = false});
    REQUIRE(unlabelled.size() == 8);
    CHECK(std::isnan(unlabelled.targets(3, 0)));
    CHECK(unlabelled.graphs[3].x == data.graphs[3].x);

    // The model keeps the layout; a file whose layout does not give its widths is refused.
    GraphFitOptions fit = gatkit::test::tiny_graph_fit();
    Model model = make_graph_model(data, fit, 1);
    CHECK(model.info().tu_layout == data.tu_layout);
    const std::string path = dir.file("m.gatkit");
    save_model(path, model);
    CHECK(load_model(path).info().tu_layout == data.tu_layout);
    Model bad = load_model(path);
    bad.info().tu_layout = {3, 1, 0, 0};
    save_model(dir.file("bad.gatkit"), bad);
    CHECK_THROWS_WITH(load_model(dir.file("bad.gatkit")), Contains("TU feature layout gives 15 input columns, the model has 14"));
    bad.info().tu_layout = {2, 1, 0};
    save_model(dir.file("bad.gatkit"), bad);
    CHECK_THROWS_WITH(load_model(dir.file("bad.gatkit")), Contains("not four counts"));
    bad.info().tu_layout = {2, 1, 0, 0};
    bad.info().featurizer = "gatkit-atom-bond-v1";
    save_model(dir.file("bad.gatkit"), bad);
    CHECK_THROWS_WITH(load_model(dir.file("bad.gatkit")), Contains("TU feature layout in a model whose featurizer"));
}
