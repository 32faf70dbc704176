// End-to-end tests of the `gatkit` program (ARCHITECTURE.md §6–7): the real binary is run on
// small synthetic graphs written by `gatkit generate`, with stdout and stderr captured to files.
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using gatkit::test::TempDir;
using gatkit::test::shell_quote;
using gatkit::test::run_gatkit;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using RunResult = gatkit::test::CliResult;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string cur;
    for (const char c : s) {
        if (c == sep) {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    parts.push_back(cur);
    return parts;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

// The user-error contract: exit 1, stderr is one "gatkit: error: ..." line, optionally followed by
// one "hint: ..." line.
void require_user_error(const RunResult& r) {
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 1);
    const auto lines = lines_of(r.err);
    REQUIRE(!lines.empty());
    REQUIRE(lines.size() <= 2);
    CHECK(starts_with(lines[0], "gatkit: error: "));
    if (lines.size() == 2) CHECK(starts_with(lines[1], "hint: "));
}

// Generated planted-partition graph: DIR/g.content + DIR/g.cites, node ids n0..n{N-1}, classes
// class0..class{C-1}.
std::string generate(const TempDir& dir, int nodes = 300, std::uint64_t seed = 1) {
    const std::string prefix = dir.file("g");
    const RunResult r = run_gatkit("generate --out " + shell_quote(prefix) + " --nodes " + std::to_string(nodes) +
                            " --classes 3 --features 40 --seed " + std::to_string(seed));
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(fs::exists(prefix + ".content"));
    REQUIRE(fs::exists(prefix + ".cites"));
    return prefix;
}

// Split file over n0..n{N-1}: i % 5 == 0 train, 1 val, 2..4 test (the default planetoid split needs
// 500 + 1000 nodes beyond the training set, more than a 300-node graph has).
std::string write_split(const TempDir& dir, int nodes, int& n_train, int& n_val, int& n_test) {
    std::string text = "node_id,split\n";
    n_train = n_val = n_test = 0;
    for (int i = 0; i < nodes; ++i) {
        const int k = i % 5;
        text += "n" + std::to_string(i) + "," + (k == 0 ? "train" : k == 1 ? "val" : "test") + "\n";
        (k == 0 ? n_train : k == 1 ? n_val : n_test) += 1;
    }
    return dir.write("split.csv", text);
}

std::string write_split(const TempDir& dir, int nodes) {
    int a, b, c;
    return write_split(dir, nodes, a, b, c);
}

// No "<name>.tmp.<pid>" or other leftovers next to an output that should not exist.
void require_no_output(const std::string& path) {
    CHECK_FALSE(fs::exists(path));
    for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
        CHECK_FALSE(starts_with(entry.path().filename().string(), fs::path(path).filename().string()));
}

}  // namespace

