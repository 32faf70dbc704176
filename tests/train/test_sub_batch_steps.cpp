// Training steps in sub-batches (train/graph_trainer.hpp: sub_batch_bounds, SubBatchSteps): the
// cut depends on the graphs only and balances their nodes; a step's outputs and gradients equal
// those of the whole batch in one forward and backward (the dense reference of the step) up to
// the order of float sums; the same bits with 1 and 2 threads, with dropout too; the replicas
// follow the model's weights after a step; an error inside a sub-batch reaches the caller.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"
#include "gatkit/train/loss.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace gatkit;
using gatkit::test::first_graphs;

namespace {

std::vector<Matrix> grads_of(Model& model) {
    std::vector<Matrix> out;
    for (const Parameter* p : model.parameters()) out.push_back(p->grad);
    return out;
}

struct Step {
    Matrix out;
    std::vector<Matrix> grads;
    std::uint64_t rng_after = 0;
};

// One step through SubBatchSteps on a copy of `model`, with `threads` threads.
Step sub_batch_step(const Model& model, const GraphDataset& data, const std::vector<std::size_t>& chunk, const GraphTrainOptions& o,
                    int threads, std::uint64_t seed) {
    ThreadScope scope(threads);
    Model m(model);
    auto params = m.parameters();
    zero_grads(params);
    SubBatchSteps steps(m, params, data, o);
    Rng rng(seed);
    Step s;
    s.out = steps.forward(chunk, rng);
    const Matrix targets = data.targets.topRows(static_cast<Eigen::Index>(chunk.size()));
    steps.backward(bce_with_logits(s.out, targets).dlogits);
    s.grads = grads_of(m);
    s.rng_after = rng.state();
    return s;
}

}  // namespace

TEST_CASE("sub_batch_bounds: ceil(B / 16) runs of consecutive graphs, none empty, balanced by nodes", "[train][graph]") {
    GraphDataset data = test::random_graph_dataset(80, 21);  // 3 to 7 nodes each
    for (const std::size_t n : {std::size_t{1}, std::size_t{16}, std::size_t{17}, std::size_t{32}, std::size_t{33}, std::size_t{64}, std::size_t{80}}) {
        CAPTURE(n);
        const std::vector<std::size_t> graphs = first_graphs(n);
        const std::vector<std::size_t> b = sub_batch_bounds(data, graphs);
        const std::size_t parts = (n + kSubBatchGraphs - 1) / kSubBatchGraphs;
        REQUIRE(b.size() == parts + 1);
        CHECK(b.front() == 0);
        CHECK(b.back() == n);
        std::uint64_t total = 0;
        for (const std::size_t g : graphs) total += static_cast<std::uint64_t>(data.graphs[g].x.rows());
        for (std::size_t s = 0; s < parts; ++s) {
            REQUIRE(b[s] < b[s + 1]);
            // each part within one graph (≤ 7 nodes) of its share
            std::uint64_t nodes = 0;
            for (std::size_t k = b[s]; k < b[s + 1]; ++k) nodes += static_cast<std::uint64_t>(data.graphs[graphs[k]].x.rows());
            CHECK(static_cast<double>(nodes) >= static_cast<double>(total) / static_cast<double>(parts) - 7.0);
            CHECK(static_cast<double>(nodes) <= static_cast<double>(total) / static_cast<double>(parts) + 7.0);
        }
    }
    // Graphs of very different sizes: one big graph first still leaves every part a graph.
    Rng big(3);
    data.graphs[0].x = test::random_matrix<float>(500, 4, big);
    data.graphs[0].graph = test::random_graph(500, 0.01, big);
    const std::vector<std::size_t> b = sub_batch_bounds(data, first_graphs(40));
    REQUIRE(b.size() == 4);
    CHECK(b[1] == 1);  // the big graph alone
    CHECK(b[1] < b[2]);
    CHECK(b[2] < b[3]);
}

