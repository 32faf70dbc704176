// Determinism end to end (ARCHITECTURE.md §3): the same seed gives bitwise-identical model files
// and predictions with --threads 1 and --threads 2, for the inputs and options the other
// [determinism] tests (test_cli.cpp: LINQS node task; test_cli_graph.cpp: molecules; test_cli_link.cpp:
// link task) leave out: edge classification, a node task on an edge list with feature and label
// files, TU graphs (metrics only: predict does not take TU data), molecules through the
// dot-product layer with a full mask and Laplacian PEs (random sign flips while training), and
// link prediction through GATv2 on a k-hop mask. Dropout is on wherever the task has it.
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using gatkit::test::CliResult;
using gatkit::test::cliques_csv;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::shell_quote;
using gatkit::test::TempDir;

namespace {

// Runs `train ARGS --threads T --out DIR/mT [--metrics-json DIR/mT.json]` for T = 1, 2, then
// `predict PREDICT --model DIR/mT --threads T --out DIR/pT.csv` (when PREDICT is not empty), and
// checks that the two model files, metrics (but the timings) and predictions are identical.
void check_same_with_1_and_2_threads(const TempDir& dir, const std::string& train, const std::string& predict) {
    std::string model[2], predictions[2];
    nlohmann::json metrics[2];
    for (int t = 1; t <= 2; ++t) {
        const std::string n = std::to_string(t), m = dir.file("m" + n);
        const CliResult r = run_gatkit("train " + train + " --quiet --threads " + n + " --out " + shell_quote(m) + " --metrics-json " +
                                       shell_quote(m + ".json"));
        INFO("train, " << t << " threads: " << r.err);
        REQUIRE(r.exit_code == 0);
        model[t - 1] = read_text(m);
        metrics[t - 1] = nlohmann::json::parse(read_text(m + ".json"));
        // what may differ: the thread count, times, memory
        for (auto it = metrics[t - 1].begin(); it != metrics[t - 1].end();) {
            const std::string key = it.key();
            if (key == "threads" || key.find("seconds") != std::string::npos || key.find("rss") != std::string::npos)
                it = metrics[t - 1].erase(it);
            else
                ++it;
        }
        if (predict.empty()) continue;
        const CliResult p = run_gatkit("predict --model " + shell_quote(m) + " " + predict + " --threads " + n + " --out " +
                                       shell_quote(dir.file("p" + n + ".csv")));
        INFO("predict, " << t << " threads: " << p.err);
        REQUIRE(p.exit_code == 0);
        predictions[t - 1] = read_text(dir.file("p" + n + ".csv"));
    }
    CHECK(!model[0].empty());
    CHECK(model[0] == model[1]);  // byte for byte
    CHECK(metrics[0] == metrics[1]);
    if (!predict.empty()) {
        CHECK(!predictions[0].empty());
        CHECK(predictions[0] == predictions[1]);
    }
}

}  // namespace

TEST_CASE("edge classification: same seed, same model file and predictions with 1 and 2 threads", "[cli][determinism][edge]") {
    TempDir dir;
    const std::string data = dir.write("net.csv", cliques_csv());
    const std::string pairs = dir.write("pairs.csv", "src,dst\nu0_0,u0_1\nu0_2,u1_3\nu3_5,u2_4\n");
    check_same_with_1_and_2_threads(dir, "--task edge --data " + shell_quote(data) + " --node-features degree --dropout 0.3 --epochs 15 --hidden 8 --heads 2 --seed 5",
                                    "--pairs " + shell_quote(pairs));
}

TEST_CASE("node task on an edge list with feature and label files: same bytes with 1 and 2 threads", "[cli][determinism][node]") {
    TempDir dir;
    const std::string edges = dir.file("net.txt"), features = dir.file("f.csv"), labels = dir.file("l.csv");
    REQUIRE(run_gatkit("generate --edge-list --out " + shell_quote(edges) + " --features-out " + shell_quote(features) + " --labels-out " +
                       shell_quote(labels) + " --nodes 200 --classes 3 --features 12 --seed 2")
                .exit_code == 0);
    check_same_with_1_and_2_threads(dir, "--task node --data " + shell_quote(edges) + " --feature-file " + shell_quote(features) +
                                             " --label-file " + shell_quote(labels) + " --epochs 15 --seed 3",
                                    "--data " + shell_quote(edges) + " --feature-file " + shell_quote(features));
}

