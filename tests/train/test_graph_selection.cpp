// Model selection in graph training (train/graph_trainer.hpp): the selection metric per target
// type, and the kept epoch — the best by the metric, ties going to the lower validation loss.
#include "gatkit/core/error.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace gatkit;
using Catch::Contains;

namespace {

struct EpochRecord {
    int epoch;
    double score, loss;
};

// Trains a small model for a fixed number of epochs (no early stopping) and records what the
// trainer saw after each epoch.
struct SelectionRun {
    GraphTrainResult result;
    std::vector<EpochRecord> epochs;
    std::string metric;
    double kept_val_nll = 0;  // computed here from the returned model's validation predictions
};

SelectionRun run_selection(const std::string& select_metric) {
    const GraphDataset data = test::random_graph_dataset(60, 5);
    IndexSplit split;
    // Five validation graphs: accuracy takes one of six values, so epochs tie on it.
    for (std::size_t i = 0; i < 60; ++i) (i < 45 ? split.train : i < 50 ? split.val : split.test).push_back(i);
    GraphFitOptions fit = test::tiny_graph_fit();
    GraphTrainOptions o;
    o.epochs = 40;
    o.patience = 0;
    o.batch_size = 16;
    o.seed = 4;
    o.adam.lr = 0.01;
    o.select_metric = select_metric;
    Model model = make_graph_model(data, fit, 2);
    SelectionRun run;
    run.result = train_graph_model(model, data, split, o, [&](const GraphEpochStats& s) {
        run.epochs.push_back({s.epoch, s.val_score, s.val_loss});
        run.metric = s.val_metric;
    });
    const Matrix p = predict_graphs(model, data, split.val);
    for (std::size_t k = 0; k < split.val.size(); ++k) {
        const double pk = p(static_cast<Eigen::Index>(k), 0);
        run.kept_val_nll -= data.targets(static_cast<Eigen::Index>(split.val[k]), 0) > 0.5f ? std::log(pk) : std::log(1 - pk);
    }
    run.kept_val_nll /= static_cast<double>(split.val.size());
    return run;
}

}  // namespace

TEST_CASE("The selection metric defaults per target type and must apply to it", "[train][graph]") {
    CHECK(selection_metric_for("binary", "") == "roc_auc");
    CHECK(selection_metric_for("binary", "auto") == "roc_auc");
    CHECK(selection_metric_for("multiclass", "") == "accuracy");
    CHECK(selection_metric_for("regression", "") == "rmse");
    CHECK(selection_metric_for("binary", "mcc") == "mcc");
    CHECK(selection_metric_for("binary", "loss") == "loss");
    CHECK(selection_metric_for("regression", "r2") == "r2");
    CHECK_THROWS_AS(selection_metric_for("regression", "roc_auc"), ConfigError);
    CHECK_THROWS_WITH(selection_metric_for("multiclass", "rmse"), Contains("available: accuracy, f1, loss"));
    CHECK_THROWS_WITH(selection_metric_for("binary", "auc"), Contains("selection metric auc"));
}

TEST_CASE("The kept epoch is the best by the selection metric, a tie going to the lower validation loss", "[train][graph]") {
    const SelectionRun run = run_selection("accuracy");
    REQUIRE(run.metric == "accuracy");
    REQUIRE(run.epochs.size() == 40);
    // The expected epoch, from the recorded values: highest accuracy, then lowest loss, then earliest.
    const EpochRecord* want = &run.epochs.front();
    int at_best_score = 0;
    for (const auto& e : run.epochs)
        if (e.score > want->score || (e.score == want->score && e.loss < want->loss)) want = &e;
    for (const auto& e : run.epochs) at_best_score += e.score == want->score ? 1 : 0;
    // The rule is only exercised when several epochs share the best accuracy.
    REQUIRE(at_best_score > 1);
    CHECK(run.result.best_epoch == want->epoch);
    // The first epoch that reached that accuracy is not the one kept unless it also had the lowest loss.
    const auto first = std::find_if(run.epochs.begin(), run.epochs.end(), [&](const EpochRecord& e) { return e.score == want->score; });
    if (first->epoch != want->epoch) CHECK(first->loss > want->loss);
    // The returned weights are the kept epoch's: the final validation accuracy is its accuracy.
    CHECK(run.result.val.at("accuracy") == Approx(want->score));
}

TEST_CASE("Selecting on the validation loss keeps the epoch with the lowest loss", "[train][graph]") {
    const SelectionRun run = run_selection("loss");
    REQUIRE(run.metric == "loss");
    const EpochRecord* want = &run.epochs.front();
    for (const auto& e : run.epochs) {
        CHECK(e.score == e.loss);
        if (e.loss < want->loss) want = &e;
    }
    CHECK(run.result.best_epoch == want->epoch);
    // The loss is the mean negative log-likelihood of the validation labels, and the returned
    // weights are the kept epoch's.
    CHECK(want->loss > 0);
    CHECK(run.kept_val_nll == Approx(want->loss).epsilon(1e-5));
}
