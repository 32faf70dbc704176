#include "gatkit/train/graph_trainer.hpp"

#include "gatkit/chem/mol_features.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/metrics.hpp"
#include "gatkit/train/numerics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

namespace gatkit {

namespace {

Matrix rows_of(const Matrix& m, const std::vector<std::size_t>& rows) {
    Matrix out(static_cast<Eigen::Index>(rows.size()), m.cols());
    for (std::size_t k = 0; k < rows.size(); ++k) out.row(static_cast<Eigen::Index>(k)) = m.row(static_cast<Eigen::Index>(rows[k]));
    return out;
}

// Sub-batches of a batch of n graphs (sub_batch_bounds): ceil(n / kSubBatchGraphs), at least 1.
std::size_t sub_batch_count(std::size_t n) { return std::max<std::size_t>(1, (n + kSubBatchGraphs - 1) / kSubBatchGraphs); }

bool lower_is_better(const std::string& metric) { return metric == "loss" || metric == "rmse" || metric == "mae"; }

// The validation loss that breaks ties in the selection metric: mean negative log-likelihood of
// the present labels (binary, multiclass; probabilities clamped away from 0 and 1), mean squared
// error in the original units (regression).
double validation_loss(const std::string& target_type, const Matrix& pred, const Matrix& targets) {
    constexpr double eps = 1e-7;
    double sum = 0;
    long n = 0;
    for (Eigen::Index i = 0; i < targets.rows(); ++i)
        for (Eigen::Index t = 0; t < targets.cols(); ++t) {
            const double y = targets(i, t);
            if (std::isnan(y)) continue;
            if (target_type == "multiclass") {
                sum -= std::log(std::clamp(static_cast<double>(pred(i, static_cast<Eigen::Index>(y))), eps, 1.0));
            } else if (target_type == "binary") {
                const double p = std::clamp(static_cast<double>(pred(i, t)), eps, 1.0 - eps);
                sum -= y > 0.5 ? std::log(p) : std::log(1.0 - p);
            } else {
                sum += (pred(i, t) - y) * (pred(i, t) - y);
            }
            ++n;
        }
    return n ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

// The mean and sample standard deviation of one input column over the training data, as the
// model standardises it; a constant column (or a single value) keeps std 1.
std::pair<double, double> mean_and_scale(const std::vector<double>& values) {
    double sum = 0, sq = 0;
    for (const double v : values) sum += v;
    const double mean = values.empty() ? 0.0 : sum / static_cast<double>(values.size());
    for (const double v : values) sq += (v - mean) * (v - mean);
    const double sd = values.size() > 1 ? std::sqrt(sq / static_cast<double>(values.size() - 1)) : 0.0;
    return {mean, sd > 1e-12 ? sd : 1.0};
}

// Molecule-level features are standardised with the training graphs' mean and standard deviation
// (computed again on every call, so a resumed run gets the same numbers); kinds whose columns are
// used as they are (Morgan bits) keep mean 0 and std 1. A constant column keeps std 1.
void fit_graph_feature_scaling(ModelInfo& info, const GraphDataset& data, const std::vector<std::size_t>& train, int width) {
    const auto U = static_cast<std::size_t>(width);
    for (const std::size_t i : train)
        if (data.graphs[i].u.size() != width)
            throw ShapeError("graph " + std::to_string(i) + " has " + std::to_string(data.graphs[i].u.size()) +
                             " molecule-level features, the model takes " + std::to_string(width) + " (" + info.graph_features + ")");
    info.graph_feature_mean.assign(U, 0.0);
    info.graph_feature_std.assign(U, 1.0);
    const std::vector<bool> standardised = chem::molecule_feature_standardised(info.graph_features);
    if (standardised.size() != U)
        throw ConfigError("molecule features " + info.graph_features + " have " + std::to_string(standardised.size()) + " columns, the model takes " +
                          std::to_string(U));
    for (std::size_t k = 0; k < U; ++k) {
        if (!standardised[k]) continue;
        std::vector<double> values;
        for (const std::size_t i : train) values.push_back(data.graphs[i].u(0, static_cast<Eigen::Index>(k)));
        std::tie(info.graph_feature_mean[k], info.graph_feature_std[k]) = mean_and_scale(values);
    }
}

// Continuous node attributes (GraphDataset::continuous_node_columns) are standardised with the
// mean and standard deviation over every node of the training graphs; a constant column keeps
// std 1.
void fit_node_feature_scaling(ModelInfo& info, const GraphDataset& data, const std::vector<std::size_t>& train) {
    info.node_feature_columns = data.continuous_node_columns;
    const std::size_t n = info.node_feature_columns.size();
    info.node_feature_mean.assign(n, 0.0);
    info.node_feature_std.assign(n, 1.0);
    for (std::size_t k = 0; k < n; ++k) {
        const int c = info.node_feature_columns[k];
        std::vector<double> values;
        for (const std::size_t i : train) {
            const Matrix& x = data.graphs[i].x;
            if (c < 0 || c >= x.cols())
                throw ShapeError("graph " + std::to_string(i) + " has " + std::to_string(x.cols()) + " node feature columns, not column " + std::to_string(c));
            for (Eigen::Index r = 0; r < x.rows(); ++r) values.push_back(x(r, c));
        }
        std::tie(info.node_feature_mean[k], info.node_feature_std[k]) = mean_and_scale(values);
    }
}

}  // namespace

std::string selection_metric_for(const std::string& target_type, const std::string& requested) {
    const std::vector<std::string> allowed = target_type == "binary"       ? std::vector<std::string>{"roc_auc", "pr_auc", "accuracy", "f1", "mcc", "loss"}
                                             : target_type == "multiclass" ? std::vector<std::string>{"accuracy", "f1", "loss"}
                                                                           : std::vector<std::string>{"rmse", "mae", "r2", "loss"};
    if (requested.empty() || requested == "auto") return allowed.front();
    if (std::find(allowed.begin(), allowed.end(), requested) != allowed.end()) return requested;
    std::string list;
    for (const auto& m : allowed) list += (list.empty() ? "" : ", ") + m;
    throw ConfigError("selection metric " + requested + " does not apply to " + target_type + " targets (available: " + list + ")");
}

std::string infer_target_type(const GraphDataset& data) {
    if (data.class_names.size() > 2) return "multiclass";
    bool binary = true;
    for (Eigen::Index k = 0; k < data.targets.size() && binary; ++k) {
        const float v = data.targets.data()[k];
        binary = std::isnan(v) || v == 0.0f || v == 1.0f;
    }
    return binary ? "binary" : "regression";
}

GraphBatchData make_batch_data(const GraphDataset& data, const std::vector<std::size_t>& graphs, bool with_x) {
    GraphBatchData b;
    const Eigen::Index f = data.graphs.empty() ? 0 : data.graphs.front().x.cols();
    const Eigen::Index d = data.graphs.empty() ? 0 : data.graphs.front().edge_attr.cols();
    const Eigen::Index U = data.graphs.empty() ? 0 : data.graphs.front().u.cols();
    // Each graph's rows start at a running sum of the sizes before it, so the copies below are
    // independent and run in parallel (the training loop waited on them on one thread).
    const auto G = static_cast<std::ptrdiff_t>(graphs.size());
    std::vector<const Graph*> gs;
    std::vector<Eigen::Index> row0(graphs.size() + 1, 0), edge0(graphs.size() + 1, 0);
    for (std::size_t k = 0; k < graphs.size(); ++k) {
        const GraphSample& s = data.graphs[graphs[k]];
        gs.push_back(&s.graph);
        row0[k + 1] = row0[k] + s.x.rows();
        edge0[k + 1] = edge0[k] + (d > 0 ? s.edge_attr.rows() : 0);
    }
    b.batch = make_batch(gs);
    if (with_x) b.x.resize(row0.back(), f);
    b.edge_attr.resize(edge0.back(), d);
    b.u.resize(G, U);
    for (std::size_t k = 0; k < graphs.size() && U > 0; ++k)
        if (data.graphs[graphs[k]].u.rows() != 1 || data.graphs[graphs[k]].u.cols() != U)
            throw ShapeError("graph " + std::to_string(graphs[k]) + " has " + std::to_string(data.graphs[graphs[k]].u.size()) +
                             " molecule-level features, the first graph has " + std::to_string(U));
#pragma omp parallel for schedule(dynamic, 8)
    for (std::ptrdiff_t k = 0; k < G; ++k) {
        const GraphSample& s = data.graphs[graphs[static_cast<std::size_t>(k)]];
        if (with_x) b.x.middleRows(row0[static_cast<std::size_t>(k)], s.x.rows()) = s.x;
        if (d > 0) b.edge_attr.middleRows(edge0[static_cast<std::size_t>(k)], s.edge_attr.rows()) = s.edge_attr;
        if (U > 0) b.u.row(k) = s.u.row(0);
    }
    return b;
}

std::vector<std::size_t> sub_batch_bounds(const GraphDataset& data, const std::vector<std::size_t>& graphs) {
    const std::size_t n = graphs.size();
    const std::size_t parts = sub_batch_count(n);
    std::vector<std::size_t> bounds{0};
    // nodes[k]: the nodes of graphs[0 .. k); cut s is the first position whose running count
    // reaches s/parts of the total, leaving at least one graph to every sub-batch on either side.
    std::vector<std::uint64_t> nodes(n + 1, 0);
    for (std::size_t k = 0; k < n; ++k) nodes[k + 1] = nodes[k] + static_cast<std::uint64_t>(data.graphs[graphs[k]].x.rows());
    for (std::size_t s = 1; s < parts; ++s) {
        std::size_t k = bounds.back() + 1;
        while (k < n - (parts - s) && nodes[k] * parts < nodes[n] * s) ++k;
        bounds.push_back(k);
    }
    bounds.push_back(n);
    return bounds;
}

SubBatchSteps::SubBatchSteps(Model& model, const ParameterList<float>& params, const GraphDataset& data, const GraphTrainOptions& o)
    : model_(model), params_(params), slices_(params), data_(data), o_(o) {
    const std::size_t most = sub_batch_count(static_cast<std::size_t>(std::max(o.batch_size, 1)));
    replicas_.reserve(most - 1);  // no reallocation: replica_params_ points into the replicas' layers
    for (std::size_t k = 1; k < most; ++k) {
        replicas_.emplace_back(model);
        replica_params_.push_back(replicas_.back().parameters());
    }
}

Matrix SubBatchSteps::forward(const std::vector<std::size_t>& chunk, Rng& rng) {
    if (chunk.size() > static_cast<std::size_t>(o_.batch_size))
        throw ConfigError("sub-batch steps: a batch of " + std::to_string(chunk.size()) + " graphs, the options' batch size is " +
                          std::to_string(o_.batch_size));
    bounds_ = sub_batch_bounds(data_, chunk);
    const std::size_t parts = bounds_.size() - 1;
    const std::uint64_t base = rng.peek_u64(1);
    std::vector<Rng> rngs;
    for (std::size_t s = 0; s < parts && parts > 1; ++s) rngs.emplace_back(base + s);
    std::vector<std::uint64_t> before;
    for (const Rng& r : rngs) before.push_back(r.state());
    batches_.resize(parts);
    std::vector<Matrix> outs(parts);
    const auto n = static_cast<std::ptrdiff_t>(parts);
    for_each_item(n, [&](std::ptrdiff_t k) {
        const auto s = static_cast<std::size_t>(k);
        const std::vector<std::size_t> part(chunk.begin() + static_cast<std::ptrdiff_t>(bounds_[s]),
                                            chunk.begin() + static_cast<std::ptrdiff_t>(bounds_[s + 1]));
        GraphBatchData& b = batches_[s];
        b = make_batch_data(data_, part);
        Rng& r = parts == 1 ? rng : rngs[s];
        if (o_.augment) o_.augment(b.x, r);
        outs[s] = replica(s).forward(b.batch, b.x, &b.edge_attr, /*training=*/true, &r, &b.u);
    });
    for (std::size_t s = 0; s < rngs.size(); ++s)
        if (rngs[s].state() != before[s]) {
            rng.skip(1);
            break;
        }
    if (parts == 1) return std::move(outs.front());
    Matrix out(static_cast<Eigen::Index>(chunk.size()), outs.front().cols());
    for (std::size_t s = 0; s < parts; ++s) out.middleRows(static_cast<Eigen::Index>(bounds_[s]), outs[s].rows()) = outs[s];
    return out;
}

void SubBatchSteps::backward(const Matrix& dlogits) {
    if (bounds_.size() < 2) throw ConfigError("sub-batch steps: backward without a forward");
    const std::size_t parts = bounds_.size() - 1;
    const auto n = static_cast<std::ptrdiff_t>(parts);
    for_each_item(n, [&](std::ptrdiff_t k) {
        const auto s = static_cast<std::size_t>(k);
        if (s > 0) zero_grads(replica_params_[s - 1]);
        const auto rows = static_cast<Eigen::Index>(bounds_[s + 1] - bounds_[s]);
        replica(s).backward(parts == 1 ? dlogits : Matrix(dlogits.middleRows(static_cast<Eigen::Index>(bounds_[s]), rows)));
    });
    if (parts == 1) return;
    slices_.for_each([&](const ParameterSlice& sl) {
        float* g = params_[sl.param]->grad.data() + sl.begin;
        for (std::size_t s = 1; s < parts; ++s) {
            const float* r = replica_params_[s - 1][sl.param]->grad.data() + sl.begin;
            for (Eigen::Index i = 0; i < sl.count; ++i) g[i] += r[i];
        }
    });
}

void SubBatchSteps::weights_stepped() {
    if (replicas_.empty()) return;
    slices_.for_each([&](const ParameterSlice& sl) {
        const float* v = params_[sl.param]->value.data() + sl.begin;
        for (const auto& rp : replica_params_) std::copy_n(v, sl.count, rp[sl.param]->value.data() + sl.begin);
    });
}

Matrix output_values(const std::string& target_type, const ModelInfo& info, Matrix y) {
    if (target_type == "binary") return (1.0f / (1.0f + (-y.array()).exp())).matrix();
    if (target_type == "multiclass") return softmax_rows(y);
    for (Eigen::Index t = 0; t < y.cols(); ++t)
        y.col(t) = y.col(t).array() * static_cast<float>(info.target_std.at(static_cast<std::size_t>(t))) +
                   static_cast<float>(info.target_mean.at(static_cast<std::size_t>(t)));
    return y;
}

Matrix predict_graphs(Model& model, const GraphDataset& data, const std::vector<std::size_t>& graphs, int batch_size) {
    if (batch_size < 1) throw ConfigError("predict_graphs: batch_size must be at least 1, got " + std::to_string(batch_size));
    const ModelConfig& c = model.config();
    Matrix out(static_cast<Eigen::Index>(graphs.size()), c.num_classes);
    const auto step = static_cast<std::size_t>(batch_size);
    const auto batches = static_cast<std::ptrdiff_t>((graphs.size() + step - 1) / step);
    auto run = [&](Model& m, std::ptrdiff_t k) {
        const std::size_t start = static_cast<std::size_t>(k) * step;
        const std::vector<std::size_t> chunk(graphs.begin() + static_cast<std::ptrdiff_t>(start),
                                             graphs.begin() + static_cast<std::ptrdiff_t>(std::min(graphs.size(), start + step)));
        Matrix raw;
        if (m.takes_sparse_input()) {
            // The node features go to the model as sparse rows read from the graphs' own
            // matrices, without the batch's dense copy (the same numbers: Model::predict).
            const GraphBatchData b = make_batch_data(data, chunk, /*with_x=*/false);
            std::vector<const Matrix*> xs;
            for (const std::size_t g : chunk) xs.push_back(&data.graphs[g].x);
            const Eigen::Index F = data.graphs.empty() ? 0 : data.graphs.front().x.cols();
            raw = m.predict(b.batch, SparseRows::from_dense_blocks(xs, F), &b.edge_attr, &b.u);
        } else {
            const GraphBatchData b = make_batch_data(data, chunk);
            raw = m.predict(b.batch, b.x, &b.edge_attr, &b.u);
        }
        const Matrix y = output_values(c.target_type, m.info(), std::move(raw));
        out.middleRows(static_cast<Eigen::Index>(start), y.rows()) = y;
    };
    // Batches are independent: with several threads each runs whole batches on its own copy of
    // the model (its kernels inside run on that one thread, as nested parallel regions do), so no
    // thread waits on the short parallel regions of a small batch. A batch's numbers do not
    // depend on which thread ran it, nor on the thread count.
    const int threads = item_threads(batches);
    std::vector<Model> copies(static_cast<std::size_t>(threads - 1), model);
    for_each_item(batches, {.threads = threads}, [&](std::ptrdiff_t k, int t) { run(t == 0 ? model : copies[static_cast<std::size_t>(t - 1)], k); });
    return out;
}

std::vector<Model*> model_pointers(std::vector<Model>& models) {
    std::vector<Model*> out;
    for (auto& m : models) out.push_back(&m);
    return out;
}

Matrix predict_graphs(const std::vector<Model*>& members, const GraphDataset& data, const std::vector<std::size_t>& graphs, int batch_size) {
    if (members.empty()) throw ConfigError("predict_graphs: an ensemble without members");
    Matrix sum = predict_graphs(*members.front(), data, graphs, batch_size);
    for (std::size_t k = 1; k < members.size(); ++k) sum += predict_graphs(*members[k], data, graphs, batch_size);
    if (members.size() > 1) sum /= static_cast<float>(members.size());
    return sum;
}

void evaluate_split(const std::vector<Model*>& members, const GraphDataset& data, const IndexSplit& split, GraphTrainResult& result) {
    const std::string& type = members.at(0)->config().target_type;
    result.val = evaluate_predictions(type, predict_graphs(members, data, split.val), rows_of(data.targets, split.val));
    result.test.clear();
    result.test_per_task.clear();
    if (!split.test.empty())
        result.test = evaluate_predictions(type, predict_graphs(members, data, split.test), rows_of(data.targets, split.test), &result.test_per_task);
}

GraphTrainResult ensemble_result(const std::vector<Model*>& members, const std::vector<GraphTrainResult>& member_results,
                                 const GraphDataset& data, const IndexSplit& split) {
    GraphTrainResult r;
    r.epochs_run = member_results.at(0).epochs_run;
    r.best_epoch = member_results.front().best_epoch;
    r.epoch_seconds_median = member_results.front().epoch_seconds_median;
    for (const auto& m : member_results) r.train_seconds += m.train_seconds;
    evaluate_split(members, data, split, r);
    return r;
}

Metrics evaluate_predictions(const std::string& target_type, const Matrix& pred, const Matrix& targets,
                             std::map<std::string, std::vector<double>>* per_task) {
    Metrics m;
    if (target_type == "multiclass") {
        std::vector<int> labels, predicted = argmax_rows(pred);
        std::vector<int> kept_pred;
        for (Eigen::Index i = 0; i < targets.rows(); ++i)
            if (!std::isnan(targets(i, 0))) {
                labels.push_back(static_cast<int>(targets(i, 0)));
                kept_pred.push_back(predicted[static_cast<std::size_t>(i)]);
            }
        std::vector<NodeId> all(labels.size());
        for (std::size_t k = 0; k < all.size(); ++k) all[k] = static_cast<NodeId>(k);
        m["accuracy"] = accuracy(kept_pred, labels, all);
        m["f1"] = macro_f1(kept_pred, labels, static_cast<int>(pred.cols()));
        return m;
    }
    const std::vector<std::string> names = target_type == "binary" ? std::vector<std::string>{"roc_auc", "pr_auc", "accuracy", "f1", "mcc"}
                                                                   : std::vector<std::string>{"rmse", "mae", "r2"};
    std::map<std::string, std::vector<double>> tasks;
    for (Eigen::Index t = 0; t < targets.cols(); ++t) {
        std::vector<double> scores, truth;
        std::vector<int> labels;
        for (Eigen::Index i = 0; i < targets.rows(); ++i) {
            if (std::isnan(targets(i, t))) continue;
            scores.push_back(pred(i, t));
            truth.push_back(targets(i, t));
            labels.push_back(targets(i, t) > 0.5f ? 1 : 0);
        }
        if (target_type == "binary") {
            const bool both = std::count(labels.begin(), labels.end(), 1) > 0 && std::count(labels.begin(), labels.end(), 0) > 0;
            const double nan = std::numeric_limits<double>::quiet_NaN();
            tasks["roc_auc"].push_back(both ? roc_auc(scores, labels) : nan);
            tasks["pr_auc"].push_back(both ? pr_auc(scores, labels) : nan);
            tasks["accuracy"].push_back(labels.empty() ? nan : binary_accuracy(scores, labels));
            tasks["f1"].push_back(labels.empty() ? nan : f1_binary(scores, labels));
            tasks["mcc"].push_back(labels.empty() ? nan : mcc_binary(scores, labels));
        } else {
            tasks["rmse"].push_back(rmse(scores, truth));
            tasks["mae"].push_back(mae(scores, truth));
            tasks["r2"].push_back(r2(scores, truth));
        }
    }
    for (const auto& name : names) {
        double sum = 0;
        int n = 0;
        for (const double v : tasks[name])
            if (!std::isnan(v)) {
                sum += v;
                ++n;
            }
        m[name] = n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
    }
    if (per_task) *per_task = tasks;
    return m;
}

void fit_training_statistics(Model& model, const GraphDataset& data, const std::vector<std::size_t>& train) {
    const ModelConfig& c = model.config();
    ModelInfo& info = model.info();
    if (c.target_type == "regression") {
        const Matrix& targets = data.targets;
        info.target_mean.assign(static_cast<std::size_t>(targets.cols()), 0.0);
        info.target_std.assign(static_cast<std::size_t>(targets.cols()), 1.0);
        for (Eigen::Index t = 0; t < targets.cols(); ++t) {
            double sum = 0, sq = 0;
            int n = 0;
            for (const std::size_t i : train)
                if (!std::isnan(targets(static_cast<Eigen::Index>(i), t))) {
                    sum += targets(static_cast<Eigen::Index>(i), t);
                    ++n;
                }
            const double mean = n ? sum / n : 0.0;
            for (const std::size_t i : train)
                if (!std::isnan(targets(static_cast<Eigen::Index>(i), t))) sq += std::pow(targets(static_cast<Eigen::Index>(i), t) - mean, 2);
            const double sd = n > 1 ? std::sqrt(sq / (n - 1)) : 1.0;
            info.target_mean[static_cast<std::size_t>(t)] = mean;
            info.target_std[static_cast<std::size_t>(t)] = sd > 0 ? sd : 1.0;
        }
    }
    if (c.graph_dim > 0) fit_graph_feature_scaling(info, data, train, c.graph_dim);
    fit_node_feature_scaling(info, data, train);
}

GraphTrainResult train_graph_model(Model& model, const GraphDataset& data, const IndexSplit& split, const GraphTrainOptions& o,
                                   const std::function<void(const GraphEpochStats&)>& on_epoch) {
    const ModelConfig& c = model.config();
    if (o.epochs < 1) throw ConfigError("epochs must be at least 1, got " + std::to_string(o.epochs));
    if (o.batch_size < 1) throw ConfigError("batch size must be at least 1, got " + std::to_string(o.batch_size));
    if (split.train.empty() || split.val.empty())
        throw ConfigError("training needs at least one training and one validation graph (got " + std::to_string(split.train.size()) +
                          " and " + std::to_string(split.val.size()) + ")");
    fit_training_statistics(model, data, split.train);
    // Regression targets are standardised with the training set's statistics.
    Matrix targets = data.targets;
    if (c.target_type == "regression") {
        const auto& info = model.info();
        for (Eigen::Index t = 0; t < targets.cols(); ++t) {
            const auto k = static_cast<std::size_t>(t);
            targets.col(t) = ((targets.col(t).array() - static_cast<float>(info.target_mean[k])) / static_cast<float>(info.target_std[k])).matrix();
        }
    }
    check_lr_schedule(o.schedule);
    auto params = model.parameters();
    AdamT<float> adam(params, o.adam);
    Rng rng(o.seed);
    const std::string metric = selection_metric_for(c.target_type, o.select_metric);
    const bool higher_better = !lower_is_better(metric);
    const Matrix val_targets = rows_of(data.targets, split.val);

    const int batches_per_epoch = static_cast<int>((split.train.size() + o.batch_size - 1) / o.batch_size);
    std::vector<std::size_t> order = split.train;
    const TrainState* resume = o.checkpoint.resume_from;
    if (resume) {
        std::vector<std::size_t> have = resume->order, want = split.train;
        std::sort(have.begin(), have.end());
        std::sort(want.begin(), want.end());
        if (have != want)
            throw ConfigError("resume: the checkpoint's training order holds " + std::to_string(have.size()) +
                              " graphs that are not this split's " + std::to_string(want.size()) + " training graphs");
        order = resume->order;
    }
    // Kept epoch: the best selection metric (best_score), a tie going to the lower validation
    // loss (best_loss, the kept epoch's).
    LoopState loop(params, adam, rng, o.checkpoint,
                   higher_better ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN());
    loop.extend = [&order](TrainState& st) { st.order = order; };
    const DivergenceGuard<float> guard(params, loop.best_weights, loop.best_epoch);
    const int first_epoch = loop.first_epoch();
    // The state after `epoch` whole epochs and `batch_start` graphs of the next.
    const auto state_inside = [&](int epoch, std::size_t batch_start, double loss_sum, int batches) {
        TrainState st = loop.state(epoch);
        st.batch_start = batch_start;
        st.epoch_loss_sum = loss_sum;
        st.epoch_batches = batches;
        return st;
    };
    SubBatchSteps steps(model, params, data, o);
    // A run resumed from a state that had already stopped early trains no further epoch.
    const bool stopped_early = loop.out_of_patience(o.patience) && !(resume && resume->batch_start > 0);
    for (int epoch = first_epoch; epoch <= o.epochs && !stopped_early; ++epoch) {
        const auto t0 = std::chrono::steady_clock::now();
        // A run stopped inside an epoch continues that epoch: same order, the next batch.
        const bool mid_epoch = resume && epoch == first_epoch && resume->batch_start > 0;
        if (!mid_epoch) rng.shuffle(order);
        double loss_sum = mid_epoch ? resume->epoch_loss_sum : 0.0;
        int batches = mid_epoch ? resume->epoch_batches : 0;
        for (std::size_t start = mid_epoch ? resume->batch_start : 0; start < order.size(); start += static_cast<std::size_t>(o.batch_size)) {
            // Between steps: a stop request ends the run here, resumable at this batch.
            if (start > 0 && stop_requested(o.checkpoint)) interrupt_training(o.checkpoint, state_inside(epoch - 1, start, loss_sum, batches));
            const std::vector<std::size_t> chunk(order.begin() + static_cast<std::ptrdiff_t>(start),
                                                 order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), start + o.batch_size)));
            const Matrix batch_targets = rows_of(targets, chunk);
            // a batch with no label at all carries no signal
            if (c.target_type != "multiclass" && batch_targets.array().isNaN().all()) continue;
            adam.zero_grad();
            const Matrix out = steps.forward(chunk, rng);
            LossResult<float> loss;
            if (c.target_type == "binary") {
                loss = bce_with_logits(out, batch_targets);
            } else if (c.target_type == "regression") {
                loss = mse(out, batch_targets);
            } else {
                std::vector<int> labels(chunk.size());
                std::vector<NodeId> rows(chunk.size());
                for (std::size_t k = 0; k < chunk.size(); ++k) {
                    labels[k] = static_cast<int>(batch_targets(static_cast<Eigen::Index>(k), 0));
                    rows[k] = static_cast<NodeId>(k);
                }
                loss = softmax_cross_entropy(out, labels, rows);
            }
            const StepPosition at{.epoch = epoch, .batch = static_cast<int>(start / o.batch_size) + 1, .batches = batches_per_epoch};
            guard.check_loss(loss.loss, at);
            steps.backward(loss.dlogits);
            guard.check_gradients(at);
            adam.set_lr(scheduled_lr(o.schedule, o.adam.lr, adam.steps(), batches_per_epoch, o.epochs));
            adam.step();
            steps.weights_stepped();
            loss_sum += loss.loss;
            ++batches;
        }
        loop.epoch_seconds.push_back(seconds_since(t0));
        const Matrix val_pred = predict_graphs(model, data, split.val);
        guard.check_outputs(val_pred, "validation outputs", {.epoch = epoch, .batch = batches_per_epoch, .batches = batches_per_epoch});
        const Metrics vm = evaluate_predictions(c.target_type, val_pred, val_targets);
        GraphEpochStats s;
        s.epoch = epoch;
        s.train_loss = batches ? loss_sum / batches : 0.0;
        s.val_metric = metric;
        s.val_loss = validation_loss(c.target_type, val_pred, val_targets);
        s.val_score = metric == "loss" ? s.val_loss : vm.at(metric);
        s.seconds = loop.epoch_seconds.back();
        // A tie in the selection metric (frequent with ROC-AUC or accuracy on a few validation
        // graphs) goes to the lower validation loss.
        const bool better = higher_better ? s.val_score > loop.best_score : s.val_score < loop.best_score;
        const bool tie_lower_loss = s.val_score == loop.best_score && !std::isnan(s.val_loss) && !(s.val_loss >= loop.best_loss);
        const bool improved = !std::isnan(s.val_score) && (better || tie_lower_loss);
        if (improved || loop.best_weights.empty()) {
            if (!std::isnan(s.val_score)) loop.best_score = s.val_score;
            loop.best_loss = s.val_loss;
            loop.keep_best(epoch);
            s.best = true;
        } else {
            ++loop.since_best;
        }
        if (on_epoch) on_epoch(s);
        loop.end_epoch(epoch);
        if (loop.out_of_patience(o.patience)) break;
    }
    GraphTrainResult result = finish_run<GraphTrainResult>(loop);
    evaluate_split({&model}, data, split, result);
    return result;
}

}  // namespace gatkit
