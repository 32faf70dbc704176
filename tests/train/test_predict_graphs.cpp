// predict_graphs (train/graph_trainer.hpp) runs whole batches on separate threads, each on its own
// copy of the model (Model's copy constructor): the copy computes what the original does and
// owns its parameters; the predictions are each batch's own forward pass, the same bits for 1
// and 2 threads; a failing batch's error reaches the caller.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace gatkit;

namespace {

// Graphs with 3 random edge features each, for models that score edges.
GraphDataset dataset_with_edge_features(int count) {
    GraphDataset data = test::random_graph_dataset(count, 5);
    Rng rng(8);
    for (auto& s : data.graphs) s.edge_attr = test::random_matrix<float>(static_cast<Eigen::Index>(s.graph.num_edges()), 3, rng);
    return data;
}

Matrix forward_of(Model& model, const GraphDataset& data, const std::vector<std::size_t>& graphs) {
    const GraphBatchData b = make_batch_data(data, graphs);
    return model.forward(b.batch, b.x, &b.edge_attr, /*training=*/false, nullptr, &b.u);
}

}  // namespace

TEST_CASE("A copy of a model computes what the original does and owns its parameters", "[model][graph]") {
    const std::string block = GENERATE(std::string("plain"), std::string("transformer"));
    CAPTURE(block);
    const GraphDataset data = dataset_with_edge_features(12);
    GraphFitOptions fit = test::tiny_graph_fit();
    fit.edge_features = true;
    fit.model.block = block;
    Model original = make_graph_model(data, fit, 3);
    const std::vector<std::size_t> graphs = test::first_graphs(data.size());
    const Matrix before = forward_of(original, data, graphs);

    Model copy(original);
    CHECK(copy.parameter_count() == original.parameter_count());
    CHECK(forward_of(copy, data, graphs) == before);
    // The copy's first attention matrix is its own: the original's still holds its own pass.
    CHECK(copy.attention(0) == original.attention(0));

    // Changing the copy's weights leaves the original's alone.
    for (Parameter* p : copy.parameters()) p->value.array() += 0.5f;
    const Matrix after_copy_changed = forward_of(copy, data, graphs);
    CHECK(after_copy_changed != before);
    CHECK(forward_of(original, data, graphs) == before);
}

TEST_CASE("predict_graphs gives each batch's own forward pass, the same bits for 1 and 2 threads", "[train][graph][threads]") {
    const GraphDataset data = dataset_with_edge_features(29);
    GraphFitOptions fit = test::tiny_graph_fit();
    fit.edge_features = true;
    Model model = make_graph_model(data, fit, 4);
    // Out of order, with a repeat, in batches of 4: eight batches, the last one short.
    const std::vector<std::size_t> chosen = {7, 3, 28, 0, 12, 12, 25, 1, 20, 18, 2, 23, 9, 21, 5, 16, 27, 11, 4, 6, 8, 10, 13, 14, 15, 17, 19, 22, 24};
    const int batch = 4;

    // The reference: one batch after another, each its own forward pass, turned into probabilities.
    Matrix expected(static_cast<Eigen::Index>(chosen.size()), 1);
    for (std::size_t start = 0; start < chosen.size(); start += batch) {
        const std::vector<std::size_t> part(chosen.begin() + static_cast<std::ptrdiff_t>(start),
                                            chosen.begin() + static_cast<std::ptrdiff_t>(std::min(chosen.size(), start + batch)));
        const Matrix y = output_values("binary", model.info(), forward_of(model, data, part));
        expected.middleRows(static_cast<Eigen::Index>(start), y.rows()) = y;
    }
    for (const int threads : {1, 2}) {
        CAPTURE(threads);
        const ThreadScope scope(threads);
        const Matrix p = predict_graphs(model, data, chosen, batch);
        REQUIRE(p.rows() == static_cast<Eigen::Index>(chosen.size()));
        CHECK(p == expected);
    }
    // One batch holding everything: the same predictions up to float rounding.
    const Matrix whole = predict_graphs(model, data, chosen, 64);
    CHECK(whole.isApprox(expected, 1e-5f));
    CHECK_THROWS_AS(predict_graphs(model, data, chosen, 0), ConfigError);
}

TEST_CASE("predict_graphs hands a failing batch's error to the caller, with 2 threads too", "[train][graph][threads]") {
    GraphDataset data = dataset_with_edge_features(10);
    GraphFitOptions fit = test::tiny_graph_fit();
    fit.edge_features = true;
    Model model = make_graph_model(data, fit, 4);
    // Edge features one column short in every graph: every batch's first layer refuses them.
    for (auto& s : data.graphs) s.edge_attr.conservativeResize(Eigen::NoChange, 2);
    for (const int threads : {1, 2}) {
        CAPTURE(threads);
        const ThreadScope scope(threads);
        CHECK_THROWS_AS(predict_graphs(model, data, test::first_graphs(data.size()), 3), ShapeError);
    }
}
