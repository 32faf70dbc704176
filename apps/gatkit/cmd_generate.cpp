// gatkit generate — synthetic graphs written in the formats gatkit reads.
//
//   --kind planted (default)  planted-partition graph with classes and features: LINQS files
//                             PREFIX.content + PREFIX.cites, or with --edge-list an edge list
//                             (plus optional --features-out / --labels-out CSV files)
//   --kind erdos-renyi | power-law | small-world
//                             Boost.Graph's random graphs: an edge list written to --out FILE
//                             (SNAP text; CSV when FILE ends in .csv; gzip when it ends in .gz)
#include "common.hpp"

#include "gatkit/graph/generators.hpp"
#include "gatkit/io/edgelist.hpp"
#include "gatkit/io/linqs.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <vector>

namespace gatkit::cli {

namespace {

struct GenerateOptions {
    std::string kind = "planted";
    std::string out;
    PlantedPartitionOptions planted;  // nodes, avg_degree and seed are shared by every kind
    double alpha = 0.5;               // power-law: P(degree = k) ∝ k^-(1 + 1/alpha), so 0.5 gives k^-3
    double beta = 75.0;               // power-law: the largest out-degree
    int k = 6;                        // small-world: ring neighbours per node
    double rewire = 0.1;              // small-world: rewiring probability
    bool edge_list = false;           // planted: write an edge list instead of LINQS files
    std::string features_out, labels_out;
};

// The options that only some kinds read; giving one to another kind is a user error rather
// than silently ignored.
const std::map<std::string, std::vector<std::string>>& kind_options() {
    static const std::map<std::string, std::vector<std::string>> m = {
        {"--classes", {"planted"}},        {"--homophily", {"planted"}},      {"--features", {"planted"}},
        {"--words", {"planted"}},          {"--feature-signal", {"planted"}}, {"--edge-list", {"planted"}},
        {"--features-out", {"planted"}},   {"--labels-out", {"planted"}},     {"--avg-degree", {"planted", "erdos-renyi"}},
        {"--alpha", {"power-law"}},        {"--beta", {"power-law"}},         {"--k", {"small-world"}},
        {"--rewire", {"small-world"}},
    };
    return m;
}

void check_kind_options(const CLI::App& c, const std::string& kind) {
    for (const auto& [flag, kinds] : kind_options()) {
        if (c.count(flag) == 0 || std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) continue;
        std::string list;
        for (const auto& k : kinds) list += (list.empty() ? "" : " or ") + k;
        throw UserError(flag + " does not apply to --kind " + kind, "it is read by --kind " + list);
    }
}

NetworkDataset random_network(const GenerateOptions& o) {
    const NodeId n = o.planted.nodes;
    EdgePairs edges;
    if (o.kind == "erdos-renyi") edges = generate_erdos_renyi(n, o.planted.avg_degree, o.planted.seed);
    else if (o.kind == "power-law") edges = generate_power_law(n, o.alpha, o.beta, o.planted.seed);
    else edges = generate_small_world(n, o.k, o.rewire, o.planted.seed);
    NetworkDataset net;
    net.name = o.kind;
    for (NodeId i = 0; i < n; ++i) {
        net.node_ids.push_back(std::to_string(i));
        net.index.emplace(net.node_ids.back(), i);
    }
    net.edges = std::move(edges);
    net.features.resize(n, 0);
    return net;
}

// "N nodes, M edges" plus how many nodes the edge list cannot show.
std::string summary(const NetworkDataset& net) {
    std::vector<char> touched(static_cast<std::size_t>(net.num_nodes()), 0);
    for (const auto& [u, v] : net.edges) touched[u] = touched[v] = 1;
    const auto isolated = std::count(touched.begin(), touched.end(), 0);
    std::string s = std::to_string(net.num_nodes()) + " nodes, " + std::to_string(net.edges.size()) + " undirected edges";
    if (isolated > 0) s += " (" + std::to_string(isolated) + " isolated nodes are not in the file)";
    return s;
}

int run_generate(const GenerateOptions& o) {
    if (o.kind == "planted" && !o.edge_list) {
        const NodeDataset data = generate_planted_partition(o.planted);
        write_linqs(o.out, data);
        std::cerr << "wrote " << o.out << ".content and " << o.out << ".cites: " << data.num_nodes() << " nodes, "
                  << data.graph.num_edges() / 2 << " undirected edges, " << data.num_classes() << " classes\n";
        return 0;
    }
    if (o.kind == "planted") {
        const NetworkDataset net = network_from_nodes(generate_planted_partition(o.planted));
        write_edge_list(o.out, net);
        if (!o.features_out.empty()) write_node_features(o.features_out, net);
        if (!o.labels_out.empty()) write_node_labels(o.labels_out, net);
        std::cerr << "wrote " << o.out << ": " << summary(net) << ", " << net.node_class_names.size() << " classes\n";
        return 0;
    }
    const NetworkDataset net = random_network(o);
    write_edge_list(o.out, net);
    std::cerr << "wrote " << o.out << ": " << o.kind << ", " << summary(net) << "\n";
    return 0;
}

}  // namespace

void add_generate_command(CLI::App& app, Action& action) {
    auto o = std::make_shared<GenerateOptions>();
    CLI::App* c = app.add_subcommand("generate", "Write a synthetic graph: planted partition (LINQS files) or a random edge list");
    c->add_option("--kind", o->kind, "planted | erdos-renyi | power-law | small-world")
        ->check(CLI::IsMember({"planted", "erdos-renyi", "power-law", "small-world"}))
        ->capture_default_str();
    c->add_option("--out", o->out,
                  "planted: output prefix (PREFIX.content, PREFIX.cites); other kinds and --edge-list: the edge list file")
        ->required();
    c->add_option("--nodes", o->planted.nodes, "Nodes")->capture_default_str();
    c->add_option("--avg-degree", o->planted.avg_degree, "Average degree (planted, erdos-renyi)")->capture_default_str();
    c->add_option("--seed", o->planted.seed, "Seed")->capture_default_str()->check(seed_value());
    c->add_option("--classes", o->planted.classes, "planted: classes (blocks)")->capture_default_str();
    c->add_option("--homophily", o->planted.homophily, "planted: fraction of edges inside a class")->capture_default_str();
    c->add_option("--features", o->planted.features, "planted: vocabulary size (feature columns)")->capture_default_str();
    c->add_option("--words", o->planted.words_per_node, "planted: words drawn per node")->capture_default_str();
    c->add_option("--feature-signal", o->planted.feature_signal, "planted: probability a word comes from the class topic")
        ->capture_default_str();
    c->add_flag("--edge-list", o->edge_list, "planted: write --out as an edge list instead of LINQS files");
    c->add_option("--features-out", o->features_out, "planted --edge-list: also write node features (CSV id,f0,...)");
    c->add_option("--labels-out", o->labels_out, "planted --edge-list: also write node classes (CSV id,label)");
    c->add_option("--alpha", o->alpha, "power-law: degree decay; degrees follow k^-(1+1/alpha)")->capture_default_str();
    c->add_option("--beta", o->beta, "power-law: the largest out-degree (<= nodes)")->capture_default_str();
    c->add_option("--k", o->k, "small-world: ring neighbours per node (even)")->capture_default_str();
    c->add_option("--rewire", o->rewire, "small-world: probability of rewiring each edge, in [0, 1]")->capture_default_str();
    c->callback([&action, o, c] {
        action = [o, c] {
            check_kind_options(*c, o->kind);
            if ((!o->features_out.empty() || !o->labels_out.empty()) && !o->edge_list)
                throw UserError("--features-out and --labels-out need --edge-list",
                                "without it, planted writes LINQS files, which hold features and classes already");
            check_output_path("--out", o->kind == "planted" && !o->edge_list ? o->out + ".content" : o->out);
            check_output_path("--features-out", o->features_out);
            check_output_path("--labels-out", o->labels_out);
            check_distinct_outputs({{"--out", o->out}, {"--features-out", o->features_out}, {"--labels-out", o->labels_out}});
            return run_generate(*o);
        };
    });
}

}  // namespace gatkit::cli
