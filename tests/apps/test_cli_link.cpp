// End-to-end tests of `gatkit train --task link|edge` and `gatkit predict` with link/edge models:
// the real binary on small networks written here (string ids, cliques joined by a few bridges).
// Every run is tiny (one thread unless the test is about threads, a few epochs, a narrow model).
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include "gatkit/core/random.hpp"
#include "gatkit/train/metrics.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

using gatkit::test::CliResult;
using gatkit::test::has;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::TempDir;

namespace {

// 6 cliques of 7 users ("u<c>_<k>"), each clique joined to the next by two bridges: edges inside a
// clique are easy to predict, and the label of an edge says whether it is inside or between.
struct Network {
    std::string snap, csv;  // "a b" lines; CSV src,dst,label
    std::set<std::pair<std::string, std::string>> edges;
};

Network cliques() {
    Network n;
    std::ostringstream snap, csv;
    snap << "# cliques\n";
    csv << "src,dst,label\n";
    const auto id = [](int c, int k) { return "u" + std::to_string(c) + "_" + std::to_string(k); };
    const auto add = [&](const std::string& a, const std::string& b, const char* label) {
        snap << a << "\t" << b << "\n";
        csv << a << "," << b << "," << label << "\n";
        n.edges.insert({a, b});
        n.edges.insert({b, a});
    };
    for (int c = 0; c < 6; ++c) {
        for (int i = 0; i < 7; ++i)
            for (int j = i + 1; j < 7; ++j) add(id(c, i), id(c, j), "inside");
        add(id(c, 0), id((c + 1) % 6, 1), "between");
        add(id(c, 2), id((c + 1) % 6, 3), "between");
    }
    n.snap = snap.str();
    n.csv = csv.str();
    return n;
}

const std::string kSmall = " --threads 1 --quiet --hidden 8 --heads 2 --out-channels 8 --epochs 40 --lr 0.01";

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

}  // namespace

TEST_CASE("gatkit train --task link learns cliques and reports heuristics beside the model", "[cli][link]") {
    TempDir dir;
    const Network net = cliques();
    const std::string edges = dir.write("net.txt", net.snap);
    const CliResult r = run_gatkit("train --task link --data " + edges + " --out " + dir.file("m.gatkit") + " --metrics-json " +
                                   dir.file("m.json") + kSmall);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has(r.out, "adamic-adar"));
    CHECK(has(r.out, "gat (embedding:64)"));
    const auto m = read_json(dir.file("m.json"));
    CHECK(m["task"] == "link");
    CHECK(m["n_nodes"] == 42);
    CHECK(m["n_edges"] == 6 * 21 + 12);
    CHECK(m["n_train_edges"].get<int>() + m["n_val_edges"].get<int>() + m["n_test_edges"].get<int>() == 138);
    for (const char* k : {"test_roc_auc", "test_pr_auc", "test_ap", "test_hits@20", "test_hits@50", "test_hits@100", "test_mrr",
                          "val_roc_auc", "adamic_adar_test_roc_auc", "common_neighbours_test_roc_auc", "jaccard_test_roc_auc",
                          "epoch_seconds_median", "peak_rss_mib"}) {
        CAPTURE(k);
        CHECK(m.contains(k));
    }
    // Cliques: common neighbours alone separate edges from non-edges almost perfectly.
    CHECK(m["adamic_adar_test_roc_auc"].get<double>() > 0.9);
    CHECK(m["test_roc_auc"].get<double>() > 0.7);
}