TEST_CASE("TU graphs: same seed, same model file and metrics with 1 and 2 threads", "[cli][determinism][graph]") {
    TempDir dir;
    fs::create_directories(dir.file("DS"));
    // 16 rings (label 1) and chains (label -1) of 3-6 nodes, node labels 0-2, edge labels 0-1
    std::string a, indicator, graph_labels, node_labels, edge_labels;
    int next = 1;
    for (int g = 0; g < 16; ++g) {
        const bool ring = g % 2 == 1;
        const int n = 3 + g % 4;
        for (int i = 0; i < n; ++i) {
            indicator += std::to_string(g + 1) + "\n";
            node_labels += std::to_string((i + g) % 3) + "\n";
        }
        const auto edge = [&](int u, int v) {
            for (const auto& [s, d] : {std::pair{u, v}, std::pair{v, u}}) {
                a += std::to_string(next + s) + ", " + std::to_string(next + d) + "\n";
                edge_labels += std::to_string((u + v) % 2) + "\n";
            }
        };
        for (int i = 0; i + 1 < n; ++i) edge(i, i + 1);
        if (ring) edge(n - 1, 0);
        graph_labels += ring ? "1\n" : "-1\n";
        next += n;
    }
    dir.write("DS/DS_A.txt", a);
    dir.write("DS/DS_graph_indicator.txt", indicator);
    dir.write("DS/DS_graph_labels.txt", graph_labels);
    dir.write("DS/DS_node_labels.txt", node_labels);
    dir.write("DS/DS_edge_labels.txt", edge_labels);
    check_same_with_1_and_2_threads(dir, "--task graph --data " + shell_quote(dir.file("DS")) +
                                             " --epochs 4 --layers 2 --heads 2 --hidden 8 --mlp-hidden 8 --batch-size 4 --dropout 0.2 --seed 9",
                                    "");
}

TEST_CASE("molecules through dot-product attention, a full mask and Laplacian PEs: same bytes with 1 and 2 threads",
          "[cli][determinism][graph]") {
    TempDir dir;
    std::string csv = "smiles,has_n\n";
    for (const char* s : {"CCO", "CCN", "c1ccccc1", "c1ccncc1", "CC(=O)O", "CC(=O)N", "CCCC", "CCCN", "OCCO", "NCCN", "C", "N",
                          "C1CCCCC1", "C1CCNCC1", "CCOC", "CCNC", "O=CC=O", "N#CC#N", "CCCCO", "CCCCN"})
        csv += std::string(s) + "," + (std::string(s).find_first_of("Nn") != std::string::npos ? "1" : "0") + "\n";
    const std::string data = dir.write("mols.csv", csv);
    check_same_with_1_and_2_threads(dir, "--task graph --data " + shell_quote(data) +
                                             " --target-columns has_n --conv transformer --block transformer --mask full --pe lap:3 "
                                             "--dropout 0.2 --epochs 3 --layers 2 --heads 2 --hidden 8 --mlp-hidden 8 --batch-size 4 --seed 4",
                                    "--data " + shell_quote(data));
}

TEST_CASE("molecule predictions over many chunks: same bytes with 1 and 2 threads, every row kept", "[cli][determinism][graph]") {
    // `gatkit predict` hands chunks of rows to the threads side by side (load_molecules_chunked):
    // 400 rows are several chunks, with invalid SMILES and molecules too large for the full mask
    // among them, which must keep their rows and reasons wherever their chunk ran.
    TempDir dir;
    const std::vector<std::string> pool = {"CCO", "CCN", "c1ccccc1", "c1ccncc1", "CC(=O)O", "not a smiles", "CCCCCCCCCCCCCCN", "OCCO", "C1CC"};
    std::string train = "smiles,has_n\n";
    for (const std::string s : {"CCO", "CCN", "c1ccccc1", "c1ccncc1", "CC(=O)O", "CC(=O)N", "CCCC", "CCCN", "OCCO", "NCCN"})
        train += s + "," + (s.find_first_of("Nn") != std::string::npos ? "1" : "0") + "\n";
    std::string many = "smiles\n";
    for (std::size_t k = 0; k < 400; ++k) many += pool[(k * 7) % pool.size()] + "\n";
    const std::string data = dir.write("mols.csv", train);
    const std::string big = dir.write("many.csv", many);
    check_same_with_1_and_2_threads(dir, "--task graph --data " + shell_quote(data) +
                                             " --target-columns has_n --mask full --max-full-nodes 12 --epochs 2 --layers 2 --heads 2 "
                                             "--hidden 8 --mlp-hidden 8 --batch-size 4 --seed 5",
                                    "--data " + shell_quote(big));
    const std::string p = read_text(dir.file("p2.csv"));
    std::size_t rows = 0, bad = 0, large = 0;
    for (std::size_t at = p.find('\n'); at != std::string::npos && at + 1 < p.size(); at = p.find('\n', at + 1)) {
        const std::string line = p.substr(at + 1, p.find('\n', at + 1) - at - 1);
        ++rows;
        bad += line.rfind("not a smiles,", 0) == 0 && line.find("SMILES") != std::string::npos ? 1 : 0;
        large += line.find("15 atoms, more than the 12") != std::string::npos ? 1 : 0;
    }
    CHECK(rows == 400);
    CHECK(bad == 45);    // k·7 mod 9 == 5 for 45 of the 400 rows, == 6 (the long chain) for 44
    CHECK(large == 44);
}

TEST_CASE("link prediction through GATv2 on a k-hop mask: same bytes with 1 and 2 threads", "[cli][determinism][link]") {
    TempDir dir;
    const std::string data = dir.write("net.csv", cliques_csv());
    const std::string pairs = dir.write("pairs.txt", "u0_0 u0_1\nu0_0 u3_3\nu2_5 u1_2\n");
    check_same_with_1_and_2_threads(dir, "--task link --data " + shell_quote(data) +
                                             " --conv gatv2 --mask khop:2 --node-features lap:3 --dropout 0.3 --epochs 10 --hidden 8 --heads 2 --seed 6",
                                    "--pairs " + shell_quote(pairs));
}
