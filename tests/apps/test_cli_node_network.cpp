// End-to-end tests of `gatkit train --task node` and `gatkit predict` on an edge list with a node
// label file (docs/cli.md): the real binary on a small two-community network written here, with
// the user's string ids, some unlabelled nodes, and structural or file node features.
// Every run is tiny (one thread, a narrow model, a few hundred epochs on 40 nodes).
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using gatkit::test::CliResult;
using gatkit::test::has;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::shell_quote;
using gatkit::test::TempDir;

namespace {

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream s(line);
    std::string f;
    while (std::getline(s, f, ',')) out.push_back(f);
    return out;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

// Two communities of 20 members: "dense_<k>" each linked to the 6 next on a ring (degree 12),
// "sparse_<k>" a plain ring (degree 2), joined by two bridges. Degree alone tells them apart,
// and so do the Laplacian eigenvectors. Members 16..19 of each community have no label.
struct Network {
    std::string edges, labels, features;
    std::vector<std::string> ids;        // every node, in order of first appearance in `edges`
    std::map<std::string, std::string> truth;  // id -> community, labelled or not
};

Network two_communities() {
    Network n;
    std::ostringstream edges, labels, features;
    edges << "# two communities\n";
    std::set<std::string> seen;
    const auto add = [&](const std::string& u, const std::string& v) {
        edges << u << " " << v << "\n";
        for (const auto& id : {u, v})
            if (seen.insert(id).second) n.ids.push_back(id);
    };
    const auto dense = [](int k) { return "dense_" + std::to_string(k % 20); };
    const auto sparse = [](int k) { return "sparse_" + std::to_string(k % 20); };
    for (int k = 0; k < 20; ++k)
        for (int step = 1; step <= 6; ++step) add(dense(k), dense(k + step));
    for (int k = 0; k < 20; ++k) add(sparse(k), sparse(k + 1));
    add(dense(0), sparse(0));
    add(dense(10), sparse(10));
    labels << "# id label\n";
    features << "id,f0,f1,f2\n";
    for (int k = 0; k < 20; ++k) {
        n.truth[dense(k)] = "crowd";
        n.truth[sparse(k)] = "loner";
        if (k < 16) labels << dense(k) << " crowd\n" << sparse(k) << " loner\n";
        // Community signal in f0/f1 with a little noise, f2 plain noise; all >= 0.
        features << dense(k) << "," << 0.8 + 0.01 * (k % 3) << "," << 0.1 + 0.05 * (k % 4) << "," << 0.1 * (k % 5) << "\n";
        features << sparse(k) << "," << 0.1 + 0.05 * (k % 4) << "," << 0.8 + 0.01 * (k % 3) << "," << 0.1 * (k % 5) << "\n";
    }
    n.edges = edges.str();
    n.labels = labels.str();
    n.features = features.str();
    return n;
}

const std::string kSmall = " --threads 1 --quiet --heads 2 --hidden 8 --epochs 300 --patience 100 --lr 0.01";

struct Predictions {
    std::vector<std::string> header;
    std::vector<std::string> ids;
    std::map<std::string, std::string> predicted;
};

Predictions read_predictions(const std::string& path) {
    Predictions p;
    const auto lines = lines_of(read_text(path));
    REQUIRE(!lines.empty());
    p.header = fields(lines[0]);
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto f = fields(lines[i]);
        REQUIRE(f.size() == p.header.size());
        double sum = 0;
        for (std::size_t k = 2; k < f.size(); ++k) sum += std::atof(f[k].c_str());
        CHECK(sum == Approx(1.0).epsilon(1e-4));
        p.ids.push_back(f[0]);
        p.predicted[f[0]] = f[1];
    }
    return p;
}

double accuracy(const Predictions& p, const Network& net) {
    int right = 0;
    for (const auto& [id, cls] : p.predicted) right += net.truth.at(id) == cls;
    return static_cast<double>(right) / static_cast<double>(p.predicted.size());
}

// The one-line user error of the CLI contract, exit code 1 (2: a usage error, a flag missing).
void require_user_error(const CliResult& r, const std::string& part, int exit_code = 1) {
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == exit_code);
    const auto lines = lines_of(r.err);
    REQUIRE(!lines.empty());
    CHECK(lines.size() <= 2);
    CHECK(lines[0].rfind("gatkit: error: ", 0) == 0);
    CHECK(has(lines[0], part));
}

}  // namespace

