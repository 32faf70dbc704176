// gatkit predict, evaluate and embed for graph models trained on a TU folder (MUTAG, PROTEINS,
// ...): another folder in the same format (held-out graphs, new ones) read with the model's
// columns and classes.
#include "args.hpp"
#include "common.hpp"
#include "molecule_inputs.hpp"

#include "gatkit/io/atomic_file.hpp"
#include "gatkit/io/tu.hpp"
#include "gatkit/model/explain.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <numeric>

namespace gatkit::cli {

namespace {

// The folder's graphs with the model's feature columns, classes and positional encodings.
// `labels`: DS_graph_labels.txt is required (evaluate) or optional (predict). A --smiles-column
// or --format (molecule files' options) given with it is refused.
GraphDataset read_tu_graphs(const std::string& data, const std::string& model_path, const Model& model, bool labels,
                            const std::string& smiles_column, const std::string& format) {
    if (!smiles_column.empty() || format != "auto")
        throw UserError(std::string(!smiles_column.empty() ? "--smiles-column" : "--format") + " goes with molecule files; " + model_path +
                        " reads TU folders");
    const ModelInfo& info = model.info();
    if (info.tu_layout.empty())
        throw UserError(model_path + ": a TU model written before gatkit kept the columns of TU graphs; train it again to read other folders with it");
    GraphDataset ds = load_tu(data, {.layout = info.tu_layout, .class_names = info.class_names, .require_graph_labels = labels});
    add_positional_encodings(ds, model.config().pe);
    return ds;
}

// Row r of a classifier's predictions as one probability per class (binary: 1 − p for the first
// class, p for the second) into `p`; returns the predicted class, the first of the highest.
std::size_t class_probabilities(const std::string& type, const Matrix& pred, Eigen::Index r, std::vector<double>& p) {
    if (type == "binary") {
        p = {1.0 - pred(r, 0), pred(r, 0)};
    } else {
        for (std::size_t c = 0; c < p.size(); ++c) p[c] = pred(r, static_cast<Eigen::Index>(c));
    }
    std::size_t best = 0;
    for (std::size_t c = 1; c < p.size(); ++c)
        if (p[c] > p[best]) best = c;
    return best;
}

}  // namespace

int run_tu_predict(const PredictArgs& a, std::vector<Model>& members) {
    const Model& model = members.front();
    if (!a.smiles.empty()) throw UserError("--smiles needs a molecule model; " + a.model + " was trained on TU graphs (give their folder with --data)");
    const GraphDataset ds = read_tu_graphs(a.data, a.model, model, /*labels=*/false, a.smiles_column, a.format);
    std::vector<std::string> why;
    const std::vector<std::size_t> kept = graphs_within_full_mask(ds, model.config(), "nodes", why);
    const Matrix pred = kept.empty() ? Matrix(0, model.config().num_classes) : predict_graphs(model_pointers(members), ds, kept);

    // graph_id (the 1-based id of DS_graph_indicator.txt), then the class and one probability per
    // class (binary: p of the second class and 1 − p of the first), or the value (regression).
    const std::string& type = model.config().target_type;
    const auto& classes = model.info().class_names;
    std::string out = "graph_id";
    if (type == "regression") {
        out += "," + csv_field("pred_" + model.info().target_names.front());
    } else {
        out += ",predicted_class";
        for (const auto& c : classes) out += "," + csv_field("p_" + c);
    }
    out += ",error\n";
    std::size_t next = 0;
    for (std::size_t g = 0; g < ds.size(); ++g) {
        out += std::to_string(ds.source_rows[g]);
        const bool ok = why[g].empty();
        const auto r = static_cast<Eigen::Index>(next);
        if (type == "regression") {
            out += "," + (ok ? float_text(pred(r, 0)) : std::string());
        } else {
            std::vector<double> p(classes.size());
            std::size_t best = 0;
            if (ok) best = class_probabilities(type, pred, r, p);
            out += "," + (ok ? csv_field(classes[best]) : std::string());
            for (const double v : p) out += "," + (ok ? float_text(v) : std::string());
        }
        out += "," + csv_field(why[g]) + "\n";
        if (ok) ++next;
    }
    if (!a.attention.empty()) {
        // Each graph alone, so every row of α belongs to one graph: graph id, then the node
        // indices within it (0-based, in DS_graph_indicator.txt order). An ensemble's rows say
        // which member (1..N) they come from.
        std::vector<std::pair<std::size_t, std::string>> graphs;
        for (const std::size_t g : kept) graphs.emplace_back(g, std::to_string(ds.source_rows[g]));
        write_file_atomically(a.attention, per_graph_attention(members, ds, graphs, "graph_id", "node"));
        std::cerr << "attention coefficients written to " << a.attention << "\n";
    }
    const std::string where = write_output(a.out, out);
    std::cerr << ds.size() << " graphs (" << kept.size() << " predicted, " << ds.size() - kept.size() << " with errors) written to " << where << "\n";
    return 0;
}

int run_tu_embed(const std::string& model_path, const std::string& data, const std::string& smiles_column, const std::string& format,
                 const std::string& out_path, std::vector<Model>& members) {
    const GraphDataset ds = read_tu_graphs(data, model_path, members.front(), /*labels=*/false, smiles_column, format);
    std::vector<std::string> why;
    graphs_within_full_mask(ds, members.front().config(), "nodes", why);
    // Each graph alone through each member: its pooled vector (an ensemble's side by side, as for
    // molecules).
    std::vector<bool> run(ds.size());
    for (std::size_t g = 0; g < ds.size(); ++g) run[g] = why[g].empty();
    std::vector<std::string> columns;
    const Matrix emb = pooled_embeddings(members, ds, run, columns);
    std::string out = "graph_id";
    for (const auto& c : columns) out += "," + c;
    out += ",error\n";
    std::size_t embedded = 0;
    for (std::size_t g = 0; g < ds.size(); ++g) {
        out += std::to_string(ds.source_rows[g]);
        const bool ok = why[g].empty();
        embedded += ok ? 1 : 0;
        for (Eigen::Index c = 0; c < emb.cols(); ++c) out += "," + (ok ? float_text(emb(static_cast<Eigen::Index>(g), c)) : std::string());
        out += "," + csv_field(why[g]) + "\n";
    }
    const std::string where = write_output(out_path, out);
    std::cerr << ds.size() << " graphs (" << embedded << " embedded, " << ds.size() - embedded << " with errors), " << emb.cols()
              << " values each, written to " << where << "\n";
    return 0;
}

int run_tu_explain(const TuExplainArgs& a, std::vector<Model>& members) {
    const Model& model = members.front();
    if (members.size() > 1 && a.choice.head)
        throw UserError("--head " + std::to_string(*a.choice.head) + ": " + a.model + " is an ensemble of " + std::to_string(members.size()) +
                            " separately trained models, whose heads do not correspond",
                        "leave out --head: the scores are each member's mean over heads, averaged");
    const GraphDataset ds = read_tu_graphs(a.data, a.model, model, /*labels=*/false, a.smiles_column, a.format);
    // --graph: the one graph of that id (DS_graph_indicator.txt's numbering), else all of them.
    std::vector<std::size_t> chosen(ds.size());
    std::iota(chosen.begin(), chosen.end(), std::size_t{0});
    if (!a.graph.empty()) {
        std::size_t id = 0;
        const auto [end, ec] = std::from_chars(a.graph.data(), a.graph.data() + a.graph.size(), id);
        const auto it = std::find(ds.source_rows.begin(), ds.source_rows.end(), id);
        if (ec != std::errc() || end != a.graph.data() + a.graph.size() || it == ds.source_rows.end())
            throw UserError("--graph " + a.graph + ": no graph with that id in " + a.data + " (" + std::to_string(ds.size()) +
                            " graphs, ids from DS_graph_indicator.txt: " + std::to_string(ds.source_rows.front()) + " to " +
                            std::to_string(ds.source_rows.back()) + ")");
        chosen = {static_cast<std::size_t>(it - ds.source_rows.begin())};
    }
    std::vector<std::string> why;
    graphs_within_full_mask(ds, model.config(), "nodes", why);

    // The node label (the TU value) is the hot column among the first tu_layout[0] of x.
    const Eigen::Index label_columns = model.info().tu_layout.front();
    std::string out = "graph_id,node,node_label,received,rank,error\n";
    std::size_t explained = 0;
    std::string described;
    for (const std::size_t g : chosen) {
        const std::string id = std::to_string(ds.source_rows[g]);
        if (!why[g].empty()) {
            out += id + ",,,,," + csv_field(why[g]) + "\n";
            continue;
        }
        // An ensemble's scores are the mean of its members' (each a mean over heads), as for molecules.
        std::vector<double> received;
        for (Model& member : members) {
            const GraphBatchData batch = forward_molecule(member, ds, g);  // alive while α is read
            const EdgeAttention att = edge_attention(member, a.choice);
            const std::vector<double> r = attention_received(*att.graph, att.weight);
            if (received.empty()) received.assign(r.size(), 0.0);
            for (std::size_t i = 0; i < r.size(); ++i) received[i] += r[i] / static_cast<double>(members.size());
            if (described.empty()) described = describe_attention(att, member, a.choice);
        }
        std::vector<std::size_t> order(received.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return received[i] > received[j]; });
        std::vector<std::size_t> rank(received.size());
        for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = k + 1;
        const Matrix& x = ds.graphs[g].x;
        for (std::size_t i = 0; i < received.size(); ++i) {
            std::string label;
            if (label_columns > 0) {
                Eigen::Index hot = 0;
                x.row(static_cast<Eigen::Index>(i)).head(label_columns).maxCoeff(&hot);
                label = std::to_string(hot);
            }
            out += id + "," + std::to_string(i) + "," + label + "," + float_text(received[i]) + "," + std::to_string(rank[i]) + ",\n";
        }
        ++explained;
    }
    if (chosen.size() == 1 && explained == 1) {
        const Matrix pred = predict_graphs(model_pointers(members), ds, chosen);
        std::cerr << "graph " << ds.source_rows[chosen.front()] << ": ";
        const auto& classes = model.info().class_names;
        const std::string& type = model.config().target_type;
        if (type == "regression") {
            std::cerr << "predicted " << float_text(pred(0, 0));
        } else {
            std::vector<double> p(classes.size());
            const std::size_t best = class_probabilities(type, pred, 0, p);
            std::cerr << "predicted class " << classes.at(best) << " (" << float_text(p[best]) << ")";
        }
        std::cerr << "; " << described << (members.size() > 1 ? ", mean of " + std::to_string(members.size()) + " ensemble members" : "")
                  << "\n";
    }
    const std::string where = write_output(a.out.empty() ? "-" : a.out, out);
    std::cerr << chosen.size() << (chosen.size() == 1 ? " graph" : " graphs") << " (" << explained << " explained, " << chosen.size() - explained
              << " with errors): the attention each node receives written to " << where << "\n";
    return 0;
}

