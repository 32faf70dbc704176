// gatkit train/predict for networks: --task link (which node pairs are edges) and --task edge
// (the class of each edge).
#include "args.hpp"
#include "checkpointing.hpp"
#include "common.hpp"
#include "network_inputs.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/graph/link_heuristics.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/io/csv.hpp"
#include "gatkit/io/edgelist.hpp"
#include "gatkit/io/linqs.hpp"
#include "gatkit/io/text_reader.hpp"
#include "gatkit/io/tu.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/nn/positional.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/link_trainer.hpp"
#include "gatkit/train/loss.hpp"
#include "gatkit/train/metrics.hpp"
#include "gatkit/train/split.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <numeric>

namespace gatkit::cli {

namespace {

namespace fs = std::filesystem;

bool is_tu_folder(const std::string& path, const std::string& format) {
    if (format == "tu") return true;
    if (format != "auto") return false;
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return false;
    for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.path().filename().string().ends_with("_A.txt")) return true;
    return false;
}

NetworkDataset load_network_data(const TrainArgs& a) {
    if (is_linqs(a.data, a.format)) {
        if (!a.feature_file.empty() || !a.label_file.empty())
            throw UserError("--feature-file and --label-file go with edge lists; " + a.data + " is a LINQS data set with its own");
        NetworkDataset net = network_from_nodes(load_linqs(a.data));
        if (a.directed) throw UserError("--directed: LINQS citation graphs are read as undirected");
        return net;
    }
    if (a.format != "auto" && a.format != "edgelist" && a.format != "snap" && a.format != "csv")
        throw UserError("--format " + a.format + " is not available for --task " + a.task + " (available: auto, edgelist, snap, csv, linqs" +
                        (a.task == "edge" ? ", tu)" : ")"));
    NetworkOptions o;
    o.directed = a.directed;
    o.format = a.format == "edgelist" ? "auto" : a.format;
    return load_network(a.data, o, a.feature_file, a.label_file);
}

// Node inputs as --node-features asks (default: the data's features, else a learned embedding).
struct NodeInputs {
    std::string spec;
    Matrix x;  // N×F; empty for an embedding table
    std::function<void(Matrix&, Rng&)> augment;
};

// --pe for link/edge tasks: the encoding's columns appended to the node inputs (concat); an
// embedding table is a free vector per node already, so it takes no PE.
void append_pe(NodeInputs& in, const TrainArgs& a, const Graph& graph) {
    if (a.pe == "none") return;
    if (in.x.cols() == 0) throw UserError("--pe " + a.pe + " needs node inputs to append to; --node-features " + in.spec + " is a learned table",
                                          "use --node-features features|degree with --pe, or --node-features lap:K alone");
    if (a.pe_mode != "concat") throw UserError("--pe-mode " + a.pe_mode + " is available for node and graph tasks; link/edge tasks use concat");
    in.x = with_positional_encoding(graph, std::move(in.x), a.pe);
}

NodeInputs make_node_inputs(const std::string& requested, const NetworkDataset& net, const Graph& graph) {
    NodeInputs in;
    in.spec = requested.empty() ? (net.features.cols() > 0 ? "features" : "embedding:64") : requested;
    const NodeInputSpec spec = parse_node_input(in.spec);
    if (spec.kind == "features") {
        if (net.features.cols() == 0)
            throw UserError(net.name + " has no node features",
                            "give --feature-file FILE (id,f1,...), or --node-features degree|lap:K|embedding:D");
        in.x = net.features;
    } else if (spec.kind == "degree") {
        in.x = degree_features(graph);
    } else if (spec.kind == "lap") {
        // No random sign flips: one network keeps one basis (the fixed sign convention) from
        // training to prediction (flips cost 0.3 accuracy on karate's node task).
        in.x = laplacian_pe(graph, {.k = spec.size}).vectors;
    }
    return in;
}

// The data's own features (bag-of-words citations) overfit quickly without regularisation: there
// the defaults are dropout 0.5 and L2 5e-4, as GAT on citation features. Learned embeddings and
// structural inputs train without either (measured on Cora and ego-Facebook: docs/results.md).
bool regularise(const NodeInputs& in) { return parse_node_input(in.spec).kind == "features"; }

ModelConfig link_config(const TrainArgs& a, const std::string& task, const NodeInputs& in, NodeId num_nodes) {
    ModelConfig c;
    c.task = task;
    c.node_input = in.spec;
    const NodeInputSpec spec = parse_node_input(in.spec);
    c.in_features = spec.kind == "embedding" ? spec.size : static_cast<int>(in.x.cols());
    c.num_nodes = spec.kind == "embedding" ? num_nodes : 0;
    c.layers = 2;
    c.heads = 4;
    c.hidden = 32;
    c.out_channels = a.out_channels.value_or(64);
    c.dropout = regularise(in) ? 0.5 : 0.0;
    c.attn_dropout = 0.0;
    apply_model_args(a, c);
    c.decoder = task == "edge" ? "edge-classes" : a.decoder;
    c.mlp_hidden = a.mlp_hidden;
    return c;
}

LinkTrainOptions train_options(const TrainArgs& a, const NodeInputs& in, std::uint64_t seed) {
    LinkTrainOptions o;
    o.epochs = a.epochs.value_or(200);
    o.patience = a.patience.value_or(50);
    o.adam = {.lr = a.lr.value_or(0.005),
              .weight_decay = a.weight_decay.value_or(regularise(in) ? 5e-4 : 0.0),
              .decoupled = a.optimizer == "adamw"};
    o.seed = seed;
    return o;
}

LinkEpochCallback progress_printer(bool progress, const char* metric) {
    return [progress, metric](const LinkEpochStats& s) {
        if (!progress) return;
        std::fprintf(stderr, "epoch %4d  loss %.4f  val %s %.4f  %.1f ms%s\n", s.epoch, s.loss, metric, s.val_metric, s.seconds * 1e3,
                     s.best ? "  *" : "");
    };
}

std::array<double, 3> split_fractions(const TrainArgs& a, const char* fallback) {
    return parse_split_sizes(a.split_sizes.empty() ? fallback : a.split_sizes);
}

// Metric maps into the flat metrics JSON: prefix + name (e.g. "test_" + "roc_auc").
void put(nlohmann::json& j, const std::string& prefix, const std::map<std::string, double>& m) {
    for (const auto& [k, v] : m) j[prefix + k] = v;
}

std::string underscore(std::string s) {
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

const char* kLinkColumns[] = {"roc_auc", "pr_auc", "hits@20", "hits@50", "hits@100", "mrr"};

void print_link_row(const std::string& name, const std::map<std::string, double>& m) {
    std::printf("%-24s", name.c_str());
    for (const char* k : kLinkColumns) std::printf(" %9.4f", m.count(k) ? m.at(k) : NAN);
    std::printf("\n");
}

std::map<std::string, double> heuristic_metrics(const Graph& g, const std::vector<NodePair>& pos, const std::vector<NodePair>& neg,
                                                LinkHeuristic h) {
    return link_metrics(heuristic_scores(g, pos, h), heuristic_scores(g, neg, h));
}

ModelInfo network_info(const NetworkDataset& net) {
    ModelInfo info;
    info.node_ids = net.node_ids;
    info.directed = net.directed;
    info.data_name = net.name;
    info.feature_normalization = "none";
    return info;
}

int train_link(const TrainArgs& a) {
    const bool heuristic_only = a.model_type.starts_with("heuristic:");
    if (!heuristic_only && a.model_type != "gat")
        throw UserError("--model-type " + a.model_type + " is not available for --task link (available: gat, heuristic:common-neighbours, "
                        "heuristic:jaccard, heuristic:adamic-adar)");
    NetworkDataset net = load_network_data(a);
    const NodeId n = net.num_nodes();
    if (!a.quiet) {
        std::cerr << net.name << ": " << n << " nodes, " << net.edges.size() << (net.directed ? " directed" : " undirected") << " edges, "
                  << net.features.cols() << " features\n";
        for (const auto& note : net.report.notes) std::cerr << net.name << ": " << note << "\n";
    }
    Rng root(a.seed);
    const std::uint64_t split_seed = root.next_u64();
    const auto [init_seed, train_seed] = model_seeds(a, root);
    const auto sizes = split_fractions(a, "0.85,0.05,0.10");
    const LinkSplit split =
        split_links(n, net.edges, {.train = sizes[0], .val = sizes[1], .test = sizes[2], .directed = net.directed, .seed = split_seed});
    const Graph graph = training_graph(n, split, net.directed);
    if (!a.quiet)
        std::cerr << "split: " << split.train_pos.size() << " training, " << split.val_pos.size() << " validation, "
                  << split.test_pos.size() << " test edges (validation/test edges removed from the training graph)\n";

    // Heuristics see the same training graph (made symmetric: common neighbours are undirected).
    const Graph sym = net.directed ? make_undirected(graph) : graph;
    std::map<std::string, std::map<std::string, double>> baseline_val, baseline_test;
    for (LinkHeuristic h : {LinkHeuristic::common_neighbours, LinkHeuristic::jaccard, LinkHeuristic::adamic_adar}) {
        baseline_val[to_string(h)] = heuristic_metrics(sym, split.val_pos, split.val_neg, h);
        baseline_test[to_string(h)] = heuristic_metrics(sym, split.test_pos, split.test_neg, h);
    }

    nlohmann::json m = {{"task", "link"},
                        {"data", a.data},
                        {"n_nodes", n},
                        {"n_edges", net.edges.size()},
                        {"n_skipped", net.report.n_skipped()},
                        {"seed", a.seed},
                        {"threads", thread_count()},
                        {"n_train_edges", split.train_pos.size()},
                        {"n_val_edges", split.val_pos.size()},
                        {"n_test_edges", split.test_pos.size()}};
    if (a.init_seed) m["init_seed"] = *a.init_seed;
    for (const auto& [name, metrics] : baseline_test) put(m, underscore(name) + "_test_", metrics);
    for (const auto& [name, metrics] : baseline_val) put(m, underscore(name) + "_val_", metrics);

    std::map<std::string, double> val, test;
    std::string model_name;
    if (heuristic_only) {
        HeuristicLinkModel model;
        model.heuristic = parse_link_heuristic(a.model_type.substr(std::string("heuristic:").size()));
        model.info = network_info(net);
        model.edges = net.edges;
        val = baseline_val.at(to_string(model.heuristic));
        test = baseline_test.at(to_string(model.heuristic));
        for (const auto& [k, v] : test) model.info.metrics["test_" + k] = v;
        save_heuristic_model(a.out, model);
        model_name = to_string(model.heuristic);
        m["model_type"] = a.model_type;
    } else {
        NodeInputs in = make_node_inputs(a.node_features, net, graph);
        append_pe(in, a, graph);
        LinkModel model(link_config(a, "link", in, n), init_seed);
        model.info() = network_info(net);
        LinkTrainOptions options = train_options(a, in, train_seed);
        options.augment = in.augment;
        const NegativeSampler sampler(n, net.edges, net.directed);
        RunCheckpoints checkpoints(a);
        checkpoints.attach(options.checkpoint, model.config(), model.info(), model.parameters(), run_identity(a, options.adam, 0));
        const LinkTrainResult r = with_stop_on_signals([&] {
            return train_link_predictor(model, graph, in.x, split, sampler, options, progress_printer(!a.quiet && stderr_is_terminal(), "roc_auc"));
        });
        model.known_edges = net.edges;
        val = r.val;
        test = r.test;
        for (const auto& [k, v] : test) model.info().metrics["test_" + k] = v;
        model.info().metrics["best_epoch"] = r.best_epoch;
        save_link_model(a.out, model);
        model_name = "gat (" + in.spec + ")";
        m["model_type"] = "gat";
        m["node_features"] = in.spec;
        m["decoder"] = a.decoder;
        m["epochs_run"] = r.epochs_run;
        m["best_epoch"] = r.best_epoch;
        m["train_seconds"] = r.train_seconds;
        m["epoch_seconds_median"] = r.epoch_seconds_median;
        m["n_parameters"] = model.parameter_count();
        std::cout << "epochs " << r.epochs_run << " (best " << r.best_epoch << "), " << r.epoch_seconds_median * 1e3
                  << " ms/epoch (median)\n";
    }
    put(m, "val_", val);
    put(m, "test_", test);
    m["test_ap"] = test.count("pr_auc") ? test.at("pr_auc") : NAN;
    m["peak_rss_mib"] = peak_rss_mib();

    std::printf("%-24s", "test");
    for (const char* k : kLinkColumns) std::printf(" %9s", k);
    std::printf("\n");
    print_link_row(model_name, test);
    for (const auto& [name, metrics] : baseline_test)
        if (!heuristic_only || name != model_name) print_link_row(name, metrics);
    std::cout << "model written to " << a.out << "\n";
    std::cout.flush();
    if (!a.metrics_json.empty()) write_json(a.metrics_json, m);
    return 0;
}

// Labelled edges of one network (edge-list label column), or of many small graphs (TU edge
// labels, split by graph so no graph has edges on both sides).
struct EdgeData {
    NetworkDataset net;
    EdgeSplit split;
};

EdgeData edge_data_from_tu(const TrainArgs& a, std::uint64_t split_seed) {
    GraphDataset tu = load_tu(a.data);
    EdgeData d;
    d.net.name = tu.name;
    NodeId total = 0;
    std::vector<NodeId> offset;
    for (const auto& g : tu.graphs) {
        offset.push_back(total);
        total += g.graph.num_nodes();
    }
    if (tu.graphs.empty() || tu.graphs.front().edge_attr.cols() == 0)
        throw UserError(a.data + ": no edge labels (DS_edge_labels.txt) to predict");
    const Eigen::Index F = tu.graphs.front().x.cols(), K = tu.graphs.front().edge_attr.cols();
    d.net.features.resize(total, F);
    std::vector<std::vector<NodePair>> pairs_of(tu.size());
    std::vector<std::vector<int>> labels_of(tu.size());
    for (std::size_t b = 0; b < tu.size(); ++b) {
        const GraphSample& s = tu.graphs[b];
        d.net.features.middleRows(offset[b], s.graph.num_nodes()) = s.x;
        for (NodeId i = 0; i < s.graph.num_nodes(); ++i) d.net.node_ids.push_back(std::to_string(b + 1) + ":" + std::to_string(i + 1));
        const auto edges = s.graph.edge_list();
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const auto [u, v] = edges[e];
            if (u >= v) continue;  // each bond once (TU lists both directions)
            Eigen::Index label = 0;
            s.edge_attr.row(static_cast<Eigen::Index>(e)).maxCoeff(&label);
            d.net.edges.emplace_back(offset[b] + u, offset[b] + v);
            pairs_of[b].emplace_back(offset[b] + u, offset[b] + v);
            labels_of[b].push_back(static_cast<int>(label));
        }
    }
    for (Eigen::Index k = 0; k < K; ++k) d.net.edge_class_names.push_back(std::to_string(k));
    for (std::size_t i = 0; i < d.net.node_ids.size(); ++i) d.net.index[d.net.node_ids[i]] = static_cast<NodeId>(i);
    const auto sizes = split_fractions(a, "0.8,0.1,0.1");
    Rng rng(split_seed);
    const IndexSplit gs = random_split(tu.size(), sizes, rng);
    const auto take = [&](const std::vector<std::size_t>& graphs, std::vector<NodePair>& pairs, std::vector<int>& labels) {
        for (std::size_t b : graphs) {
            pairs.insert(pairs.end(), pairs_of[b].begin(), pairs_of[b].end());
            labels.insert(labels.end(), labels_of[b].begin(), labels_of[b].end());
        }
    };
    take(gs.train, d.split.train, d.split.train_labels);
    take(gs.val, d.split.val, d.split.val_labels);
    take(gs.test, d.split.test, d.split.test_labels);
    d.net.report.notes.push_back(std::to_string(tu.size()) + " graphs split " + std::to_string(gs.train.size()) + " / " +
                                 std::to_string(gs.val.size()) + " / " + std::to_string(gs.test.size()) + " (train/val/test graphs)");
    return d;
}

EdgeData edge_data_from_network(const TrainArgs& a, std::uint64_t split_seed) {
    EdgeData d;
    d.net = load_network_data(a);
    if (d.net.edge_labels.empty())
        throw UserError(a.data + ": no edge labels to learn", "--task edge needs a CSV edge list with a label column (src,dst,label)");
    if (d.net.edge_class_names.size() < 2)
        throw UserError(a.data + ": every edge has the label '" + d.net.edge_class_names.front() + "'; need at least 2 classes");
    const auto sizes = split_fractions(a, "0.8,0.1,0.1");
    Rng rng(split_seed);
    const IndexSplit s = random_split(d.net.edges.size(), sizes, rng);
    const auto take = [&](const std::vector<std::size_t>& rows, std::vector<NodePair>& pairs, std::vector<int>& labels) {
        for (std::size_t e : rows) {
            pairs.push_back(d.net.edges[e]);
            labels.push_back(d.net.edge_labels[e]);
        }
    };
    take(s.train, d.split.train, d.split.train_labels);
    take(s.val, d.split.val, d.split.val_labels);
    take(s.test, d.split.test, d.split.test_labels);
    return d;
}

int train_edge(const TrainArgs& a) {
    if (a.model_type != "gat") throw UserError("--model-type " + a.model_type + " is not available for --task edge (available: gat)");
    Rng root(a.seed);
    const std::uint64_t split_seed = root.next_u64();
    const auto [init_seed, train_seed] = model_seeds(a, root);
    EdgeData d = is_tu_folder(a.data, a.format) ? edge_data_from_tu(a, split_seed) : edge_data_from_network(a, split_seed);
    const NetworkDataset& net = d.net;
    const NodeId n = net.num_nodes();
    if (!a.quiet) {
        std::cerr << net.name << ": " << n << " nodes, " << net.edges.size() << " labelled edges, " << net.edge_class_names.size()
                  << " edge classes, " << net.features.cols() << " node features\n";
        for (const auto& note : net.report.notes) std::cerr << net.name << ": " << note << "\n";
    }
    // The encoder sees every edge (their existence is known; only the labels are to predict).
    const Graph graph = net.graph();
    NodeInputs in = make_node_inputs(a.node_features, net, graph);
    append_pe(in, a, graph);
    ModelConfig config = link_config(a, "edge", in, n);
    config.num_classes = static_cast<int>(net.edge_class_names.size());
    LinkModel model(config, init_seed);
    model.info() = network_info(net);
    model.info().class_names = net.edge_class_names;
    LinkTrainOptions options = train_options(a, in, train_seed);
    options.augment = in.augment;
    RunCheckpoints checkpoints(a);
    checkpoints.attach(options.checkpoint, model.config(), model.info(), model.parameters(), run_identity(a, options.adam, 0));
    const LinkTrainResult r = with_stop_on_signals([&] {
        return train_edge_classifier(model, graph, in.x, d.split, options, progress_printer(!a.quiet && stderr_is_terminal(), "accuracy"));
    });
    model.known_edges = net.edges;
    for (const auto& [k, v] : r.test) model.info().metrics["test_" + k] = v;
    save_link_model(a.out, model);

    const auto get = [](const std::map<std::string, double>& m, const char* k) { return m.count(k) ? m.at(k) : NAN; };
    std::printf("epochs %d (best %d), %.1f ms/epoch (median)\n", r.epochs_run, r.best_epoch, r.epoch_seconds_median * 1e3);
    std::printf("test edges %zu: accuracy %.4f, macro-F1 %.4f (majority class: accuracy %.4f, macro-F1 %.4f)\n", d.split.test.size(),
                get(r.test, "accuracy"), get(r.test, "macro_f1"), get(r.test, "majority_accuracy"), get(r.test, "majority_macro_f1"));
    std::cout << "model written to " << a.out << "\n";
    std::cout.flush();
    if (!a.metrics_json.empty()) {
        nlohmann::json m = {{"task", "edge"},
                            {"data", a.data},
                            {"n_nodes", n},
                            {"n_edges", net.edges.size()},
                            {"n_skipped", net.report.n_skipped()},
                            {"model_type", "gat"},
                            {"n_parameters", model.parameter_count()},
                            {"seed", a.seed},
                            {"threads", thread_count()},
                            {"epochs_run", r.epochs_run},
                            {"best_epoch", r.best_epoch},
                            {"train_seconds", r.train_seconds},
                            {"epoch_seconds_median", r.epoch_seconds_median},
                            {"n_train_edges", d.split.train.size()},
                            {"n_val_edges", d.split.val.size()},
                            {"n_test_edges", d.split.test.size()},
                            {"node_features", in.spec}};
        if (a.init_seed) m["init_seed"] = *a.init_seed;
        put(m, "val_", r.val);
        put(m, "test_", r.test);
        m["test_f1"] = get(r.test, "macro_f1");
        m["peak_rss_mib"] = peak_rss_mib();
        write_json(a.metrics_json, m);
    }
    return 0;
}

}  // namespace