TEST_CASE("train --task node on an edge list with a label file: degree inputs by default, every node predicted", "[cli][node]") {
    TempDir dir;
    const Network net = two_communities();
    const std::string edges = dir.write("net.txt", net.edges), labels = dir.write("labels.txt", net.labels);
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task node --data " + shell_quote(edges) + " --label-file " + shell_quote(labels) + " --out " +
                                   shell_quote(model) + " --metrics-json " + shell_quote(dir.file("m.json")) + kSmall);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto m = read_json(dir.file("m.json"));
    CHECK(m["task"] == "node");
    CHECK(m["node_features"] == "lap:4");
    CHECK(m["split"] == "stratified");  // 32 labelled nodes: far too few for planetoid
    CHECK(m["n_nodes"] == 40);
    CHECK(m["n_edges"] == 20 * 6 + 20 + 2);
    CHECK(m["n_labelled"] == 32);
    // 16 per class, 0.6 / 0.2 / 0.2 of each class: 9 / 3 / 4.
    CHECK(m["n_train"] == 18);
    CHECK(m["n_val"] == 6);
    CHECK(m["n_test"] == 8);
    CHECK(m["test_accuracy"].get<double>() >= 0.99);

    const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(edges) + " --out " +
                                   shell_quote(dir.file("p.csv")) + " --threads 1");
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const Predictions pred = read_predictions(dir.file("p.csv"));
    CHECK(pred.header == std::vector<std::string>{"node_id", "predicted_class", "p_crowd", "p_loner"});
    CHECK(pred.ids == net.ids);  // one row per node, the user's ids, edge-file order; unlabelled ones too
    CHECK(accuracy(pred, net) >= 0.95);

    SECTION("info tells the inputs are not normalised") {
        const CliResult i = run_gatkit("info --model " + shell_quote(model));
        REQUIRE(i.exit_code == 0);
        CHECK(has(i.out, "4 columns (lap:4), normalisation none"));
    }
}

TEST_CASE("train --task node with lap:K inputs predicts from the Laplacian of the same graph", "[cli][node]") {
    TempDir dir;
    const Network net = two_communities();
    const std::string edges = dir.write("net.txt", net.edges), labels = dir.write("labels.txt", net.labels);
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task node --data " + shell_quote(edges) + " --label-file " + shell_quote(labels) +
                                   " --node-features lap:4 --out " + shell_quote(model) + " --metrics-json " + shell_quote(dir.file("m.json")) + kSmall);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(read_json(dir.file("m.json"))["node_features"] == "lap:4");
    const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(edges) + " --out " +
                                   shell_quote(dir.file("p.csv")) + " --threads 1");
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const Predictions pred = read_predictions(dir.file("p.csv"));
    CHECK(pred.ids == net.ids);
    CHECK(accuracy(pred, net) >= 0.9);
    // The model reads 4 eigenvectors whatever the graph: a smaller graph predicts too.
    std::string half;
    for (const auto& line : lines_of(net.edges))
        if (line.rfind("sparse_", 0) == 0 && !has(line, "dense")) half += line + "\n";
    const CliResult q = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(dir.write("half.txt", half)) +
                                   " --out " + shell_quote(dir.file("q.csv")) + " --threads 1");
    INFO(q.err);
    REQUIRE(q.exit_code == 0);
    CHECK(lines_of(read_text(dir.file("q.csv"))).size() == 21);
}

