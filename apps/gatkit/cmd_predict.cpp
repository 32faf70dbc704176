// gatkit predict — node classes for every node of a graph, or properties of molecules.
#include "args.hpp"
#include "common.hpp"
#include "node_network.hpp"

#include "gatkit/core/parallel.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/metrics.hpp"

#include <charconv>
#include <iostream>
#include <memory>

namespace gatkit::cli {

int run_node_predict(const PredictArgs& a) {
    Model model = load_model(a.model);
    const NodeTaskData data = load_node_prediction_data(a, model.info());
    const Matrix x = node_task_inputs_for(model, data);
    const Matrix probs = softmax_rows(model.forward(data.graph, x, /*training=*/false));
    const std::vector<int> pred = argmax_rows(probs);
    const auto& classes = model.info().class_names;

    std::string out = "node_id,predicted_class";
    for (const auto& c : classes) out += "," + csv_field("p_" + c);
    out += '\n';
    char num[32];
    for (NodeId i = 0; i < data.num_nodes(); ++i) {
        out += csv_field(data.node_ids[i]) + "," + csv_field(classes[pred[i]]);
        for (Eigen::Index k = 0; k < probs.cols(); ++k) {
            const auto r = std::to_chars(num, num + sizeof num, probs(i, k));
            out += ',';
            out.append(num, r.ptr);
        }
        out += '\n';
    }
    if (!a.attention.empty()) {
        write_file_atomically(a.attention, "layer,head,src,dst,self_loop,alpha\n" + attention_rows(model, data.node_ids, ""));
        std::cerr << "attention coefficients written to " << a.attention << "\n";
    }
    write_file_atomically(a.out, out);
    std::cerr << data.num_nodes() << " predictions written to " << a.out << "\n";
    return 0;
}

std::string attention_rows(const Model& model, const std::vector<std::string>& names, const std::string& prefix) {
    std::vector<std::pair<const Graph*, const Matrix*>> layers;
    for (std::size_t l = 0; l < model.num_layers(); ++l) layers.emplace_back(&model.attention_graph(l), &model.attention(l));
    return attention_rows(layers, names, prefix);
}

std::string attention_rows(const std::vector<std::pair<const Graph*, const Matrix*>>& layers, const std::vector<std::string>& names,
                           const std::string& prefix) {
    std::string out;
    char num[32];
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const Graph& g = *layers[l].first;
        const Matrix& alpha = *layers[l].second;
        const auto edges = g.edge_list();
        for (Eigen::Index h = 0; h < alpha.cols(); ++h)
            for (std::size_t e = 0; e < edges.size(); ++e) {
                const auto [src, dst] = edges[e];
                const auto r = std::to_chars(num, num + sizeof num, alpha(static_cast<Eigen::Index>(e), h));
                out += prefix + std::to_string(l) + "," + std::to_string(h) + "," + csv_field(names[static_cast<std::size_t>(src)]) + "," +
                       csv_field(names[static_cast<std::size_t>(dst)]) + "," + (src == dst ? "1" : "0") + ",";
                out.append(num, r.ptr);
                out += '\n';
            }
    }
    return out;
}