int run_tu_evaluate(const EvaluateArgs& a, std::vector<Model>& members) {
    const Model& model = members.front();
    const GraphDataset ds = read_tu_graphs(a.data, a.model, model, /*labels=*/true, a.smiles_column, a.format);
    std::vector<std::string> why;
    const std::vector<std::size_t> kept = graphs_within_full_mask(ds, model.config(), "nodes", why);
    if (kept.size() < ds.size())
        std::cerr << ds.size() - kept.size() << " graphs above the model's max_full_nodes (" << model.config().max_full_nodes
                  << " nodes, --mask full) not evaluated\n";
    if (kept.empty()) throw UserError(a.data + ": no graph to evaluate (" + std::to_string(ds.size()) + " graphs, all too large for the model)");
    const Matrix pred = predict_graphs(model_pointers(members), ds, kept);
    Matrix targets(static_cast<Eigen::Index>(kept.size()), 1);
    for (std::size_t k = 0; k < kept.size(); ++k) targets(static_cast<Eigen::Index>(k), 0) = ds.targets(static_cast<Eigen::Index>(kept[k]), 0);
    const std::string& type = model.config().target_type;
    const Metrics metrics = evaluate_predictions(type, pred, targets);

    nlohmann::json m = {{"task", "graph"},
                        {"data", a.data},
                        {"model", a.model},
                        {"model_type", "gat"},
                        {"target_type", type},
                        {"n_rows", ds.size()},
                        {"n_graphs", kept.size()},
                        {"n_skipped", ds.size() - kept.size()},
                        {"threads", thread_count()}};
    report_test_metrics(ds.name + " (" + std::to_string(kept.size()) + " graphs, " + type + ")", metrics, m);
    if (!a.metrics_json.empty()) write_json(a.metrics_json, m);
    return 0;
}

}  // namespace gatkit::cli