TEST_CASE("train writes the model and a metrics JSON with the documented keys", "[cli]") {
    TempDir dir;
    const std::string data = generate(dir);
    int n_train, n_val, n_test;
    const std::string split = write_split(dir, 300, n_train, n_val, n_test);
    const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) +
                            " --epochs 30 --seed 3 --threads 2 --out " + shell_quote(dir.file("m.gatkit")) +
                            " --metrics-json " + shell_quote(dir.file("m.json")));
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(fs::exists(dir.file("m.gatkit")));
    REQUIRE(fs::file_size(dir.file("m.gatkit")) > 0);
    CHECK(contains(r.out, "model written to"));

    const nlohmann::json m = read_json(dir.file("m.json"));
    REQUIRE(m.is_object());
    for (const char* key : {"task", "data", "n_nodes", "n_edges", "n_skipped", "seed", "threads", "epochs_run", "best_epoch",
                            "train_seconds", "epoch_seconds_median", "val_accuracy", "test_accuracy"}) {
        INFO("key " << key);
        CHECK(m.contains(key));
    }
    CHECK(m["task"] == "node");
    CHECK(m["data"] == data);
    CHECK(m["n_nodes"] == 300);
    CHECK(m["n_edges"].get<long>() > 0);
    CHECK(m["n_skipped"] == 0);
    CHECK(m["seed"] == 3);
    CHECK(m["threads"] == 2);
    CHECK(m["epochs_run"].get<int>() >= 1);
    CHECK(m["epochs_run"].get<int>() <= 30);
    CHECK(m["best_epoch"].get<int>() >= 0);
    CHECK(m["best_epoch"].get<int>() <= m["epochs_run"].get<int>());
    CHECK(m["train_seconds"].get<double>() > 0.0);
    CHECK(m["epoch_seconds_median"].get<double>() > 0.0);
    CHECK(m["epoch_seconds_median"].get<double>() <= m["train_seconds"].get<double>());
    for (const char* key : {"val_accuracy", "test_accuracy"}) {
        CHECK(m[key].get<double>() >= 0.0);
        CHECK(m[key].get<double>() <= 1.0);
    }
    CHECK(m["n_train"] == n_train);
    CHECK(m["n_val"] == n_val);
    CHECK(m["n_test"] == n_test);

    // The metrics object is flat: every value is a number or a string.
    for (const auto& [key, value] : m.items()) {
        INFO("key " << key);
        CHECK((value.is_number() || value.is_string()));
    }
}

TEST_CASE("train learns the generated graph well above chance with the default planetoid split", "[cli]") {
    // 1,600 nodes: 60 training nodes (20 per class), 500 validation, 1,000 test.
    TempDir dir;
    const std::string data = generate(dir, 1600);
    const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --epochs 100 --quiet --threads 1 --out " + shell_quote(dir.file("m.gatkit")) +
                            " --metrics-json " + shell_quote(dir.file("m.json")));
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());  // --quiet
    const nlohmann::json m = read_json(dir.file("m.json"));
    CHECK(m["n_train"] == 60);
    CHECK(m["n_val"] == 500);
    CHECK(m["n_test"] == 1000);
    CHECK(m["seed"] == 0);
    INFO("test accuracy " << m["test_accuracy"] << ", val accuracy " << m["val_accuracy"]);
    CHECK(m["test_accuracy"].get<double>() > 0.6);  // chance is 1/3
    CHECK(m["val_accuracy"].get<double>() > 0.6);
}

TEST_CASE("predict writes one row of class probabilities per node, in input order, and info describes the model", "[cli]") {
    TempDir dir;
    const std::string data = generate(dir);
    const std::string model = dir.file("m.gatkit");
    REQUIRE(run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(write_split(dir, 300)) +
                " --epochs 30 --quiet --threads 1 --out " + shell_quote(model))
                .exit_code == 0);

    const RunResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(data) + " --out " + shell_quote(dir.file("p.csv")));
    INFO("stderr: " << p.err);
    REQUIRE(p.exit_code == 0);
    const auto lines = lines_of(read_text(dir.file("p.csv")));
    REQUIRE(lines.size() == 301);
    CHECK(lines[0] == "node_id,predicted_class,p_class0,p_class1,p_class2");
    for (int i = 0; i < 300; ++i) {
        INFO("row " << i + 1 << ": " << lines[i + 1]);
        const auto f = split(lines[i + 1], ',');
        REQUIRE(f.size() == 5);
        CHECK(f[0] == "n" + std::to_string(i));
        double sum = 0.0, best = -1.0;
        int argmax = -1;
        for (int k = 0; k < 3; ++k) {
            const double v = std::stod(f[2 + k]);
            CHECK(v >= 0.0);
            CHECK(v <= 1.0);
            sum += v;
            if (v > best) best = v, argmax = k;
        }
        CHECK(std::abs(sum - 1.0) < 1e-5);
        CHECK(f[1] == "class" + std::to_string(argmax));
    }

    const RunResult info = run_gatkit("info --model " + shell_quote(model));
    INFO("info stdout: " << info.out << "\nstderr: " << info.err);
    REQUIRE(info.exit_code == 0);
    // 2 GAT layers as in PyG: 40→8×8 (W 2560, a_src 64, a_dst 64, bias 64) + 64→3 (W 192, 3 + 3 + 3).
    CHECK(contains(info.out, "parameters: 2953"));
    CHECK(contains(info.out, "classes:    3 (class0, class1, class2)"));
    CHECK(contains(info.out, "40 columns (features)"));

    // Data with another feature count is a user error, and no predictions file appears.
    const RunResult g = run_gatkit("generate --out " + shell_quote(dir.file("g30")) + " --nodes 50 --classes 3 --features 30 --seed 2");
    REQUIRE(g.exit_code == 0);
    const RunResult bad = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(dir.file("g30")) + " --out " + shell_quote(dir.file("q.csv")));
    require_user_error(bad);
    CHECK(contains(bad.err, "30 features"));
    CHECK(contains(bad.err, "40"));
    require_no_output(dir.file("q.csv"));
}