int run_link_train(const TrainArgs& a) { return a.task == "edge" ? train_edge(a) : train_link(a); }

// ---- prediction -------------------------------------------------------------------------------

namespace {

// What prediction needs from a link, edge or heuristic model file.
struct PairScorer {
    std::optional<LinkModel> model;
    std::optional<HeuristicLinkModel> heuristic;
    Graph known;  // the known edges as given (directed or not): recommendations skip a node's out-neighbours
    Graph sym;    // the same edges both ways: heuristics score on it (as in training)
    const ModelInfo& info() const { return model ? model->info() : heuristic->info; }
    bool edge_task() const { return model && model->config().task == "edge"; }

    explicit PairScorer(const std::string& path) {
        const std::string kind = model_kind(path);
        std::vector<NodePair> edges;
        if (kind == "heuristic") {
            heuristic = load_heuristic_model(path);
            edges = heuristic->edges;
        } else {
            model = load_link_model(path);
            edges = model->known_edges;
        }
        const auto n = static_cast<NodeId>(info().node_ids.size());
        known = build_graph(n, edges, {.undirected = !info().directed});
        sym = info().directed ? build_graph(n, edges, {.undirected = true}) : known;
    }
    // Link: one probability (or heuristic score) per pair, as a P×1 matrix; edge: P×K probabilities.
    Matrix score(const std::vector<NodePair>& pairs) const {
        if (heuristic) {
            const std::vector<double> s = heuristic_scores(sym, pairs, heuristic->heuristic);
            Matrix out(static_cast<Eigen::Index>(s.size()), 1);
            for (std::size_t k = 0; k < s.size(); ++k) out(static_cast<Eigen::Index>(k), 0) = static_cast<float>(s[k]);
            return out;
        }
        Matrix logits = model->decode_with(model->node_vectors, pairs);
        if (edge_task()) return softmax_rows(logits);
        return logits.unaryExpr([](float z) { return 1.0f / (1.0f + std::exp(-z)); });
    }
    std::optional<NodeId> find(const std::string& id) const {
        if (index.empty())
            for (std::size_t i = 0; i < info().node_ids.size(); ++i) index[info().node_ids[i]] = static_cast<NodeId>(i);
        const auto it = index.find(id);
        return it == index.end() ? std::nullopt : std::optional<NodeId>(it->second);
    }

private:
    mutable std::unordered_map<std::string, NodeId> index;
};

// Pairs file: CSV with a header (the first two columns are the pair, src,dst by convention) when
// it ends in .csv[.gz]; otherwise whitespace-separated "u v" lines, '#' comments allowed.
struct PairRow {
    std::vector<std::string> fields;  // the input columns, copied to the output
    std::size_t line = 0;
};

std::pair<std::vector<std::string>, std::vector<PairRow>> read_pairs(const std::string& path) {
    std::vector<std::string> header;
    std::vector<PairRow> rows;
    const bool csv = path.ends_with(".csv") || path.ends_with(".csv.gz");
    if (csv) {
        CsvReader reader(path);
        header = reader.header();
        if (header.size() < 2)
            throw UserError(path + ":1: a pairs file needs two columns (src,dst), the header has " + std::to_string(header.size()));
        std::vector<std::string> fields;
        while (reader.next(fields)) rows.push_back({fields, reader.line_number()});
    } else {
        header = {"src", "dst"};
        TextReader reader(path);
        std::string line;
        while (reader.next(line)) {
            if (line.empty() || line[0] == '#') continue;
            std::vector<std::string> f;
            std::size_t p = 0;
            while ((p = line.find_first_not_of(" \t\r", p)) != std::string::npos) {
                const std::size_t e = line.find_first_of(" \t\r", p);
                f.push_back(line.substr(p, e == std::string::npos ? std::string::npos : e - p));
                p = e;
            }
            if (f.empty()) continue;
            if (f.size() != 2)
                throw UserError(reader.where() + ": expected 2 columns (src dst), got " + std::to_string(f.size()) + ": '" + line + "'");
            rows.push_back({std::move(f), reader.line_number()});
        }
    }
    return {header, rows};
}

// A pairs-file row with another field count than its header (an unquoted comma?) cannot be read:
// which field is which cannot be told. Says so ("" when the count is right).
std::string field_count_problem(const std::vector<std::string>& f, const std::vector<std::string>& header) {
    if (f.size() == header.size()) return {};
    std::string why = "row has " + std::to_string(f.size()) + " fields, the header has " + std::to_string(header.size()) + " (an unquoted comma?)";
    if (f.size() > header.size()) {
        std::string extra;
        for (std::size_t k = header.size(); k < f.size(); ++k) extra += (extra.empty() ? "" : ",") + f[k];
        why += "; beyond the header: " + clip(extra, 60);
    }
    return why;
}

// The pair a row's first two fields name, or why it has none (an unknown node, a node paired
// with itself): "" and `pair` set when it can be scored.
std::string pair_problem(const std::vector<std::string>& f, const PairScorer& s, NodePair& pair) {
    const auto u = s.find(f[0]), v = s.find(f[1]);
    if (!u || !v) return "unknown node '" + (!u ? f[0] : f[1]) + "'";
    if (*u == *v) return "a node paired with itself";
    pair = {*u, *v};
    return {};
}

int predict_pairs(const PredictArgs& a, const PairScorer& s) {
    const auto [header, rows] = read_pairs(a.pairs);
    std::vector<NodePair> pairs;
    std::vector<std::string> error(rows.size());
    std::vector<std::size_t> scored;  // rows with a pair, in order
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& f = rows[r].fields;
        if (f.size() < 2) {
            error[r] = "missing src or dst";
            continue;
        }
        // Not scored: the output keeps the header's width and says why in `error`.
        NodePair pair;
        error[r] = field_count_problem(f, header);
        if (error[r].empty()) error[r] = pair_problem(f, s, pair);
        if (!error[r].empty()) continue;
        pairs.push_back(pair);
        scored.push_back(r);
    }
    const Matrix p = s.score(pairs);
    const auto& classes = s.info().class_names;
    std::vector<std::string> appended;
    if (s.edge_task()) {
        appended.push_back("predicted_class");
        for (const auto& c : classes) appended.push_back("p_" + c);
    } else {
        appended.push_back("score");
    }
    appended.push_back("error");
    std::string out = header_beside_input(header, appended);
    std::size_t next = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (std::size_t c = 0; c < header.size(); ++c) out += (c ? "," : "") + csv_field(c < rows[r].fields.size() ? rows[r].fields[c] : "");
        const bool ok = next < scored.size() && scored[next] == r;
        const auto row = static_cast<Eigen::Index>(next);
        if (s.edge_task()) {
            Eigen::Index best = 0;
            if (ok) p.row(row).maxCoeff(&best);
            out += "," + (ok ? csv_field(classes[static_cast<std::size_t>(best)]) : std::string());
            for (std::size_t c = 0; c < classes.size(); ++c) out += "," + (ok ? float_text(p(row, static_cast<Eigen::Index>(c))) : std::string());
        } else {
            out += "," + (ok ? float_text(p(row, 0)) : std::string());
        }
        out += "," + csv_field(error[r]) + "\n";
        if (ok) ++next;
    }
    write_output(a.out, out);
    const std::size_t failed = rows.size() - scored.size();
    std::cerr << rows.size() << " pairs scored into " << a.out;
    if (failed) std::cerr << " (" << failed << " with an error, see its error column)";
    std::cerr << "\n";
    return 0;
}