TEST_CASE("gatkit predict --task link scores pairs, recommends non-neighbours and writes embeddings", "[cli][link]") {
    TempDir dir;
    const Network net = cliques();
    const std::string model = dir.file("m.gatkit");
    REQUIRE(run_gatkit("train --task link --data " + dir.write("net.txt", net.snap) + " --out " + model + kSmall).exit_code == 0);

    SECTION("pairs: one row per input row, unknown ids and self-pairs in the error column") {
        const std::string pairs = dir.write("pairs.csv", "src,dst,note\nu0_0,u0_1,same\nu0_0,u3_4,far\nu0_0,ghost,x\nu1_1,u1_1,self\n");
        const CliResult r = run_gatkit("predict --task link --model " + model + " --pairs " + pairs + " --out " + dir.file("s.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("s.csv")));
        REQUIRE(rows.size() == 5);
        CHECK(rows[0] == "src,dst,note,score,error");
        CHECK(has(rows[1], "u0_0,u0_1,same,"));
        CHECK(has(rows[3], "unknown node 'ghost'"));
        CHECK(has(rows[4], "a node paired with itself"));
        CHECK(has(r.err, "2 with an error"));
        const double same = std::stod(rows[1].substr(std::string("u0_0,u0_1,same,").size()));
        const double far = std::stod(rows[2].substr(std::string("u0_0,u3_4,far,").size()));
        CHECK(same >= 0.0);
        CHECK(same <= 1.0);
        CHECK(same > far);
    }
    SECTION("pairs: a CSV row with another field count than the header is an error row of the header's width") {
        const std::string pairs = dir.write("ragged.csv", "src,dst,note\nu0_0,u0_1\nu0_0,u0_2,a,b\nu0_0,u0_3,ok\n");
        const CliResult r = run_gatkit("predict --model " + model + " --pairs " + pairs + " --out " + dir.file("s.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("s.csv")));
        REQUIRE(rows.size() == 4);
        CHECK(rows[1] == "u0_0,u0_1,,,\"row has 2 fields, the header has 3 (an unquoted comma?)\"");
        CHECK(rows[2] == "u0_0,u0_2,a,,\"row has 4 fields, the header has 3 (an unquoted comma?); beyond the header: b\"");
        CHECK(rows[3].rfind("u0_0,u0_3,ok,0", 0) == 0);
    }
    SECTION("recommendations skip the node's neighbours; an unknown id gets an error row") {
        const CliResult r = run_gatkit("predict --model " + model + " --recommend u2_5,nobody --top-k 4 --out " + dir.file("r.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("r.csv")));
        REQUIRE(rows.size() == 6);
        CHECK(rows[0] == "node_id,rank,candidate_id,score,error");
        for (int k = 1; k <= 4; ++k) {
            std::istringstream in(rows[k]);
            std::string node, rank, cand;
            std::getline(in, node, ',');
            std::getline(in, rank, ',');
            std::getline(in, cand, ',');
            CHECK(node == "u2_5");
            CHECK(rank == std::to_string(k));
            CHECK(cand != "u2_5");
            CHECK(net.edges.count({"u2_5", cand}) == 0);
        }
        CHECK(rows[5] == "nobody,,,,unknown node");
    }
    SECTION("embeddings: one row per node") {
        const CliResult r = run_gatkit("predict --model " + model + " --embeddings " + dir.file("e.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("e.csv")));
        REQUIRE(rows.size() == 43);
        CHECK(rows[0].rfind("node_id,z0,z1,", 0) == 0);
        CHECK(has(rows[0], ",z7"));
        CHECK(!has(rows[0], ",z8"));
    }
    SECTION("a scores file read back in: its score and error columns are renamed, not written twice") {
        const std::string again = dir.write("again.csv", "src,dst,score,error\nu0_0,u0_1,0.9,\n");
        const CliResult r = run_gatkit("predict --model " + model + " --pairs " + again + " --out " + dir.file("s2.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("s2.csv")));
        REQUIRE(rows.size() == 2);
        CHECK(rows[0] == "src,dst,input_score,input_error,score,error");
        CHECK(rows[1].rfind("u0_0,u0_1,0.9,,0", 0) == 0);
    }
    SECTION("--top-k without --recommend is refused, not ignored") {
        const CliResult r = run_gatkit("predict --model " + model + " --pairs " + dir.write("p2.csv", "src,dst\nu0_0,u0_1\n") + " --top-k 3 --out " + dir.file("s.csv"));
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "--top-k goes with --recommend"));
        CHECK_FALSE(std::filesystem::exists(dir.file("s.csv")));
    }
    SECTION("a link model refuses molecule options") {
        const CliResult r = run_gatkit("predict --model " + model + " --smiles CCO");
        CHECK(r.exit_code == 2  /* usage: a link model predicts --pairs or --recommend */);
        CHECK(has(r.err, "--pairs"));
    }
}

TEST_CASE("gatkit train --model-type heuristic:adamic-adar writes a model predict can use", "[cli][link]") {
    TempDir dir;
    const std::string model = dir.file("aa.gatkit");
    const CliResult r = run_gatkit("train --task link --model-type heuristic:adamic-adar --data " + dir.write("net.txt", cliques().snap) +
                                   " --out " + model + " --quiet --metrics-json " + dir.file("m.json"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto m = read_json(dir.file("m.json"));
    CHECK(m["model_type"] == "heuristic:adamic-adar");
    CHECK(m["test_roc_auc"] == m["adamic_adar_test_roc_auc"]);
    const CliResult p = run_gatkit("predict --model " + model + " --pairs " + dir.write("p.txt", "u0_0 u0_1\nu0_0 u3_3\n") + " --out " +
                                   dir.file("s.csv"));
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const auto rows = lines_of(read_text(dir.file("s.csv")));
    REQUIRE(rows.size() == 3);
    CHECK(rows[2] == "u0_0,u3_3,0,");  // no common neighbour
    CHECK(run_gatkit("predict --model " + model + " --embeddings " + dir.file("e.csv")).exit_code == 1);
    CHECK(run_gatkit("train --task link --model-type heuristic:katz --data " + dir.file("net.txt") + " --out " + model).exit_code == 1);
}

TEST_CASE("gatkit train --task edge predicts edge labels from a CSV label column", "[cli][link][edge]") {
    TempDir dir;
    const std::string data = dir.write("net.csv", cliques().csv);
    const CliResult r = run_gatkit("train --task edge --data " + data + " --out " + dir.file("e.gatkit") + " --metrics-json " +
                                   dir.file("m.json") + " --node-features degree --epochs 60" + kSmall.substr(0, kSmall.find(" --epochs")));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(has(r.out, "majority class"));
    const auto m = read_json(dir.file("m.json"));
    for (const char* k : {"test_accuracy", "test_macro_f1", "test_majority_accuracy", "test_majority_macro_f1", "n_skipped", "model_type",
                          "n_parameters", "peak_rss_mib", "epoch_seconds_median"}) {
        CAPTURE(k);
        CHECK(m.contains(k));
    }
    const CliResult p = run_gatkit("predict --model " + dir.file("e.gatkit") + " --pairs " +
                                   dir.write("p.csv", "src,dst\nu0_0,u0_1\nu0_2,u1_3\nzz,u0_1\n") + " --out " + dir.file("p_out.csv"));
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const auto rows = lines_of(read_text(dir.file("p_out.csv")));
    REQUIRE(rows.size() == 4);
    CHECK(rows[0] == "src,dst,predicted_class,p_between,p_inside,error");
    CHECK(has(rows[3], "unknown node 'zz'"));
    CHECK(run_gatkit("train --task edge --data " + dir.write("n.txt", cliques().snap) + " --out " + dir.file("x.gatkit") + kSmall).exit_code == 1);
}

TEST_CASE("gatkit train --task link: node inputs degree and lap:K work", "[cli][link]") {
    TempDir dir;
    const std::string data = dir.write("net.txt", cliques().snap);
    for (const char* input : {"degree", "lap:4"}) {
        CAPTURE(input);
        const CliResult r = run_gatkit("train --task link --data " + data + " --out " + dir.file("m.gatkit") + " --node-features " + input +
                                       " --metrics-json " + dir.file("m.json") + kSmall);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_json(dir.file("m.json"))["node_features"] == input);
    }
    const CliResult bad = run_gatkit("train --task link --data " + data + " --out " + dir.file("m.gatkit") + " --node-features features" + kSmall);
    CHECK(bad.exit_code == 1);
    CHECK(has(bad.err, "no node features"));
}

TEST_CASE("gatkit link training: same seed, same model file and scores with 1 and 2 threads", "[cli][link][threads][determinism]") {
    TempDir dir;
    const std::string data = dir.write("net.txt", cliques().snap);
    const std::string pairs = dir.write("p.txt", "u0_0 u0_1\nu0_0 u3_3\nu5_6 u1_2\n");
    std::string model_bytes[2], scores[2];
    for (int t = 1; t <= 2; ++t) {
        const std::string m = dir.file("m" + std::to_string(t) + ".gatkit");
        std::string args = kSmall;
        args.replace(args.find("--threads 1"), 11, "--threads " + std::to_string(t));
        REQUIRE(run_gatkit("train --task link --seed 7 --dropout 0.3 --data " + data + " --out " + m + args).exit_code == 0);
        REQUIRE(run_gatkit("predict --model " + m + " --pairs " + pairs + " --out " + dir.file("s.csv")).exit_code == 0);
        model_bytes[t - 1] = read_text(m);
        scores[t - 1] = read_text(dir.file("s.csv"));
    }
    CHECK(!model_bytes[0].empty());
    CHECK(model_bytes[0] == model_bytes[1]);
    CHECK(scores[0] == scores[1]);
}

TEST_CASE("gatkit link/edge bad input: one line, file and line, exit 1", "[cli][link][bad-input]") {
    TempDir dir;
    const auto train = [&](const std::string& file, const std::string& text, const std::string& extra = "") {
        return run_gatkit("train --task link --data " + dir.write(file, text) + " --out " + dir.file("m.gatkit") + kSmall + extra);
    };
    SECTION("a line with one column") {
        const CliResult r = train("a.txt", "a b\nb c\nc\n");
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "a.txt:3"));
    }
    SECTION("a non-numeric weight") {
        const CliResult r = train("w.txt", "a b 1\nb c heavy\n");
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "w.txt:2"));
        CHECK(has(r.err, "heavy"));
    }
    SECTION("an empty graph") {
        const CliResult r = train("empty.txt", "# nothing here\n");
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "no edges"));
    }
    SECTION("a split that leaves no training edge") {
        const CliResult r = train("net.txt", cliques().snap, " --split-sizes 0,0.5,0.5");
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "train fraction is 0"));
    }
    SECTION("a pairs file line with one column") {
        REQUIRE(train("net.txt", cliques().snap).exit_code == 0);
        const CliResult r = run_gatkit("predict --model " + dir.file("m.gatkit") + " --pairs " + dir.write("p.txt", "u0_0 u0_1\nu0_0\n") +
                                       " --out " + dir.file("s.csv"));
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "p.txt:2"));
        CHECK(!std::ifstream(dir.file("s.csv")).good());  // nothing half-written
    }
}