TEST_CASE("the same seed gives the same model and predictions with 1 and 2 threads", "[cli][determinism]") {
    TempDir dir;
    const std::string data = generate(dir);
    const std::string split = write_split(dir, 300);
    for (const int t : {1, 2}) {
        const std::string n = std::to_string(t);
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) + " --epochs 30 --seed 7 --quiet --threads " +
                                n + " --out " + shell_quote(dir.file("m" + n)) + " --metrics-json " + shell_quote(dir.file("m" + n + ".json")));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const RunResult p = run_gatkit("predict --model " + shell_quote(dir.file("m" + n)) + " --data " + shell_quote(data) + " --threads " + n +
                                " --out " + shell_quote(dir.file("p" + n + ".csv")));
        INFO("stderr: " << p.err);
        REQUIRE(p.exit_code == 0);
    }
    const nlohmann::json m1 = read_json(dir.file("m1.json")), m2 = read_json(dir.file("m2.json"));
    CHECK(m1["threads"] == 1);
    CHECK(m2["threads"] == 2);
    CHECK(m1["test_accuracy"].get<double>() == m2["test_accuracy"].get<double>());
    CHECK(m1["val_accuracy"].get<double>() == m2["val_accuracy"].get<double>());
    CHECK(m1["best_epoch"] == m2["best_epoch"]);
    CHECK(m1["epochs_run"] == m2["epochs_run"]);
    const std::string model1 = read_text(dir.file("m1")), model2 = read_text(dir.file("m2"));
    CHECK(!model1.empty());
    CHECK(model1 == model2);
    const std::string p1 = read_text(dir.file("p1.csv")), p2 = read_text(dir.file("p2.csv"));
    CHECK(!p1.empty());
    CHECK(p1 == p2);

    SECTION("a different seed gives a different model") {
        REQUIRE(run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) + " --epochs 30 --seed 8 --quiet --threads 1 --out " +
                    shell_quote(dir.file("m3")))
                    .exit_code == 0);
        CHECK(read_text(dir.file("m3")) != model2);
    }
}

TEST_CASE("a saved model predicts the same twice", "[cli]") {
    TempDir dir;
    const std::string data = generate(dir);
    const std::string model = dir.file("m.gatkit");
    REQUIRE(run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(write_split(dir, 300)) +
                " --epochs 30 --quiet --threads 1 --out " + shell_quote(model))
                .exit_code == 0);
    for (const char* name : {"a.csv", "b.csv"})
        REQUIRE(run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(data) + " --threads 1 --out " + shell_quote(dir.file(name))).exit_code == 0);
    const std::string a = read_text(dir.file("a.csv"));
    CHECK(lines_of(a).size() == 301);
    CHECK(a == read_text(dir.file("b.csv")));
}