int recommend(const PredictArgs& a, const PairScorer& s) {
    if (s.edge_task()) throw UserError("--recommend needs a link model; " + a.model + " classifies edges");
    if (a.top_k < 1) throw UserError("--top-k must be at least 1, got " + std::to_string(a.top_k));
    const NodeId n = static_cast<NodeId>(s.info().node_ids.size());
    std::string out = "node_id,rank,candidate_id,score,error\n";
    for (const std::string& id : a.recommend) {
        const auto u = s.find(id);
        if (!u) {
            out += csv_field(id) + ",,,,unknown node\n";
            continue;
        }
        // Candidates: every other node v without a known edge u → v (either way when undirected).
        std::vector<char> skip(static_cast<std::size_t>(n), 0);
        skip[static_cast<std::size_t>(*u)] = 1;
        const Graph& g = s.known;
        for (EdgeId e = g.out_offsets()[*u]; e < g.out_offsets()[*u + 1]; ++e) skip[static_cast<std::size_t>(g.out_dst()[e])] = 1;
        std::vector<NodePair> pairs;
        for (NodeId v = 0; v < n; ++v)
            if (!skip[static_cast<std::size_t>(v)]) pairs.emplace_back(*u, v);
        const Matrix p = s.score(pairs);
        std::vector<std::size_t> order(pairs.size());
        std::iota(order.begin(), order.end(), 0);
        const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(a.top_k), order.size());
        // Highest score first; ties by the candidate's row, so the order is reproducible.
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), [&](std::size_t x, std::size_t y) {
            const float px = p(static_cast<Eigen::Index>(x), 0), py = p(static_cast<Eigen::Index>(y), 0);
            return px != py ? px > py : x < y;
        });
        if (k == 0) out += csv_field(id) + ",,,,no candidate (the node is linked to every other node)\n";
        for (std::size_t r = 0; r < k; ++r) {
            const std::size_t c = order[r];
            out += csv_field(id) + "," + std::to_string(r + 1) + "," +
                   csv_field(s.info().node_ids[static_cast<std::size_t>(pairs[c].second)]) + "," + float_text(p(static_cast<Eigen::Index>(c), 0)) +
                   ",\n";
        }
    }
    write_output(a.out, out);
    std::cerr << "top " << a.top_k << " recommendations for " << a.recommend.size() << " node(s) written to " << (a.out == "-" ? "stdout" : a.out) << "\n";
    return 0;
}