TEST_CASE("train --task node with a feature file: features by default, predict needs the same file", "[cli][node]") {
    TempDir dir;
    const Network net = two_communities();
    const std::string edges = dir.write("net.txt", net.edges), labels = dir.write("labels.txt", net.labels);
    const std::string feats = dir.write("features.csv", net.features);
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task node --data " + shell_quote(edges) + " --label-file " + shell_quote(labels) +
                                   " --feature-file " + shell_quote(feats) + " --out " + shell_quote(model) + " --metrics-json " +
                                   shell_quote(dir.file("m.json")) + kSmall);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto m = read_json(dir.file("m.json"));
    CHECK(m["node_features"] == "features");
    CHECK(m["test_accuracy"].get<double>() >= 0.99);
    CHECK(has(run_gatkit("info --model " + shell_quote(model)).out, "3 columns (features), normalisation row"));

    const std::string out = dir.file("p.csv");
    SECTION("with the feature file") {
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(edges) + " --feature-file " +
                                       shell_quote(feats) + " --out " + shell_quote(out) + " --threads 1");
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        const Predictions pred = read_predictions(out);
        CHECK(pred.ids == net.ids);
        CHECK(accuracy(pred, net) >= 0.95);
    }
    SECTION("without it") {
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(edges) + " --out " + shell_quote(out));
        require_user_error(p, "has no node features; the model reads 3 per node");
        CHECK(has(p.err, "hint: give --feature-file"));
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("with features of another width") {
        std::string two = "id,f0,f1\n";
        for (const auto& id : net.ids) two += id + ",1,0\n";
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(edges) + " --feature-file " +
                                       shell_quote(dir.write("two.csv", two)) + " --out " + shell_quote(out));
        require_user_error(p, "nodes have 2 features, the model expects 3");
    }
    SECTION("features with negative values are used as given") {
        std::string signed_features = "id,f0,f1,f2\n";
        for (const auto& id : net.ids) signed_features += id + "," + (net.truth.at(id) == "crowd" ? "1,-1,0.5\n" : "-1,1,0.5\n");
        const std::string m2 = dir.file("m2.gatkit");
        const CliResult t = run_gatkit("train --task node --data " + shell_quote(edges) + " --label-file " + shell_quote(labels) +
                                       " --feature-file " + shell_quote(dir.write("signed.csv", signed_features)) + " --out " + shell_quote(m2) + kSmall);
        INFO(t.err);
        REQUIRE(t.exit_code == 0);
        CHECK(has(run_gatkit("info --model " + shell_quote(m2)).out, "3 columns (features), normalisation none"));
    }
    SECTION("--node-features degree ignores the features") {
        const CliResult t = run_gatkit("train --task node --data " + shell_quote(edges) + " --label-file " + shell_quote(labels) +
                                       " --feature-file " + shell_quote(feats) + " --node-features degree --out " + shell_quote(dir.file("m3.gatkit")) +
                                       " --metrics-json " + shell_quote(dir.file("m3.json")) + kSmall);
        INFO(t.err);
        REQUIRE(t.exit_code == 0);
        CHECK(read_json(dir.file("m3.json"))["node_features"] == "degree");
    }
}

TEST_CASE("a label file naming a node that is not in the edge list adds it as an isolated node", "[cli][node]") {
    TempDir dir;
    const Network net = two_communities();
    const std::string edges = dir.write("net.txt", net.edges);
    const std::string labels = dir.write("labels.txt", net.labels + "ghost crowd\n");
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task node --data " + shell_quote(edges) + " --label-file " + shell_quote(labels) +
                                   " --out " + shell_quote(model) + " --metrics-json " + shell_quote(dir.file("m.json")) +
                                   " --threads 1 --heads 2 --hidden 8 --epochs 50");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has(r.err, "1 ids in " + labels + " are not in the edge file; added as isolated nodes"));
    const auto m = read_json(dir.file("m.json"));
    CHECK(m["n_nodes"] == 41);
    CHECK(m["n_labelled"] == 33);

    SECTION("predict with the label file has a row for it") {
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(edges) + " --label-file " +
                                       shell_quote(labels) + " --out " + shell_quote(dir.file("p.csv")));
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        const Predictions pred = read_predictions(dir.file("p.csv"));
        CHECK(pred.ids.size() == 41);
        CHECK(pred.ids.back() == "ghost");
    }
    SECTION("predict without it knows only the edge list's nodes") {
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(edges) + " --out " +
                                       shell_quote(dir.file("p.csv")));
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        CHECK(read_predictions(dir.file("p.csv")).ids == net.ids);
    }
}