TEST_CASE("train --split-file is honoured and its unknown ids are reported", "[cli]") {
    TempDir dir;
    const std::string data = generate(dir);

    SECTION("a split over some of the nodes") {
        // Nodes not listed are unused.
        std::string text = "node_id,split\n";
        for (int i = 0; i < 30; ++i) text += "n" + std::to_string(i) + ",train\n";
        for (int i = 30; i < 80; ++i) text += "n" + std::to_string(i) + ",val\n";
        for (int i = 100; i < 300; i += 2) text += "n" + std::to_string(i) + ",test\n";
        const std::string split = dir.write("split.csv", text);
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) + " --epochs 10 --quiet --threads 1 --out " +
                                shell_quote(dir.file("m")) + " --metrics-json " + shell_quote(dir.file("m.json")));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const nlohmann::json m = read_json(dir.file("m.json"));
        CHECK(m["n_train"] == 30);
        CHECK(m["n_val"] == 50);
        CHECK(m["n_test"] == 100);
        CHECK(m["n_nodes"] == 300);
    }

    SECTION("an id that is not in the data") {
        const std::string split = dir.write("split.csv", "node_id,split\nn0,train\nn1,val\nn_missing_42,test\nn2,test\n");
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) + " --epochs 5 --quiet --threads 1 --out " +
                                shell_quote(dir.file("m")));
        require_user_error(r);
        CHECK(contains(r.err, "n_missing_42"));
        CHECK(contains(r.err, "split.csv:4"));
        require_no_output(dir.file("m"));
    }
}

TEST_CASE("bad input is a one-line user error naming the file, line and value, and writes no model", "[cli]") {
    TempDir dir;
    const std::string data = generate(dir);
    const std::string content = read_text(data + ".content");
    const std::string cites = read_text(data + ".cites");
    auto content_lines = lines_of(content);
    REQUIRE(content_lines.size() == 300);
    const std::string out = dir.file("out/model.gatkit");
    fs::create_directories(dir.file("out"));

    const auto train = [&](const std::string& data_path) {
        return run_gatkit("train --data " + shell_quote(data_path) + " --split-file " + shell_quote(write_split(dir, 300)) + " --epochs 5 --threads 1 --out " +
                   shell_quote(out) + " --metrics-json " + shell_quote(dir.file("out/metrics.json")));
    };
    // A copy of the generated data set in DIR/NAME/, with its files replaced where given.
    const auto variant = [&](const std::string& name, const std::string& c, const std::string& e) {
        fs::create_directories(dir.file(name));
        dir.write(name + "/g.content", c);
        dir.write(name + "/g.cites", e);
        return dir.file(name);
    };
    const auto join = [](const std::vector<std::string>& lines) {
        std::string s;
        for (const auto& l : lines) s += l + "\n";
        return s;
    };

    SECTION("missing data folder") {
        const RunResult r = train(dir.file("no_such_folder"));
        require_user_error(r);
        CHECK(contains(r.err, "no_such_folder"));
    }
    SECTION("a .content row with the wrong column count") {
        auto rows = content_lines;
        rows[4] = rows[4].substr(0, rows[4].rfind('\t'));  // line 5 loses its label: 41 columns, not 42
        const RunResult r = train(variant("cols", join(rows), cites));
        require_user_error(r);
        CHECK(contains(r.err, "g.content:5:"));
        CHECK(contains(r.err, "42"));
        CHECK(contains(r.err, "41"));
    }
    SECTION("a non-numeric feature") {
        auto rows = content_lines;
        auto f = split(rows[2], '\t');
        f[3] = "abc";  // line 3, column 4
        rows[2].clear();
        for (std::size_t k = 0; k < f.size(); ++k) rows[2] += (k ? "\t" : "") + f[k];
        const RunResult r = train(variant("nan", join(rows), cites));
        require_user_error(r);
        CHECK(contains(r.err, "g.content:3:"));
        CHECK(contains(r.err, "'abc'"));
    }
    SECTION("an empty .content file") {
        const RunResult r = train(variant("empty", "", cites));
        require_user_error(r);
        CHECK(contains(r.err, "g.content"));
        CHECK(contains(r.err, "empty"));
    }
    SECTION("a .cites line with one column") {
        const std::size_t n_cites = lines_of(cites).size();
        const RunResult r = train(variant("cites", content, cites + "n17\n"));
        require_user_error(r);
        CHECK(contains(r.err, "g.cites:" + std::to_string(n_cites + 1) + ":"));
        CHECK(contains(r.err, "'n17'"));
    }
    SECTION("an unknown --mask") {
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --mask ring --out " + shell_quote(out));
        require_user_error(r);
        CHECK(contains(r.err, "mask 'ring'"));
    }
    SECTION("a --pe without K") {
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --pe lap --out " + shell_quote(out));
        require_user_error(r);
        CHECK(contains(r.err, "pe 'lap'"));
    }
    SECTION("predict with a model file that does not exist") {
        const RunResult r = run_gatkit("predict --model " + shell_quote(dir.file("nope.gatkit")) + " --data " + shell_quote(data) + " --out " + shell_quote(out));
        require_user_error(r);
        CHECK(contains(r.err, "nope.gatkit"));
    }
    require_no_output(out);
    CHECK_FALSE(fs::exists(dir.file("out/metrics.json")));
}

