// Graph-task metrics against scikit-learn 1.2.1. Expected values were computed with
//   /usr/bin/python3 -c 'from sklearn.metrics import *; ...'
// on the vectors written here (roc_auc_score, average_precision_score, accuracy_score, f1_score,
// matthews_corrcoef on the predictions score > threshold, f1_score(average="macro"),
// mean_squared_error(squared=False), mean_absolute_error, r2_score).
#include "gatkit/core/error.hpp"
#include "gatkit/train/metrics.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gatkit;

namespace {

constexpr double kExact = 1e-12;  // the same formula in another summation order

const std::vector<int> labels = {0, 1, 1, 0, 1, 0, 0, 1, 1, 0};
const std::vector<double> scores = {0.1, 0.4, 0.35, 0.8, 0.65, 0.2, 0.5, 0.9, 0.5, 0.3};

}  // namespace

TEST_CASE("roc_auc and pr_auc match sklearn", "[train][metrics]") {
    CHECK(roc_auc(scores, labels) == Approx(0.74).margin(kExact));
    CHECK(pr_auc(scores, labels) == Approx(0.7295238095238095).margin(kExact));
}

TEST_CASE("roc_auc and pr_auc: tied scores", "[train][metrics]") {
    // ties between a positive and a negative (0.5, 0.7, 0.2) and within one class
    const std::vector<int> y = {1, 0, 1, 0, 1, 1, 0, 0};
    const std::vector<double> s = {0.5, 0.5, 0.7, 0.7, 0.2, 0.9, 0.2, 0.1};
    CHECK(roc_auc(s, y) == Approx(0.71875).margin(kExact));
    CHECK(pr_auc(s, y) == Approx(0.7095238095238094).margin(kExact));
    // all scores equal: one threshold, AUC one half, AP the positive rate
    CHECK(roc_auc({0.3, 0.3, 0.3, 0.3}, {0, 1, 0, 1}) == Approx(0.5).margin(kExact));
    CHECK(pr_auc({0.3, 0.3, 0.3, 0.3}, {0, 1, 0, 1}) == Approx(0.5).margin(kExact));
}

TEST_CASE("roc_auc and pr_auc: degenerate inputs", "[train][metrics]") {
    // one class only: undefined, NaN (sklearn raises for ROC and returns 0 with a warning for AP)
    CHECK(std::isnan(roc_auc({0.1, 0.2, 0.3}, {0, 0, 0})));
    CHECK(std::isnan(roc_auc({0.1, 0.2, 0.3}, {1, 1, 1})));
    CHECK(std::isnan(pr_auc({0.1, 0.2, 0.3}, {0, 0, 0})));
    CHECK(std::isnan(roc_auc({}, {})));
    CHECK(pr_auc({0.1, 0.2, 0.3}, {1, 1, 1}) == 1.0);  // sklearn: 1.0
    // perfect and reversed ranking
    CHECK(roc_auc({0.1, 0.2, 0.8, 0.9}, {0, 0, 1, 1}) == 1.0);
    CHECK(roc_auc({0.9, 0.8, 0.2, 0.1}, {0, 0, 1, 1}) == 0.0);
    CHECK(pr_auc({0.1, 0.2, 0.8, 0.9}, {0, 0, 1, 1}) == 1.0);
}

TEST_CASE("binary accuracy, F1 and MCC match sklearn", "[train][metrics]") {
    CHECK(binary_accuracy(scores, labels) == Approx(0.6).margin(kExact));
    CHECK(f1_binary(scores, labels) == Approx(0.5).margin(kExact));
    CHECK(mcc_binary(scores, labels) == Approx(0.2182178902359924).margin(kExact));
    // 0.5 is a score of two rows: score > threshold is class 1, so they are predicted 0
    CHECK(binary_accuracy(scores, labels, 0.3) == Approx(0.8).margin(kExact));
    CHECK(f1_binary(scores, labels, 0.3) == Approx(0.8333333333333333).margin(kExact));
    CHECK(mcc_binary(scores, labels, 0.3) == Approx(0.6546536707079772).margin(kExact));
}

TEST_CASE("binary metrics: undefined cases give sklearn's 0", "[train][metrics]") {
    // no positive predicted nor present: F1 0/0 → 0, MCC 0
    CHECK(f1_binary({0.1, 0.2}, {0, 0}) == 0.0);
    CHECK(mcc_binary({0.1, 0.2}, {0, 0}) == 0.0);
    CHECK(mcc_binary({0.9, 0.8}, {1, 1}) == 0.0);
    CHECK(binary_accuracy({0.9, 0.8}, {1, 1}) == 1.0);
    CHECK(binary_accuracy({}, {}) == 0.0);
}

TEST_CASE("macro F1 matches sklearn average='macro'", "[train][metrics]") {
    // class 3 is only predicted, class 4 never occurs: sklearn averages over classes 0..3
    const std::vector<int> pred = {0, 2, 1, 2, 0, 1, 1, 3};
    const std::vector<int> truth = {0, 1, 1, 2, 0, 2, 1, 0};
    CHECK(macro_f1(pred, truth, 5) == Approx(0.4916666666666667).margin(kExact));
    CHECK(macro_f1({1, 1}, {1, 1}, 3) == 1.0);
    CHECK(macro_f1({}, {}, 3) == 0.0);
}

TEST_CASE("regression metrics match sklearn", "[train][metrics]") {
    const std::vector<double> pred = {2.5, 0.0, 2.1, 7.8, -1.2};
    const std::vector<double> truth = {3.0, -0.5, 2.0, 7.0, -1.0};
    CHECK(rmse(pred, truth) == Approx(0.48785243670601863).margin(kExact));
    CHECK(mae(pred, truth) == Approx(0.41999999999999993).margin(kExact));
    CHECK(r2(pred, truth) == Approx(0.971116504854369).margin(kExact));
    // constant truth: sklearn's force_finite gives 1 for a perfect fit, else 0
    CHECK(r2({1, 1}, {1, 1}) == 1.0);
    CHECK(r2({1, 2}, {1, 1}) == 0.0);
    CHECK(std::isnan(rmse({}, {})));
    CHECK(std::isnan(mae({}, {})));
    CHECK(std::isnan(r2({}, {})));
}

TEST_CASE("metrics: bad input names the values", "[train][metrics]") {
    CHECK_THROWS_AS(roc_auc({0.1, 0.2}, {0}), ShapeError);
    CHECK_THROWS_WITH(roc_auc({0.1, 0.2}, {0}), Catch::Contains("2 predictions but 1 labels"));
    CHECK_THROWS_AS(pr_auc({0.1, 0.2}, {0, 2}), ConfigError);
    CHECK_THROWS_WITH(f1_binary({0.1, 0.2}, {0, 2}), Catch::Contains("label 2 at index 1"));
    CHECK_THROWS_WITH(macro_f1({0, 3}, {0, 1}, 3), Catch::Contains("prediction 3 at index 1"));
    CHECK_THROWS_AS(rmse({1.0}, {1.0, 2.0}), ShapeError);
}