void write_embeddings(const std::string& path, const PairScorer& s) {
    if (!s.model) throw UserError("--embeddings needs an attention model; a heuristic has no node vectors");
    const Matrix& z = s.model->node_vectors;
    std::string out = "node_id";
    for (Eigen::Index c = 0; c < z.cols(); ++c) out += ",z" + std::to_string(c);
    out += '\n';
    for (Eigen::Index i = 0; i < z.rows(); ++i) {
        out += csv_field(s.info().node_ids[static_cast<std::size_t>(i)]);
        for (Eigen::Index c = 0; c < z.cols(); ++c) out += "," + float_text(z(i, c));
        out += '\n';
    }
    const std::string where = write_output(path, out);
    std::cerr << z.rows() << " node vectors (" << z.cols() << " wide) written to " << where << "\n";
}

}  // namespace

// α of every layer, head and edge of a link/edge model, encoded on its whole known network (the
// edges the model file keeps; training encoded the training graph, which held out the
// validation and test edges). Inputs are rebuilt as in training: degree and Laplacian inputs
// from the network, the learned table for embeddings, the feature file for features.
void write_link_attention(const PredictArgs& a, PairScorer& s) {
    LinkModel& model = *s.model;
    const ModelConfig& c = model.config();
    const ModelInfo& info = model.info();
    NetworkDataset net;
    net.name = info.data_name;
    net.directed = info.directed;
    net.node_ids = info.node_ids;
    for (std::size_t i = 0; i < net.node_ids.size(); ++i) net.index[net.node_ids[i]] = static_cast<NodeId>(i);
    net.edges = model.known_edges;
    const NodeId n = net.num_nodes();
    if (parse_node_input(c.node_input).kind == "features") {
        if (a.feature_file.empty())
            throw UserError("--attention: " + a.model + " reads node features, which model files do not keep",
                            "give --feature-file FILE, the features it was trained with");
        read_node_features(a.feature_file, net);
        if (net.num_nodes() != n)
            throw UserError(a.feature_file + ": names node '" + net.node_ids[static_cast<std::size_t>(n)] + "', which " + a.model +
                            " does not know");
    } else if (!a.feature_file.empty()) {
        throw UserError("--feature-file: " + a.model + " reads " + c.node_input + " inputs, not node features");
    }
    const Graph graph = net.graph();
    NodeInputs in = make_node_inputs(c.node_input, net, graph);
    if (in.x.cols() > 0) in.x = with_positional_encoding(graph, std::move(in.x), c.pe);
    if (parse_node_input(c.node_input).kind != "embedding" && in.x.cols() != c.in_features)
        throw UserError("--attention: the nodes have " + std::to_string(in.x.cols()) + " input columns, " + a.model + " expects " +
                        std::to_string(c.in_features));
    model.encode(graph, in.x, /*training=*/false);
    std::vector<std::pair<const Graph*, const Matrix*>> layers;
    for (std::size_t l = 0; l < model.num_layers(); ++l)
        layers.emplace_back(&model.layer(l).attention_graph(), &model.layer(l).attention());
    write_file_atomically(a.attention, "layer,head,src,dst,self_loop,alpha\n" + attention_rows(layers, info.node_ids, ""));
    std::cerr << "attention coefficients written to " << a.attention << "\n";
}