TEST_CASE("usage errors exit with code 2", "[cli]") {
    TempDir dir;
    SECTION("unknown flag") {
        const RunResult r = run_gatkit("train --data x --out " + shell_quote(dir.file("m")) + " --no-such-flag");
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "--no-such-flag"));
    }
    SECTION("missing --out") {
        const RunResult r = run_gatkit("train --data x");
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "--out"));
    }
    SECTION("out-of-range numbers say what is accepted") {
        const std::string train = "train --data x --out " + shell_quote(dir.file("m"));
        for (const std::string& bad : std::vector<std::string>{"0", "-3", "100000", "two"}) {
            const RunResult r = run_gatkit(train + " --threads " + bad);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "expected a thread count from 1 to 1024, got '" + bad + "'"));
        }
        for (const std::string& bad : std::vector<std::string>{"-1", "99999999999999999999", "1e3"}) {
            const RunResult r = run_gatkit(train + " --seed " + bad);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "expected a seed from 0 to 18446744073709551615, got '" + bad + "'"));
        }
        const RunResult p = run_gatkit(train + " --patience -1");
        CHECK(p.exit_code == 2);
        CHECK(contains(p.err, "expected an integer >= 0, got '-1'"));
    }
    SECTION("flags missing or given together that cannot be") {
        const std::string data = generate(dir);
        const std::string model = dir.file("n.gatkit");
        REQUIRE(run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(write_split(dir, 300)) +
                           " --epochs 2 --quiet --threads 1 --out " + shell_quote(model))
                    .exit_code == 0);
        const RunResult no_out = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(data));
        CHECK(no_out.exit_code == 2);
        CHECK(contains(no_out.err, "predict --data needs --out"));
        const RunResult both = run_gatkit("predict --model " + shell_quote(model) + " --out p.csv");
        CHECK(both.exit_code == 2);
        CHECK(contains(both.err, "exactly one of --data and --smiles"));
        const RunResult residual = run_gatkit("train --data x --out " + shell_quote(dir.file("m")) + " --residual --no-residual");
        CHECK(residual.exit_code == 2);
        CHECK(contains(residual.err, "contradict"));
    }
    SECTION("no subcommand") { CHECK(run_gatkit("").exit_code == 2); }
    SECTION("unknown subcommand") { CHECK(run_gatkit("frobnicate").exit_code == 2); }
    SECTION("--help and --version succeed") {
        const RunResult h = run_gatkit("train --help");
        CHECK(h.exit_code == 0);
        CHECK(contains(h.out, "--split-file"));
        const RunResult v = run_gatkit("--version");
        CHECK(v.exit_code == 0);
        CHECK(contains(v.out, "gatkit"));
    }
    CHECK_FALSE(fs::exists(dir.file("m")));
}