TEST_CASE("node training on an edge list: splits, directed graphs and a CSV edge list", "[cli][node]") {
    TempDir dir;
    const Network net = two_communities();
    const std::string edges = dir.write("net.txt", net.edges), labels = dir.write("labels.txt", net.labels);
    const std::string base = "train --task node --data " + shell_quote(edges) + " --label-file " + shell_quote(labels) + " --out " +
                             shell_quote(dir.file("m.gatkit")) + " --metrics-json " + shell_quote(dir.file("m.json")) +
                             " --threads 1 --quiet --heads 2 --hidden 8 --epochs 20";

    SECTION("--split random with --split-sizes") {
        const CliResult r = run_gatkit(base + " --split random --split-sizes 0.5,0.25,0.25");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto m = read_json(dir.file("m.json"));
        CHECK(m["split"] == "random");
        CHECK(m["n_train"] == 16);
        CHECK(m["n_val"] == 8);
        CHECK(m["n_test"] == 8);
    }
    SECTION("--split-file over labelled nodes") {
        std::string split = "node_id,split\n";
        for (int k = 0; k < 16; ++k)
            for (const char* c : {"dense_", "sparse_"}) split += c + std::to_string(k) + "," + (k < 8 ? "train" : k < 12 ? "val" : "test") + "\n";
        const CliResult r = run_gatkit(base + " --split-file " + shell_quote(dir.write("split.csv", split)));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto m = read_json(dir.file("m.json"));
        CHECK(m["split"] == "file");
        CHECK(m["n_train"] == 16);
        CHECK(m["n_val"] == 8);
        CHECK(m["n_test"] == 8);
    }
    SECTION("--split-file naming an unlabelled node") {
        const std::string split = "node_id,split\ndense_0,train\nsparse_0,train\ndense_1,val\ndense_17,test\n";
        require_user_error(run_gatkit(base + " --split-file " + shell_quote(dir.write("split.csv", split))),
                           "node 'dense_17' is in the test set but has no label");
    }
    SECTION("--split planetoid on too few labelled nodes") {
        const CliResult r = run_gatkit(base + " --split planetoid");
        require_user_error(r, "planetoid split: 32 nodes");
        CHECK(has(r.err, "hint: use --split stratified"));
    }
    SECTION("--split sizes that leave a part empty") {
        require_user_error(run_gatkit(base + " --split stratified --split-sizes 0.98,0.01,0.01"), "each needs at least one");
    }
    SECTION("--directed keeps edge directions, and predict reads the graph the same way") {
        const CliResult r = run_gatkit(base + " --directed");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const CliResult p = run_gatkit("predict --model " + shell_quote(dir.file("m.gatkit")) + " --data " + shell_quote(edges) + " --out " +
                                       shell_quote(dir.file("p.csv")));
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        CHECK(read_predictions(dir.file("p.csv")).ids == net.ids);
    }
    SECTION("a CSV edge list") {
        std::string csv = "src,dst\n";
        for (const auto& line : lines_of(net.edges))
            if (!line.empty() && line[0] != '#') csv += line.substr(0, line.find(' ')) + "," + line.substr(line.find(' ') + 1) + "\n";
        const CliResult r = run_gatkit("train --task node --data " + shell_quote(dir.write("net.csv", csv)) + " --label-file " +
                                       shell_quote(labels) + " --out " + shell_quote(dir.file("m.gatkit")) + " --metrics-json " +
                                       shell_quote(dir.file("m.json")) + " --threads 1 --quiet --heads 2 --hidden 8 --epochs 20");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_json(dir.file("m.json"))["n_edges"] == 20 * 6 + 20 + 2);
    }
}

