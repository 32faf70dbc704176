// gatkit evaluate — a trained model's metrics on labelled data: molecules (binary or regression
// targets, the model's own columns), TU folders, node classification (all labelled nodes, or the
// parts of a split file) and node pairs (link and edge models).
#include "args.hpp"
#include "common.hpp"
#include "node_network.hpp"

#include "gatkit/core/parallel.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/graph_trainer.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/split.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

namespace gatkit::cli {

namespace {

int run_node_evaluate(const EvaluateArgs& a) {
    Model model = load_model(a.model);
    PredictArgs p;
    p.data = a.data;
    p.feature_file = a.feature_file;
    p.label_file = a.label_file;
    const NodeTaskData data = load_node_prediction_data(p, model.info());
    const Matrix x = node_task_inputs_for(model, data);
    const Matrix probs = softmax_rows(model.forward(data.graph, x, /*training=*/false));
    // The data's classes by name among the model's (the data may lack some, not add any).
    const std::vector<std::string>& classes = model.info().class_names;
    std::vector<int> label(data.labels.size(), -1);
    for (std::size_t i = 0; i < data.labels.size(); ++i) {
        if (data.labels[i] < 0) continue;
        const std::string& name = data.class_names.at(static_cast<std::size_t>(data.labels[i]));
        const auto it = std::find(classes.begin(), classes.end(), name);
        if (it == classes.end())
            throw UserError(data.path + ": node '" + data.node_ids[i] + "' has class '" + name + "', which the model does not know (" +
                            std::to_string(classes.size()) + " classes from training)");
        label[i] = static_cast<int>(it - classes.begin());
    }
    std::vector<std::pair<std::string, std::vector<NodeId>>> parts;
    if (!a.split_file.empty()) {
        const NodeSplit s = read_split_file(a.split_file, data.node_ids, /*allow_empty_parts=*/true);
        parts = {{"train_", s.train}, {"val_", s.val}, {"test_", s.test}};
        for (const auto& [name, nodes] : parts)
            for (const NodeId i : nodes)
                if (label[static_cast<std::size_t>(i)] < 0)
                    throw UserError(a.split_file + ": node '" + data.node_ids[static_cast<std::size_t>(i)] + "' is in the " +
                                    name.substr(0, name.size() - 1) + " set but has no label");
    } else {
        std::vector<NodeId> all;
        for (std::size_t i = 0; i < label.size(); ++i)
            if (label[i] >= 0) all.push_back(static_cast<NodeId>(i));
        if (all.empty()) throw UserError(data.path + ": no labelled node to evaluate", "give --label-file FILE with the nodes' classes");
        parts = {{"test_", all}};
    }
    nlohmann::json m = {{"task", "node"},
                        {"data", a.data},
                        {"model", a.model},
                        {"n_nodes", data.num_nodes()},
                        {"n_edges", data.num_edges},
                        {"n_skipped", data.num_skipped},
                        {"n_labelled", data.num_labelled()},
                        {"threads", thread_count()}};
    std::cout << data.name << " (" << data.num_nodes() << " nodes):";
    for (const auto& [prefix, nodes] : parts) {
        m["n_" + prefix.substr(0, prefix.size() - 1)] = nodes.size();
        if (nodes.empty()) continue;
        Matrix rows(static_cast<Eigen::Index>(nodes.size()), probs.cols()), truth(static_cast<Eigen::Index>(nodes.size()), 1);
        for (std::size_t k = 0; k < nodes.size(); ++k) {
            rows.row(static_cast<Eigen::Index>(k)) = probs.row(nodes[k]);
            truth(static_cast<Eigen::Index>(k), 0) = static_cast<float>(label[static_cast<std::size_t>(nodes[k])]);
        }
        for (const auto& [name, v] : evaluate_predictions("multiclass", rows, truth)) {
            m[prefix + name] = std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
            std::cout << " " << prefix << name << " " << v;
        }
    }
    std::cout << "\n";
    if (!a.metrics_json.empty()) write_json(a.metrics_json, m);
    return 0;
}

int run_evaluate(const EvaluateArgs& a) {
    use_threads(a.threads);
    if (!a.metrics_json.empty()) check_output_path("--metrics-json", a.metrics_json);
    const std::string kind = model_kind(a.model);
    check_molecule_format_applies(a.format, kind, a.model);
    if (kind == "node") {
        if (!a.smiles_column.empty()) throw UsageError("--smiles-column goes with molecule models; " + a.model + " is a node model");
        return run_node_evaluate(a);
    }
    if (!a.feature_file.empty() || !a.label_file.empty() || !a.split_file.empty())
        throw UsageError("--feature-file, --label-file and --split-file go with node models; " + a.model + " is a " + kind + " model");
    if (kind == "graph" || kind == "fingerprint") return run_graph_evaluate(a);
    if (kind == "link" || kind == "edge" || kind == "heuristic") return run_link_evaluate(a);
    throw UserError("evaluate reads node, graph, link and edge models; " + a.model + " is a " + kind + " model");
}

}  // namespace

void add_evaluate_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<EvaluateArgs>();
    CLI::App* c = app.add_subcommand("evaluate", "A trained model's metrics on labelled data (molecules, TU graphs, nodes, or node pairs)");
    c->add_option("--model", a->model, "Model file from gatkit train")->required();
    c->add_option("--data", a->data,
                  "Labelled data: molecules (CSV/SDF with the model's target columns), a TU folder, the node data the model reads (LINQS, "
                  "or an edge list with --label-file), or for link/edge models a CSV of node pairs src,dst,label (1/0, or the edge's class)")
        ->required();
    c->add_option("--smiles-column", a->smiles_column, "molecules: CSV column with the SMILES (default: as in training)");
    add_molecule_format_option(c, a->format);
    c->add_option("--feature-file", a->feature_file, "node model on an edge list: the node feature file it was trained with");
    c->add_option("--label-file", a->label_file, "node model on an edge list: the nodes' classes");
    c->add_option("--split-file", a->split_file,
                  "node: CSV node_id,split (train|val|test): metrics per part (default: every labelled node, reported as test_)");
    c->add_option("--metrics-json", a->metrics_json, "Write the metrics as one JSON object");
    c->add_option("--threads", a->threads, "Threads (default: all cores)")->check(thread_count_check());
    c->callback([&action, a] { action = [a] { return run_evaluate(*a); }; });
}

}  // namespace gatkit::cli