TEST_CASE("a failing train leaves no output file behind", "[cli]") {
    TempDir dir;
    const std::string data = generate(dir);
    const std::string split = write_split(dir, 300);

    SECTION("--out in a folder that does not exist") {
        const std::string out = dir.file("missing_dir/m.gatkit");
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) + " --epochs 3 --quiet --threads 1 --out " + shell_quote(out));
        require_user_error(r);
        CHECK(contains(r.err, "missing_dir"));
        CHECK_FALSE(fs::exists(dir.file("missing_dir")));
    }
    SECTION("--metrics-json in a folder that does not exist") {
        const std::string out = dir.file("m.gatkit");
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) + " --epochs 3 --quiet --threads 1 --out " + shell_quote(out) +
                                " --metrics-json " + shell_quote(dir.file("missing_dir/m.json")));
        require_user_error(r);
        CHECK(contains(r.err, "missing_dir"));
        require_no_output(out);
    }
    SECTION("the default planetoid split on a graph too small for it") {
        const std::string out = dir.file("m.gatkit");
        const RunResult r = run_gatkit("train --data " + shell_quote(data) + " --epochs 3 --quiet --threads 1 --out " + shell_quote(out));
        require_user_error(r);
        CHECK(contains(r.err, "300 nodes"));
        require_no_output(out);
    }
    SECTION("a failed train keeps an existing model as it was") {
        const std::string out = dir.write("old.gatkit", "previous model bytes");
        const RunResult r = run_gatkit("train --data " + shell_quote(dir.file("nope")) + " --epochs 3 --quiet --threads 1 --out " + shell_quote(out));
        require_user_error(r);
        CHECK(read_text(out) == "previous model bytes");
    }
}

TEST_CASE("gatkit evaluate: a node model's accuracy per part of a split file, or over every labelled node", "[cli][evaluate]") {
    TempDir dir;
    const std::string data = generate(dir);
    const std::string split = write_split(dir, 300), model = dir.file("m.gatkit");
    REQUIRE(run_gatkit("train --data " + shell_quote(data) + " --split-file " + shell_quote(split) + " --epochs 30 --quiet --threads 1 --out " +
                       shell_quote(model) + " --metrics-json " + shell_quote(dir.file("m.json")))
                .exit_code == 0);
    const RunResult e = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(data) + " --split-file " + shell_quote(split) +
                                   " --threads 2 --metrics-json " + shell_quote(dir.file("e.json")));
    INFO("stderr: " << e.err);
    REQUIRE(e.exit_code == 0);
    const nlohmann::json trained = read_json(dir.file("m.json")), evaluated = read_json(dir.file("e.json"));
    CHECK(evaluated["task"] == "node");
    for (const char* key : {"train_accuracy", "val_accuracy", "test_accuracy", "n_train", "n_val", "n_test"}) {
        INFO(key);
        CHECK(evaluated[key] == trained[key]);
    }
    CHECK(evaluated.contains("test_f1"));
    // Without a split file every labelled node is the test set.
    const RunResult all = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(data) + " --metrics-json " +
                                     shell_quote(dir.file("all.json")));
    REQUIRE(all.exit_code == 0);
    const nlohmann::json a = read_json(dir.file("all.json"));
    CHECK(a["n_test"] == 300);
    CHECK_FALSE(a.contains("train_accuracy"));
    const double mean = (trained["train_accuracy"].get<double>() * 60 + trained["val_accuracy"].get<double>() * 60 +
                         trained["test_accuracy"].get<double>() * 180) / 300;
    CHECK(a["test_accuracy"].get<double>() == Approx(mean).margin(1e-9));
    // A split file that lists only test nodes: only test metrics.
    std::string only_test = "node_id,split\n";
    for (int i = 0; i < 300; ++i)
        if (i % 5 >= 2) only_test += "n" + std::to_string(i) + ",test\n";
    const RunResult t = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(data) + " --split-file " +
                                   shell_quote(dir.write("only_test.csv", only_test)) + " --metrics-json " + shell_quote(dir.file("t.json")));
    INFO("stderr: " << t.err);
    REQUIRE(t.exit_code == 0);
    const nlohmann::json tj = read_json(dir.file("t.json"));
    CHECK(tj["n_train"] == 0);
    CHECK(tj["test_accuracy"] == trained["test_accuracy"]);
    CHECK_FALSE(tj.contains("train_accuracy"));
    // A missing --data is a usage error; a missing model file a user error.
    CHECK(run_gatkit("evaluate --model " + shell_quote(model)).exit_code == 2);
    CHECK(run_gatkit("evaluate --model " + shell_quote(dir.file("none.gatkit")) + " --data " + shell_quote(data)).exit_code == 1);
}