int run_link_evaluate(const EvaluateArgs& a) {
    if (!a.smiles_column.empty()) throw UsageError("--smiles-column goes with molecule models; " + a.model + " is a " + model_kind(a.model) + " model");
    const bool csv = a.data.ends_with(".csv") || a.data.ends_with(".csv.gz");
    if (!csv)
        throw UserError(a.data + ": a link or edge model is evaluated on a CSV of labelled node pairs (header src,dst,label; .csv or .csv.gz)",
                        "a link model keeps its network; give it the pairs to score with their labels");
    const PairScorer s(a.model);
    const auto [header, rows] = read_pairs(a.data);
    const auto at = std::find(header.begin(), header.end(), "label");
    if (at == header.end()) {
        std::string columns;
        for (const auto& h : header) columns += (columns.empty() ? "" : ", ") + h;
        throw UserError(a.data + ":1: no 'label' column (the header has " + columns + ")",
                        s.edge_task() ? "label: the edge's class" : "label: 1 for an edge, 0 for a pair that is not one");
    }
    const auto label_col = static_cast<std::size_t>(at - header.begin());
    const auto& classes = s.info().class_names;
    // Each row: its pair and label, or why it is left out (an unknown node, a node paired with
    // itself, another field count than the header's, no label). A label that is not one the
    // model can be scored against is an error: it says the file is not what was meant.
    std::vector<NodePair> pairs;
    std::vector<int> labels;
    std::size_t skipped = 0;
    std::string first_reason;
    const auto skip = [&](const PairRow& row, const std::string& why) {
        if (skipped++ == 0) first_reason = a.data + ":" + std::to_string(row.line) + ": " + why;
    };
    for (const PairRow& row : rows) {
        const auto& f = row.fields;
        if (const std::string why = field_count_problem(f, header); !why.empty()) {
            skip(row, why);
            continue;
        }
        const std::string label = trimmed(f[label_col]);
        if (label.empty()) {
            skip(row, "no label");
            continue;
        }
        int y = -1;
        if (s.edge_task()) {
            const auto it = std::find(classes.begin(), classes.end(), label);
            if (it == classes.end()) {
                std::string known;
                for (const auto& c : classes) known += (known.empty() ? "" : ", ") + c;
                throw UserError(a.data + ":" + std::to_string(row.line) + ": label '" + clip(label, 60) + "' is not one of the model's classes (" +
                                clip(known, 200) + ")");
            }
            y = static_cast<int>(it - classes.begin());
        } else if (label == "0" || label == "1") {
            y = label == "1" ? 1 : 0;
        } else {
            throw UserError(a.data + ":" + std::to_string(row.line) + ": label '" + clip(label, 60) +
                            "' is not 0 or 1 (1: the pair is an edge, 0: it is not)");
        }
        NodePair pair;
        if (const std::string why = pair_problem(f, s, pair); !why.empty()) {
            skip(row, why);
            continue;
        }
        pairs.push_back(pair);
        labels.push_back(y);
    }
    if (skipped > 0) std::cerr << skipped << " of " << rows.size() << " pairs left out, not evaluated (first: " << first_reason << ")\n";
    if (pairs.empty()) throw UserError(a.data + ": no pair to evaluate (" + std::to_string(rows.size()) + " rows)");
    const Matrix p = s.score(pairs);
    std::map<std::string, double> metrics;
    if (s.edge_task()) {
        const std::vector<int> pred = argmax_rows(p);
        std::vector<NodeId> all(labels.size());
        std::iota(all.begin(), all.end(), NodeId{0});
        metrics["accuracy"] = accuracy(pred, labels, all);
        metrics["macro_f1"] = macro_f1(pred, labels, static_cast<int>(classes.size()));
        metrics["f1"] = metrics["macro_f1"];
    } else {
        std::vector<double> pos, neg;
        for (std::size_t k = 0; k < labels.size(); ++k) (labels[k] == 1 ? pos : neg).push_back(p(static_cast<Eigen::Index>(k), 0));
        if (pos.empty() || neg.empty())
            throw UserError(a.data + ": " + std::to_string(pairs.size()) + " pairs, all labelled " + (pos.empty() ? "0" : "1") +
                            "; ROC-AUC and the ranking metrics need pairs labelled 1 (edges) and 0 (non-edges)");
        metrics = link_metrics(pos, neg);
    }
    const std::string task = s.edge_task() ? "edge" : "link";
    nlohmann::json m = {{"task", task},
                        {"data", a.data},
                        {"model", a.model},
                        {"model_type", s.heuristic ? "heuristic:" + to_string(s.heuristic->heuristic) : std::string("gat")},
                        {"n_rows", rows.size()},
                        {"n_pairs", pairs.size()},
                        {"n_skipped", skipped},
                        {"threads", thread_count()}};
    if (!s.edge_task()) {
        const auto n_pos = static_cast<std::size_t>(std::count(labels.begin(), labels.end(), 1));
        m["n_positive"] = n_pos;
        m["n_negative"] = labels.size() - n_pos;
    }
    report_test_metrics(a.data + " (" + std::to_string(pairs.size()) + " pairs, " + task + ")", metrics, m);
    if (!a.metrics_json.empty()) write_json(a.metrics_json, m);
    return 0;
}

int run_link_predict(const PredictArgs& a) {
    const int jobs = !a.pairs.empty() + !a.recommend.empty();
    if (jobs != 1 && a.embeddings.empty() && a.attention.empty())
        throw UsageError("a link or edge model predicts with exactly one of --pairs FILE and --recommend ID[,ID...] (or only writes --embeddings or --attention)");
    if (jobs > 1) throw UsageError("give one of --pairs and --recommend, not both");
    if (jobs == 1 && a.out.empty()) throw UserError("--pairs and --recommend need --out");
    if (!a.data.empty() || !a.smiles.empty())
        throw UserError("a link or edge model keeps its network; use --pairs or --recommend instead of --data/--smiles");
    if (!a.embeddings.empty() && a.embeddings != "-") check_output_path("--embeddings", a.embeddings);
    PairScorer s(a.model);
    if (!a.embeddings.empty()) write_embeddings(a.embeddings, s);
    if (!a.attention.empty()) write_link_attention(a, s);
    if (!a.pairs.empty()) return predict_pairs(a, s);
    if (!a.recommend.empty()) return recommend(a, s);
    return 0;
}

}  // namespace gatkit::cli
