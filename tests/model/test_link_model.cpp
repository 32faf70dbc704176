// Link and edge models: gradients through encoder + decoder + embedding table, training on a
// planted-partition graph, determinism, model files.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/graph/generators.hpp"
#include "gatkit/model/link_model.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/link_trainer.hpp"
#include "gatkit/train/loss.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace gatkit;
using gatkit::test::random_matrix;

namespace {

ModelConfig small_config(const std::string& task, const std::string& input, int in_features, int nodes) {
    ModelConfig c;
    c.task = task;
    c.node_input = input;
    c.in_features = in_features;
    c.num_nodes = nodes;
    c.layers = 2;
    c.heads = 2;
    c.hidden = 3;
    c.out_channels = 4;
    c.dropout = 0;
    c.attn_dropout = 0;
    c.mlp_hidden = 5;
    c.num_classes = task == "edge" ? 3 : 0;
    return c;
}

// Finite differences of Σ decode ⊙ w (support/gradcheck.hpp); at most a tenth of the sampled
// entries may sit on a kink.
void check_model_gradients(LinkModel& model, const Graph& g, const Matrix& x, const std::vector<NodePair>& pairs, const Matrix& w) {
    auto loss = [&] {
        model.encode(g, x, false);
        return static_cast<double>((model.decode(pairs, false).array() * w.array()).cast<double>().sum());
    };
    auto params = model.parameters();
    zero_grads(params);
    model.encode(g, x, false);
    model.decode(pairs, false);
    model.backward(w);
    const auto n = gatkit::test::check_float_gradients(params, loss);
    CHECK(n.checked > 20);
    CHECK(n.kinks * 10 <= n.checked);
}

struct Planted {
    NodeDataset data;
    std::vector<NodePair> edges;
};

Planted planted(int nodes, std::uint64_t seed, double homophily = 0.9) {
    Planted p;
    p.data = generate_planted_partition({.nodes = nodes, .classes = 4, .avg_degree = 8, .homophily = homophily, .features = 40,
                                         .words_per_node = 8, .feature_signal = 0.6, .seed = seed});
    for (const auto& [u, v] : p.data.graph.edge_list())
        if (u < v) p.edges.emplace_back(u, v);
    return p;
}

}  // namespace

TEST_CASE("Link model gradients match finite differences (features and embedding inputs, all decoders)", "[model][link][gradcheck]") {
    Rng rng(21);
    const Graph g = build_graph(9, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 0}, {2, 6}}, {.undirected = true});
    const std::vector<NodePair> pairs = {{0, 1}, {0, 4}, {2, 6}, {3, 8}, {5, 5}, {7, 1}};
    for (const std::string task : {"link", "edge"})
        for (const std::string decoder : {"dot", "hadamard-mlp"})
            for (const std::string input : {"features", "embedding:3"}) {
                if (task == "edge" && decoder != "dot") continue;
                CAPTURE(task, decoder, input);
                ModelConfig c = small_config(task, input, input == "features" ? 5 : 3, 9);
                c.decoder = decoder;
                LinkModel model(c, 7);
                const Matrix x = input == "features" ? random_matrix<float>(9, 5, rng) : Matrix();
                const Matrix w = random_matrix<float>(static_cast<Eigen::Index>(pairs.size()), task == "edge" ? 3 : 1, rng);
                check_model_gradients(model, g, x, pairs, w);
                CHECK(model.has_embedding_table() == (input != "features"));
                // The bound model-file loaders check before building (model_file.hpp) holds.
                double count = 0;
                for (auto* p : model.parameters()) count += static_cast<double>(p->value.size());
                CHECK(c.parameter_bound() >= count);
            }
}