TEST_CASE("train refuses flags its task would ignore, naming the tasks they go with", "[cli]") {
    TempDir dir;
    const std::string data = generate(dir);
    const std::string out = " --epochs 2 --quiet --threads 1 --out " + shell_quote(dir.file("m.gatkit"));
    const auto refused = [&](const std::string& args, const std::string& words) {
        const RunResult r = run_gatkit("train " + args + out);
        INFO(args << "\nstderr: " << r.err);
        CHECK(r.exit_code == 1);
        CHECK(contains(r.err, words));
        CHECK_FALSE(fs::exists(dir.file("m.gatkit")));
    };
    const std::string node = "--task node --data " + shell_quote(data);
    refused(node + " --batch-size 8", "--batch-size does not apply to --task node (it goes with --task graph)");
    refused(node + " --readout max", "--readout does not apply to --task node");
    refused(node + " --target-columns y", "--target-columns does not apply to --task node");
    refused(node + " --decoder dot", "--decoder does not apply to --task node (it goes with --task link|edge)");
    refused(node + " --model-type fingerprint", "--model-type fingerprint is not available for --task node (available: gat)");
    const std::string mols = dir.write("m.csv", "smiles,y\nCCO,1\nCCN,0\n");
    refused("--task graph --data " + shell_quote(mols) + " --target-columns y --split-file s.csv", "--split-file does not apply to --task graph (it goes with --task node)");
    refused("--task graph --data " + shell_quote(mols) + " --target-columns y --directed", "--directed does not apply to --task graph");
    refused("--task link --data " + shell_quote(data) + " --split-column part", "--split-column does not apply to --task link");
    // Baselines without layers or epochs refuse the attention model's flags: --epochs, which every
    // call above passes, and the others on their own.
    refused("--task graph --data " + shell_quote(mols) + " --target-columns y --model-type fingerprint", "--epochs does not apply to --model-type fingerprint");
    const auto refused_alone = [&](const std::string& args, const std::string& words) {
        const RunResult r = run_gatkit("train " + args + " --quiet --threads 1 --out " + shell_quote(dir.file("m.gatkit")));
        INFO(args << "\nstderr: " << r.err);
        CHECK(r.exit_code == 1);
        CHECK(contains(r.err, words));
        CHECK_FALSE(fs::exists(dir.file("m.gatkit")));
    };
    refused_alone("--task graph --data " + shell_quote(mols) + " --target-columns y --model-type fingerprint --heads 4",
            "--heads does not apply to --model-type fingerprint (it sets the attention model, --model-type gat)");
    refused_alone("--task graph --data " + shell_quote(mols) + " --target-columns y --model-type fingerprint --lr 0.1", "--lr does not apply to --model-type fingerprint");
    refused_alone("--task link --data " + shell_quote(data) + " --model-type heuristic:jaccard --decoder hadamard-mlp",
            "--decoder does not apply to --model-type heuristic:jaccard");
    refused_alone("--task link --data " + shell_quote(data) + " --model-type heuristic:jaccard --node-features degree",
            "--node-features does not apply to --model-type heuristic:jaccard");
    // --split and --split-file together: a usage error.
    const RunResult both = run_gatkit("train " + node + " --split random --split-file " + shell_quote(write_split(dir, 300)) + out);
    CHECK(both.exit_code == 2);
    CHECK(contains(both.err, "not both"));
}