TEST_CASE("SubBatchSteps: a step equals the whole batch's forward and backward, the same bits with 1 and 2 threads",
          "[train][graph][threads]") {
    const GraphDataset data = test::random_graph_dataset(45, 9);
    const bool with_dropout = GENERATE(false, true);
    CAPTURE(with_dropout);
    GraphFitOptions fit = test::tiny_graph_fit();
    fit.model.dropout = with_dropout ? 0.3 : 0.0;
    fit.model.attn_dropout = 0.0;
    const Model model = make_graph_model(data, fit, 5);
    GraphTrainOptions o;
    o.batch_size = 45;  // three sub-batches
    const std::vector<std::size_t> chunk = first_graphs(45);
    REQUIRE(sub_batch_bounds(data, chunk).size() == 4);

    const Step one = sub_batch_step(model, data, chunk, o, 1, 77);
    const Step two = sub_batch_step(model, data, chunk, o, 2, 77);
    CHECK(one.out == two.out);
    REQUIRE(one.grads.size() == two.grads.size());
    for (std::size_t k = 0; k < one.grads.size(); ++k) CHECK(one.grads[k] == two.grads[k]);
    CHECK(one.rng_after == two.rng_after);

    if (with_dropout) {
        // The sub-batches drew their dropout keys: the stream moved on by one value, and another
        // seed gives other masks.
        CHECK(one.rng_after == [] { Rng r(77); r.skip(1); return r.state(); }());
        CHECK(sub_batch_step(model, data, chunk, o, 2, 78).out != one.out);
        return;
    }
    // Nothing drawn: the stream is where it was.
    CHECK(one.rng_after == Rng(77).state());
    // The reference: the whole batch in one forward and backward of the model.
    Model whole(model);
    auto params = whole.parameters();
    zero_grads(params);
    const GraphBatchData b = make_batch_data(data, chunk);
    const Matrix out = whole.forward(b.batch, b.x, &b.edge_attr, /*training=*/true, nullptr, &b.u);
    whole.backward(bce_with_logits(out, Matrix(data.targets.topRows(45))).dlogits);
    CHECK(one.out.isApprox(out, 1e-6f));
    const std::vector<Matrix> g = grads_of(whole);
    for (std::size_t k = 0; k < g.size(); ++k) {
        CAPTURE(k);
        CHECK((one.grads[k] - g[k]).cwiseAbs().maxCoeff() <= 1e-5f * std::max(1.0f, g[k].cwiseAbs().maxCoeff()));
    }
}

TEST_CASE("SubBatchSteps: the replicas take the model's weights after a step, and errors reach the caller", "[train][graph]") {
    const GraphDataset data = test::random_graph_dataset(40, 12);
    const Model start = make_graph_model(data, test::tiny_graph_fit(), 6);
    GraphTrainOptions o;
    o.batch_size = 40;
    const std::vector<std::size_t> chunk = first_graphs(40);

    // A step, a change of the model's weights (as an optimiser step makes), weights_stepped, then
    // another forward: its outputs are those of the changed weights in every sub-batch.
    Model m(start);
    auto params = m.parameters();
    SubBatchSteps steps(m, params, data, o);
    Rng rng(1);
    const Matrix before = steps.forward(chunk, rng);
    for (Parameter* p : params) p->value.array() *= 1.5f;
    steps.weights_stepped();
    const Matrix after = steps.forward(chunk, rng);
    Model changed(m);
    const GraphBatchData b = make_batch_data(data, chunk);
    const Matrix expected = changed.forward(b.batch, b.x, &b.edge_attr, /*training=*/true, nullptr, &b.u);
    CHECK(after.isApprox(expected, 1e-6f));
    CHECK_FALSE(after.isApprox(before, 1e-3f));

    // A batch larger than the options' batch size is refused; backward needs a forward first.
    std::vector<std::size_t> too_many = chunk;
    too_many.push_back(0);
    CHECK_THROWS_AS(steps.forward(too_many, rng), ConfigError);
    Model fresh(start);
    auto fresh_params = fresh.parameters();
    SubBatchSteps unused(fresh, fresh_params, data, o);
    CHECK_THROWS_AS(unused.backward(Matrix::Zero(40, 1)), ConfigError);

    // A sub-batch whose graphs disagree on their molecule-level features fails inside the
    // parallel part (make_batch_data); its error comes back to the caller, with 2 threads too.
    GraphDataset bad = data;
    const std::vector<std::size_t> bounds = sub_batch_bounds(data, chunk);
    REQUIRE(bounds.size() == 4);
    for (auto& g : bad.graphs) g.u = Matrix::Zero(1, 3);
    bad.graphs[bounds[2] + 1].u = Matrix::Zero(1, 2);  // in the last sub-batch only
    ThreadScope scope(2);
    Model bm(start);
    auto bparams = bm.parameters();
    SubBatchSteps bad_steps(bm, bparams, bad, o);
    CHECK_THROWS_AS(bad_steps.forward(chunk, rng), ShapeError);
}