namespace {

int run_predict(const PredictArgs& a) {
    use_threads(a.threads);
    check_distinct_outputs({{"--out", a.out}, {"--embeddings", a.embeddings}, {"--attention", a.attention}});
    if (a.top_k_given && a.recommend.empty()) throw UserError("--top-k goes with --recommend (recommendations per node); it sets nothing else");
    const std::string kind = model_kind(a.model);
    const std::string task = kind == "heuristic" ? "link" : kind == "fingerprint" ? "graph" : kind;
    if (!a.task.empty() && a.task != task) throw UserError("--task " + a.task + ": " + a.model + " is a " + task + " model");
    check_molecule_format_applies(a.format, kind, a.model, a.smiles);
    if (kind == "link" || kind == "edge" || kind == "heuristic") {
        if (!a.out.empty() && a.out != "-") check_output_path("--out", a.out);
        if (!a.attention.empty()) {
            if (kind == "heuristic") throw UserError("--attention needs an attention model; " + a.model + " is a link heuristic");
            check_output_path("--attention", a.attention);
        }
        return run_link_predict(a);
    }
    if ((!a.feature_file.empty() || !a.label_file.empty()) && kind != "node")
        throw UserError("--feature-file and --label-file go with node models on edge lists; " + a.model + " is a " + kind + " model");
    if (!a.attention.empty()) check_output_path("--attention", a.attention);
    if (!a.attention.empty() && kind == "fingerprint") throw UserError("--attention needs an attention model; " + a.model + " is a fingerprint model");
    if (!a.pairs.empty() || !a.recommend.empty())
        throw UserError("--pairs and --recommend need a link or edge model; " + a.model + " is a " + kind + " model");
    if (!a.embeddings.empty() && kind == "fingerprint")
        throw UserError("--embeddings needs an attention model; " + a.model + " is a fingerprint model");
    if (a.data.empty() == a.smiles.empty()) throw UsageError("predict needs exactly one of --data and --smiles");
    if (a.smiles.empty() && a.out.empty()) throw UsageError("predict --data needs --out");
    if (!a.out.empty() && a.out != "-") check_output_path("--out", a.out);
    if (!a.embeddings.empty() && a.embeddings != "-") check_output_path("--embeddings", a.embeddings);
    int rc = 0;
    if (kind == "node") {
        if (!a.smiles.empty()) throw UserError("--smiles needs a molecule model; " + a.model + " is a node model");
        rc = run_node_predict(a);
    } else {
        rc = run_graph_predict(a);
    }
    // The vectors the predictions came from, as gatkit embed writes them for the same inputs.
    if (rc == 0 && !a.embeddings.empty()) rc = write_predict_embeddings(a, kind);
    return rc;
}

}  // namespace

void add_predict_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<PredictArgs>();
    CLI::App* c = app.add_subcommand("predict", "Predict with a trained model");
    c->add_option("--model", a->model, "Model file from gatkit train")->required();
    c->add_option("--data", a->data, "Data in the format the model was trained on (node: a LINQS folder/prefix or an edge list)");
    c->add_option("--feature-file", a->feature_file,
                  "node model on an edge list, or --attention of a link/edge model on features: the node feature file it was trained with");
    c->add_option("--label-file", a->label_file, "node model on an edge list: adds the nodes it names (labels are not used)");
    c->add_option("--smiles", a->smiles, "One molecule; its prediction goes to stdout");
    c->add_option("--attention", a->attention,
                  "write α per layer, head and edge (CSV; node ids, or the input row and atom indices); link/edge models: on their whole known network");
    c->add_option("--smiles-column", a->smiles_column, "CSV column with the SMILES (default: as in training)");
    add_molecule_format_option(c, a->format);
    c->add_option("--out", a->out, "Predictions CSV (node: node_id,predicted_class,p_<class>...; molecules: the input columns, "
                                   "one column per target, error)");
    c->add_option("--task", a->task, "link|edge|node|graph: optional, the model file says which");
    c->add_option("--pairs", a->pairs, "link/edge: node pairs to score (CSV with header src,dst,... or 'u v' lines)");
    c->add_option("--recommend", a->recommend, "link: node ids to recommend new links for")->delimiter(',');
    c->add_option("--top-k", a->top_k, "link: recommendations per node")->capture_default_str()->check(integer_at_least(1));
    c->add_option("--embeddings", a->embeddings,
                  "write the vectors the predictions come from: node and link/edge models node_id,z0,...; molecule models "
                  "row,smiles,g0,...,error (the pooled vectors, as gatkit embed)");
    c->add_option("--threads", a->threads, "Threads (default: all cores)")->check(thread_count_check());
    c->callback([&action, a, c] {
        a->top_k_given = c->count("--top-k") > 0;
        action = [a] { return run_predict(*a); };
    });
}

}  // namespace gatkit::cli