TEST_CASE("node training on an edge list: bad requests are one-line user errors", "[cli][node]") {
    TempDir dir;
    const Network net = two_communities();
    const std::string edges = dir.write("net.txt", net.edges), labels = dir.write("labels.txt", net.labels);
    const std::string model = dir.file("m.gatkit");
    const std::string base = "train --task node --data " + shell_quote(edges) + " --out " + shell_quote(model) + " --threads 1 --quiet --epochs 5";

    SECTION("no --label-file") {
        const CliResult r = run_gatkit(base);
        require_user_error(r, "needs --label-file", 2);
        CHECK(has(r.err, "hint: give --label-file FILE"));
    }
    SECTION("--node-features embedding:8") {
        const CliResult r = run_gatkit(base + " --label-file " + shell_quote(labels) + " --node-features embedding:8");
        require_user_error(r, "a node model has no embedding table");
        CHECK(has(r.err, "hint: use --node-features features (with --feature-file), degree or lap:K"));
    }
    SECTION("--node-features features without a feature file") {
        const CliResult r = run_gatkit(base + " --label-file " + shell_quote(labels) + " --node-features features");
        require_user_error(r, "has no node features");
    }
    SECTION("an unknown --node-features") {
        require_user_error(run_gatkit(base + " --label-file " + shell_quote(labels) + " --node-features wavelets"),
                           "--node-features wavelets is not available for --task node (available: features, degree, lap:K)");
    }
    SECTION("one class only") {
        const CliResult r = run_gatkit(base + " --label-file " + shell_quote(dir.write("one.txt", "dense_0 a\ndense_1 a\n")));
        require_user_error(r, "need at least 2 classes");
    }
    SECTION("an unknown --split") {
        require_user_error(run_gatkit(base + " --label-file " + shell_quote(labels) + " --split scaffold"),
                           "--split scaffold is not available for --task node");
    }
    SECTION("a --format for molecules") {
        require_user_error(run_gatkit(base + " --label-file " + shell_quote(labels) + " --format smi"),
                           "--format smi is not available for --task node");
    }
    SECTION("a LINQS folder with --label-file") {
        std::filesystem::create_directories(dir.file("cora"));
        dir.write("cora/x.content", "1\t1\ta\n");
        dir.write("cora/x.cites", "1\t1\n");
        require_user_error(run_gatkit("train --task node --data " + shell_quote(dir.file("cora")) + " --label-file " + shell_quote(labels) +
                                      " --out " + shell_quote(model)),
                           "--feature-file and --label-file go with edge lists");
    }
    CHECK_FALSE(std::filesystem::exists(model));
}

// Zachary's karate club (../shared/data/social/karate) with the two factions of README.KARATE,
// seeds 0-4, the default stratified 0.6/0.2/0.2 split (8 test nodes). The default input
// (degree, no feature file) cannot tell the factions apart (measured: 0.5, chance) and is only
// run; Laplacian eigenvectors can (measured: lap:4 1.0 on every seed 0-9; docs/cli.md).
TEST_CASE("karate club: node classification from an edge list and a label file", "[shared-data][karate]") {
    const std::string folder = std::string(GATKIT_SHARED_DATA) + "/social/karate";
    if (!std::filesystem::exists(folder + "/zachary.txt")) {
        std::cout << "SKIPPED: " << folder << " not found; karate club node classification was not run\n";
        WARN("SKIPPED: " << folder << " not found");
        return;
    }
    TempDir dir;
    for (const std::string input : {"", "degree"}) {
        double sum = 0;
        for (int seed = 0; seed < 5; ++seed) {
            const CliResult r = run_gatkit("train --task node --data " + shell_quote(folder + "/zachary.txt") + " --label-file " +
                                           shell_quote(folder + "/karate_factions_readme.txt") +
                                           (input.empty() ? "" : " --node-features " + input) + " --seed " + std::to_string(seed) +
                                           " --threads 2 --quiet --out " + shell_quote(dir.file("k.gatkit")) + " --metrics-json " +
                                           shell_quote(dir.file("k.json")));
            INFO(r.err);
            REQUIRE(r.exit_code == 0);
            const auto m = read_json(dir.file("k.json"));
            CHECK(m["node_features"] == (input.empty() ? "lap:4" : input));
            CHECK(m["split"] == "stratified");
            CHECK(m["n_nodes"] == 34);
            CHECK(m["n_edges"] == 78);
            CHECK(m["n_labelled"] == 34);
            CHECK(m["n_test"] == 8);
            sum += m["test_accuracy"].get<double>();
        }
        std::cout << "karate " << (input.empty() ? "defaults (lap:4)" : input) << ": mean test accuracy over seeds 0-4 = " << sum / 5 << "\n";
        if (input.empty()) CHECK(sum / 5 >= 0.9);
    }
}