TEST_CASE("gatkit link and edge tasks take the attention family (--conv, --mask, --block, --pe)", "[cli][link][attention]") {
    TempDir dir;
    const std::string data = dir.write("net.txt", cliques().snap);
    for (const std::string extra : {" --conv gatv2", " --conv transformer --mask khop:2", " --conv gat --block transformer",
                                    " --node-features degree --pe lap:3"}) {
        CAPTURE(extra);
        const CliResult r = run_gatkit("train --task link --data " + data + " --out " + dir.file("m.gatkit") + kSmall + extra);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const CliResult p = run_gatkit("predict --model " + dir.file("m.gatkit") + " --pairs " + dir.write("p.txt", "u0_0 u0_1\n") +
                                       " --out " + dir.file("s.csv"));
        REQUIRE(p.exit_code == 0);
        CHECK(lines_of(read_text(dir.file("s.csv"))).size() == 2);
    }
    const CliResult bad = run_gatkit("train --task link --data " + data + " --out " + dir.file("m.gatkit") + kSmall + " --pe lap:3");
    CHECK(bad.exit_code == 1);  // the default embedding input takes no PE
    CHECK(has(bad.err, "--pe lap:3"));
}

TEST_CASE("gatkit predict --attention on link models writes alpha over the whole network, keyed by node ids", "[cli][link][attention]") {
    TempDir dir;
    const Network net = cliques();
    const std::string data = dir.write("net.txt", net.snap);
    // Structural inputs (rebuilt from the model file's network) and node features (from --feature-file).
    std::string features = "id,f0,f1\n";
    for (int c = 0; c < 6; ++c)
        for (int k = 0; k < 7; ++k) features += "u" + std::to_string(c) + "_" + std::to_string(k) + "," + std::to_string(c) + "," + std::to_string(k) + "\n";
    const std::string feature_file = dir.write("features.csv", features);
    const std::map<std::string, std::string> variants = {{"degree", " --node-features degree"},
                                                         {"embedding", " --node-features embedding:8"},
                                                         {"features", " --feature-file " + feature_file}};
    for (const auto& [name, flags] : variants) {
        CAPTURE(name);
        const std::string model = dir.file(name + ".gatkit");
        REQUIRE(run_gatkit("train --task link --data " + data + " --out " + model + flags + kSmall).exit_code == 0);
        const std::string att = dir.file(name + ".att.csv");
        const std::string extra = name == "features" ? " --feature-file " + feature_file : "";
        const CliResult r = run_gatkit("predict --model " + model + " --attention " + att + extra);
        REQUIRE(r.exit_code == 0);
        const auto lines = lines_of(read_text(att));
        REQUIRE(lines.front() == "layer,head,src,dst,self_loop,alpha");
        std::map<std::string, double> sums;  // per layer, head and destination
        std::set<std::string> layer_heads;
        bool saw_bridge = false;
        for (std::size_t k = 1; k < lines.size(); ++k) {
            std::vector<std::string> f;
            std::stringstream ss(lines[k]);
            for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
            REQUIRE(f.size() == 6);
            sums[f[0] + "/" + f[1] + "/" + f[3]] += std::stod(f[5]);
            layer_heads.insert(f[0] + "/" + f[1]);
            if (f[2] == "u0_0" && f[3] == "u1_1") saw_bridge = true;  // a known edge, by the user's ids
            if (f[4] == "0") CHECK(net.edges.count({f[2], f[3]}) == 1);
        }
        CHECK(saw_bridge);
        // Layer 0 has 2 heads, the output layer its own; each (layer, head): every edge both ways
        // plus one self-loop per node (42 nodes, 6 × 21 clique edges + 12 bridges).
        CHECK(layer_heads.count("0/0") == 1);
        CHECK(layer_heads.count("0/1") == 1);
        CHECK(layer_heads.count("1/0") == 1);
        CHECK(lines.size() - 1 == layer_heads.size() * (2 * (6 * 21 + 12) + 42));
        CHECK(sums.size() == layer_heads.size() * 42);
        for (const auto& [key, sum] : sums) CHECK(sum == Approx(1.0).margin(1e-4));
    }
    // Features models need their features; heuristics have no attention.
    const CliResult missing = run_gatkit("predict --model " + dir.file("features.gatkit") + " --attention " + dir.file("x.csv"));
    CHECK(missing.exit_code == 1);
    CHECK(has(missing.err, "--feature-file"));
    REQUIRE(run_gatkit("train --task link --model-type heuristic:jaccard --data " + data + " --out " + dir.file("h.gatkit")).exit_code == 0);
    const CliResult heuristic = run_gatkit("predict --model " + dir.file("h.gatkit") + " --attention " + dir.file("x.csv"));
    CHECK(heuristic.exit_code == 1);
    CHECK(has(heuristic.err, "heuristic"));
}