TEST_CASE("Node input specs parse and reject nonsense", "[model][link]") {
    CHECK(parse_node_input("features").kind == "features");
    CHECK(parse_node_input("degree").kind == "degree");
    CHECK(parse_node_input("lap:8").size == 8);
    CHECK(parse_node_input("embedding:64").kind == "embedding");
    for (const char* bad : {"lap", "lap:", "lap:0", "lap:x", "embedding:-1", "onehot", "lap:3x"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(parse_node_input(bad), ConfigError);
    }
}

TEST_CASE("Link training on a planted partition beats chance by far, and is thread-independent", "[train][link]") {
    const Planted p = planted(400, 3);
    const NodeId n = p.data.num_nodes();
    const LinkSplit split = split_links(n, p.edges, {.seed = 1});
    const Graph g = training_graph(n, split, false);
    const NegativeSampler sampler(n, p.edges, false);
    Matrix x = p.data.features;
    row_normalize(x);
    const int saved = thread_count();
    Matrix z[2];
    std::map<std::string, double> test[2];
    for (int t = 1; t <= 2; ++t) {
        set_thread_count(t);
        ModelConfig c = small_config("link", "features", static_cast<int>(x.cols()), 0);
        c.hidden = 8;
        c.out_channels = 16;
        LinkModel model(c, 11);
        const LinkTrainResult r = train_link_predictor(model, g, x, split, sampler,
                                                       {.epochs = 150, .patience = 0, .adam = {.lr = 0.01}, .seed = 5});
        CHECK(r.epochs_run == 150);
        CHECK(r.best_epoch >= 1);
        z[t - 1] = model.node_vectors;
        test[t - 1] = r.test;
    }
    set_thread_count(saved);
    // Edges of a planted partition are random within classes, so knowing both classes exactly is the
    // best any model can do: P(same class) is 0.9 for an edge and 0.25 for a non-edge, which caps
    // ROC-AUC at 0.9·0.75 + ½(0.9·0.25 + 0.1·0.75) = 0.825. Chance is 0.5.
    CHECK(test[0].at("roc_auc") > 0.76);
    CHECK(test[0].at("pr_auc") > 0.7);
    for (const char* k : {"hits@20", "hits@50", "hits@100", "mrr"}) CHECK(test[0].count(k) == 1);
    CHECK(z[0] == z[1]);
    CHECK(test[0] == test[1]);
}

TEST_CASE("Edge classification learns whether an edge joins two classes", "[train][link]") {
    const Planted p = planted(400, 4, 0.5);
    EdgeSplit split;
    Rng rng(2);
    for (const auto& e : p.edges) {
        const int label = p.data.labels[e.first] == p.data.labels[e.second] ? 1 : 0;
        const double u = rng.uniform();
        auto& pairs = u < 0.7 ? split.train : u < 0.85 ? split.val : split.test;
        auto& labels = u < 0.7 ? split.train_labels : u < 0.85 ? split.val_labels : split.test_labels;
        pairs.push_back(e);
        labels.push_back(label);
    }
    Matrix x = p.data.features;
    row_normalize(x);
    ModelConfig c = small_config("edge", "features", static_cast<int>(x.cols()), 0);
    c.num_classes = 2;
    c.hidden = 8;
    c.out_channels = 16;
    c.mlp_hidden = 16;
    LinkModel model(c, 3);
    const LinkTrainResult r = train_edge_classifier(model, p.data.graph, x, split, {.epochs = 150, .patience = 0, .adam = {.lr = 0.01}, .seed = 1});
    INFO("test accuracy " << r.test.at("accuracy") << ", majority " << r.test.at("majority_accuracy"));
    CHECK(r.test.at("accuracy") > r.test.at("majority_accuracy") + 0.02);
    CHECK(r.test.at("macro_f1") > r.test.at("majority_macro_f1") + 0.1);
}

TEST_CASE("Link model files round-trip exactly and reject damage", "[model][link][model_file]") {
    test::TempDir dir;
    const Planted p = planted(120, 5);
    const NodeId n = p.data.num_nodes();
    const LinkSplit split = split_links(n, p.edges, {.seed = 2});
    ModelConfig c = small_config("link", "embedding:6", 6, n);
    c.decoder = "hadamard-mlp";
    LinkModel model(c, 4);
    model.info().node_ids = p.data.node_ids;
    train_link_predictor(model, training_graph(n, split, false), Matrix(), split, NegativeSampler(n, p.edges, false),
                         {.epochs = 5, .patience = 0});
    model.known_edges = p.edges;
    const std::string path = dir.file("link.gatkit");
    save_link_model(path, model);
    CHECK(model_kind(path) == "link");
    const LinkModel loaded = load_link_model(path);
    CHECK(loaded.node_vectors == model.node_vectors);
    CHECK(loaded.known_edges == model.known_edges);
    CHECK(loaded.info().node_ids == p.data.node_ids);
    const std::vector<NodePair> pairs = {{0, 1}, {5, 9}, {n - 1, 0}};
    CHECK(loaded.decode_with(loaded.node_vectors, pairs) == model.decode_with(model.node_vectors, pairs));
    CHECK_THROWS_AS(load_model(path), ParseError);  // a link model is not a node/graph Model

    // Truncated: a clear ParseError, never a crash.
    const auto size = std::filesystem::file_size(path);
    std::filesystem::resize_file(path, size - 40);
    CHECK_THROWS_WITH(load_link_model(path), Catch::Contains("truncated"));

    HeuristicLinkModel h;
    h.heuristic = LinkHeuristic::jaccard;
    h.info.node_ids = p.data.node_ids;
    h.edges = p.edges;
    save_heuristic_model(dir.file("h.gatkit"), h);
    CHECK(model_kind(dir.file("h.gatkit")) == "heuristic");
    const HeuristicLinkModel hl = load_heuristic_model(dir.file("h.gatkit"));
    CHECK(hl.heuristic == LinkHeuristic::jaccard);
    CHECK(hl.edges == p.edges);
    CHECK_THROWS_AS(load_link_model(dir.file("h.gatkit")), ParseError);
}