TEST_CASE("train --task node on the LINQS tab layout (the PubMed-Diabetes files), and the links file alone for a link task", "[cli][node][linqs]") {
    // The two communities written as X.NODE.paper.tab (sparse numeric attributes, the class as
    // cat=crowd,loner:label, unlabelled rows without it) and X.DIRECTED.cites.tab.
    TempDir dir;
    const Network net = two_communities();
    std::ostringstream nodes, links;
    nodes << "NODE\tpaper\ncat=crowd,loner:label\tnumeric:f0:0.0\tnumeric:f1:0.0\tnumeric:f2:0.0\tstring:summary\n";
    std::map<std::string, std::string> labelled;
    for (const auto& line : lines_of(net.labels))
        if (line.rfind('#', 0) != 0) labelled[line.substr(0, line.find(' '))] = line.substr(line.find(' ') + 1);
    for (const auto& line : lines_of(net.features)) {
        const auto f = fields(line);
        if (f[0] == "id") continue;
        nodes << f[0];
        if (labelled.count(f[0])) nodes << "\tlabel=" << labelled[f[0]];
        nodes << "\tf1=" << f[2] << "\tf0=" << f[1];  // any order; f2 left to its default
        nodes << "\tsummary=f0,f1\n";
    }
    int link = 0;
    links << "DIRECTED\tcites\nNO_FEATURES\n";
    for (const auto& line : lines_of(net.edges)) {
        if (line.rfind('#', 0) == 0) continue;
        links << ++link << "\tpaper:" << line.substr(0, line.find(' ')) << "\t|\tpaper:" << line.substr(line.find(' ') + 1) << "\n";
    }
    dir.write("net.NODE.paper.tab", nodes.str());
    const std::string links_file = dir.write("net.DIRECTED.cites.tab", links.str());
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task node --data " + shell_quote(dir.path().string()) + " --split stratified --out " +
                                   shell_quote(model) + " --metrics-json " + shell_quote(dir.file("m.json")) + kSmall);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto m = read_json(dir.file("m.json"));
    CHECK(m["n_nodes"] == 40);
    CHECK(m["n_edges"] == 20 * 6 + 20 + 2);
    CHECK(m["n_labelled"] == 32);
    CHECK(m["node_features"] == "features");
    CHECK(m["test_accuracy"].get<double>() >= 0.99);

    // predict by the files' common prefix; rows in node-file order, unlabelled nodes too
    const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(dir.file("net")) + " --out " +
                                   shell_quote(dir.file("p.csv")) + " --threads 1");
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const Predictions pred = read_predictions(dir.file("p.csv"));
    CHECK(pred.header == std::vector<std::string>{"node_id", "predicted_class", "p_crowd", "p_loner"});
    CHECK(pred.ids.size() == 40);
    CHECK(accuracy(pred, net) >= 0.95);

    // a link task on the links file alone: ids without "paper:", pairs scored by them
    const CliResult l = run_gatkit("train --task link --data " + shell_quote(links_file) + " --out " + shell_quote(dir.file("l.gatkit")) +
                                   " --threads 1 --quiet --epochs 20");
    INFO(l.err);
    REQUIRE(l.exit_code == 0);
    const CliResult s = run_gatkit("predict --model " + shell_quote(dir.file("l.gatkit")) + " --pairs " +
                                   shell_quote(dir.write("pairs.csv", "src,dst\ndense_0,dense_1\npaper:dense_0,dense_1\n")) + " --out " +
                                   shell_quote(dir.file("s.csv")));
    INFO(s.err);
    REQUIRE(s.exit_code == 0);
    const auto scored = lines_of(read_text(dir.file("s.csv")));
    REQUIRE(scored.size() == 3);
    CHECK(scored[0] == "src,dst,score,error");
    CHECK(scored[1].back() == ',');  // a score, no error
    CHECK(has(scored[2], "unknown"));

    // the links without their node file: a node task says what is missing and how to use them
    TempDir only_links;
    only_links.write("net.DIRECTED.cites.tab", links.str());
    const CliResult e = run_gatkit("train --task node --data " + shell_quote(only_links.path().string()) + " --out " +
                                   shell_quote(dir.file("e.gatkit")));
    require_user_error(e, "*.NODE.*.tab");
    CHECK(has(e.err, "--task link --data"));
}