TEST_CASE("gatkit evaluate scores labelled pairs: link, heuristic and edge models", "[cli][link][evaluate]") {
    TempDir dir;
    const Network net = cliques();
    const auto evaluate = [&](const std::string& model, const std::string& pairs, const std::string& json) {
        return run_gatkit("evaluate --threads 1 --model " + model + " --data " + pairs + " --metrics-json " + dir.file(json));
    };

    // Common neighbours on cliques: a pair inside a clique shares five neighbours, a pair of
    // cliques far apart none, so every edge outranks every non-edge.
    const std::string heuristic = dir.file("h.gatkit");
    REQUIRE(run_gatkit("train --task link --model-type heuristic:common-neighbours --threads 1 --quiet --data " + dir.write("net.txt", net.snap) +
                       " --out " + heuristic).exit_code == 0);
    const std::string rows = "u0_1,u0_2,1\nu2_4,u2_6,1\nu0_4,u3_5,0\nu1_4,u4_6,0\nu5_5,u2_4,0\n";
    // Left out and counted: an unknown node, a node with itself, no label, a ragged row.
    const std::string pairs = dir.write("pairs.csv", "src,dst,label\n" + rows + "u0_1,ghost,1\nu1_1,u1_1,0\nu0_3,u0_4,\nu0_3,u0_5,1,x\n");
    const CliResult h = evaluate(heuristic, pairs, "h.json");
    INFO(h.out << h.err);
    REQUIRE(h.exit_code == 0);
    CHECK(has(h.err, "4 of 9 pairs left out, not evaluated (first: " + pairs + ":7: unknown node 'ghost')"));
    const auto m = read_json(dir.file("h.json"));
    CHECK(m["task"] == "link");
    CHECK(m["model_type"] == "heuristic:common-neighbours");
    CHECK(m["n_pairs"] == 5);
    CHECK(m["n_skipped"] == 4);
    CHECK(m["n_positive"] == 2);
    CHECK(m["n_negative"] == 3);
    CHECK(m["test_roc_auc"].get<double>() == 1.0);
    CHECK(m["test_pr_auc"].get<double>() == 1.0);
    CHECK(m["test_mrr"].get<double>() == 1.0);
    // The same pairs with the labels the other way round rank every edge below every non-edge.
    REQUIRE(evaluate(heuristic, dir.write("flipped.csv", "src,dst,label\nu0_1,u0_2,0\nu2_4,u2_6,0\nu0_4,u3_5,1\nu1_4,u4_6,1\nu5_5,u2_4,1\n"),
                     "f.json").exit_code == 0);
    CHECK(read_json(dir.file("f.json"))["test_roc_auc"].get<double>() == 0.0);

    // An attention model: the metrics of the scores predict --pairs writes for the same pairs.
    const std::string model = dir.file("m.gatkit");
    REQUIRE(run_gatkit("train --task link --data " + dir.file("net.txt") + " --out " + model + kSmall).exit_code == 0);
    const std::string clean = dir.write("clean.csv", "src,dst,label\n" + rows);
    REQUIRE(evaluate(model, clean, "g.json").exit_code == 0);
    REQUIRE(run_gatkit("predict --model " + model + " --pairs " + clean + " --out " + dir.file("s.csv")).exit_code == 0);
    std::vector<double> scores;
    std::vector<int> labels;
    const auto lines = lines_of(read_text(dir.file("s.csv")));
    REQUIRE(lines.size() == 6);
    for (std::size_t k = 1; k < lines.size(); ++k) {
        std::vector<std::string> f;
        std::stringstream in(lines[k]);
        for (std::string cell; std::getline(in, cell, ',');) f.push_back(cell);
        REQUIRE(f.size() >= 4);
        labels.push_back(std::stoi(f[2]));
        scores.push_back(std::stod(f[3]));
    }
    CHECK(read_json(dir.file("g.json"))["test_roc_auc"].get<double>() == Approx(gatkit::roc_auc(scores, labels)).margin(1e-12));
    CHECK(read_json(dir.file("g.json"))["model_type"] == "gat");

    // An edge model: accuracy is the share of pairs whose predicted class is their label.
    const std::string edge = dir.file("e.gatkit");
    REQUIRE(run_gatkit("train --task edge --data " + dir.write("net.csv", net.csv) + " --out " + edge + " --node-features degree --epochs 30" +
                       kSmall.substr(0, kSmall.find(" --epochs"))).exit_code == 0);
    const std::string labelled = dir.write("edges.csv", "src,dst,label\nu0_0,u0_1,inside\nu0_0,u1_1,between\nu3_2,u4_3,between\nu3_2,u3_5,inside\n");
    REQUIRE(evaluate(edge, labelled, "e.json").exit_code == 0);
    REQUIRE(run_gatkit("predict --model " + edge + " --pairs " + labelled + " --out " + dir.file("ep.csv")).exit_code == 0);
    int agree = 0;
    const auto predicted = lines_of(read_text(dir.file("ep.csv")));
    REQUIRE(predicted.size() == 5);
    CHECK(predicted[0] == "src,dst,label,predicted_class,p_between,p_inside,error");
    for (std::size_t k = 1; k < predicted.size(); ++k) {
        std::vector<std::string> f;
        std::stringstream in(predicted[k]);
        for (std::string cell; std::getline(in, cell, ',');) f.push_back(cell);
        REQUIRE(f.size() >= 4);
        agree += f[2] == f[3] ? 1 : 0;
    }
    const auto e = read_json(dir.file("e.json"));
    CHECK(e["task"] == "edge");
    CHECK(e["n_pairs"] == 4);
    CHECK(e["test_accuracy"].get<double>() == Approx(agree / 4.0).margin(1e-12));
    CHECK(e.contains("test_macro_f1"));

    // Files that cannot be scored: one line naming the file (and line).
    const auto refused = [&](const std::string& m, const std::string& file, const std::string& words) {
        const CliResult r = run_gatkit("evaluate --model " + m + " --data " + file);
        INFO(r.err);
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, words));
    };
    refused(heuristic, dir.write("bad.csv", "src,dst,label\nu0_1,u0_2,yes\n"), "bad.csv:2: label 'yes' is not 0 or 1");
    refused(heuristic, dir.write("nolabel.csv", "src,dst,y\nu0_1,u0_2,1\n"), "nolabel.csv:1: no 'label' column (the header has src, dst, y)");
    refused(heuristic, dir.write("ones.csv", "src,dst,label\nu0_1,u0_2,1\n"), "all labelled 1");
    refused(heuristic, dir.file("net.txt"), "a CSV of labelled node pairs");
    refused(edge, dir.write("cls.csv", "src,dst,label\nu0_0,u0_1,sideways\n"), "cls.csv:2: label 'sideways' is not one of the model's classes (between, inside)");
}
