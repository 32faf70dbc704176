// End-to-end: checkpoints and interrupted runs of `gatkit train` (docs/reliability.md). A run of
// E epochs and a run stopped after k epochs then resumed with --resume write the same model file,
// byte for byte, for the node, graph, link and edge tasks; SIGINT/SIGTERM to a running training
// exits 130/143 with a checkpoint that resumes to the same end; SIGKILL never leaves a truncated
// model under --out.
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include "gatkit/io/atomic_file.hpp"
#include "gatkit/train/checkpoint.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;
using gatkit::test::CliResult;
using gatkit::test::has;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::TempDir;

namespace {

// Splits shell-free argument text at spaces (the tests' paths have none).
std::vector<std::string> words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

// `gatkit ARGS` running in the background (no shell in between, so signals reach gatkit itself),
// stdout and stderr going to files in `dir`.
class Background {
public:
    Background(const std::string& args, const TempDir& dir) : out_(dir.file("bg.out")), err_(dir.file("bg.err")) {
        std::vector<std::string> argv_text = words(args);
        argv_text.insert(argv_text.begin(), GATKIT_CLI);
        std::vector<char*> argv;
        for (auto& a : argv_text) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int rc = posix_spawn(&pid_, GATKIT_CLI, &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        REQUIRE(rc == 0);
    }
    ~Background() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    void signal(int sig) const { REQUIRE(::kill(pid_, sig) == 0); }
    // The exit code, or 128 + signal number when a signal ended the process (as a shell shows it).
    int wait() {
        int status = 0;
        REQUIRE(::waitpid(pid_, &status, 0) == pid_);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    bool running() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }
    std::string err() const { return read_text(err_); }

private:
    pid_t pid_ = -1;
    std::string out_, err_;
};

// Waits until `path` exists (the run has trained an epoch and written its first checkpoint).
bool wait_for_file(const std::string& path, const Background& run) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
        if (fs::exists(path)) return true;
        if (!run.running()) {
            UNSCOPED_INFO("gatkit ended before writing " << path << "; stderr: " << run.err());
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    UNSCOPED_INFO("no " << path << " after 120 s; stderr: " << run.err());
    return false;
}

CliResult train(const std::string& args) {
    const CliResult r = run_gatkit("train " + args);
    INFO("gatkit train " << args << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return r;
}

// A planted-partition graph (LINQS files) written by gatkit generate.
std::string node_data(const TempDir& dir) {
    const std::string prefix = dir.file("g");
    REQUIRE(run_gatkit("generate --out " + prefix + " --nodes 200 --classes 3 --features 30 --seed 1").exit_code == 0);
    return prefix;
}
std::string node_run(const std::string& data) {
    return "--task node --data " + data + " --split random --threads 1 --quiet --heads 2 --hidden 4 --lr 0.05 --patience 0";
}

// 24 molecules; the label says whether the molecule has a nitrogen.
std::string molecule_data(const TempDir& dir) {
    const char* smiles[] = {"CCO",  "CCN",  "c1ccccc1",    "c1ccncc1",    "CC(=O)O", "CC(=O)N", "CCCC",     "CCCN",
                            "OCCO", "NCCN", "c1ccc(O)cc1", "c1ccc(N)cc1", "CC(C)C",  "CC(C)N",  "C1CCCCC1", "C1CCNCC1",
                            "CCOC", "CCNC", "O=CC=O",      "N#CC#N",      "CCCCO",   "CCCCN",   "COC",      "CNC"};
    std::string csv = "smiles,has_n\n";
    for (const char* s : smiles) csv += std::string(s) + "," + (std::string(s).find_first_of("Nn") != std::string::npos ? "1" : "0") + "\n";
    return dir.write("mols.csv", csv);
}
std::string graph_run(const std::string& data, const std::string& target = "has_n") {
    return "--task graph --data " + data + " --target-columns " + target + " --threads 1 --quiet --layers 2 --heads 2 --hidden 8 --mlp-hidden 8 "
           "--batch-size 4 --dropout 0.1 --split-sizes 0.5,0.25,0.25 --lr 0.03 --patience 0";
}

// 4 cliques of 6 users joined by bridges; CSV with an edge label (inside/between).
std::string network_data(const TempDir& dir) {
    std::string csv = "src,dst,label\n";
    const auto id = [](int c, int k) { return "u" + std::to_string(c) + "_" + std::to_string(k); };
    for (int c = 0; c < 4; ++c) {
        for (int i = 0; i < 6; ++i)
            for (int j = i + 1; j < 6; ++j) csv += id(c, i) + "," + id(c, j) + ",inside\n";
        csv += id(c, 0) + "," + id((c + 1) % 4, 1) + ",between\n";
        csv += id(c, 2) + "," + id((c + 1) % 4, 3) + ",between\n";
    }
    return dir.write("net.csv", csv);
}
std::string link_run(const std::string& task, const std::string& data) {
    return "--task " + task + " --data " + data + " --threads 1 --quiet --hidden 8 --heads 2 --out-channels 8 --dropout 0.2 --patience 0" +
           (task == "edge" ? " --node-features degree --lr 0.03 --split-sizes 0.6,0.2,0.2" : " --lr 0.01");
}

// The metrics of two runs agree on everything but wall time.
void check_same_metrics(const std::string& a, const std::string& b) {
    auto ma = nlohmann::json::parse(read_text(a)), mb = nlohmann::json::parse(read_text(b));
    for (auto* m : {&ma, &mb})
        for (const char* timing : {"train_seconds", "epoch_seconds_median", "peak_rss_mib"}) m->erase(timing);
    CHECK(ma.dump() == mb.dump());
}

// E epochs at once, and k epochs (with a checkpoint at k) then resumed to E: the same model file.
void check_resume_matches(const TempDir& dir, const std::string& run, int k, int total) {
    const std::string whole = dir.file("whole.gatkit"), part = dir.file("part.gatkit"), resumed = dir.file("resumed.gatkit");
    train(run + " --epochs " + std::to_string(total) + " --out " + whole + " --metrics-json " + dir.file("whole.json"));
    train(run + " --epochs " + std::to_string(k) + " --checkpoint-every " + std::to_string(k) + " --out " + part);
    REQUIRE(fs::exists(part + ".ckpt"));
    CHECK(gatkit::load_checkpoint(part + ".ckpt").state.epoch == k);
    train(run + " --epochs " + std::to_string(total) + " --resume " + part + ".ckpt --out " + resumed + " --metrics-json " +
          dir.file("resumed.json"));
    // The kept weights come from after the interruption, so the comparison covers the resumed epochs.
    REQUIRE(nlohmann::json::parse(read_text(dir.file("whole.json")))["best_epoch"].get<int>() > k);
    const std::string a = read_text(whole), b = read_text(resumed);
    REQUIRE(!a.empty());
    CHECK(a == b);
    check_same_metrics(dir.file("whole.json"), dir.file("resumed.json"));
}

// `run` has `flag value`; resuming (`resume`: --epochs and --resume) with `flag other`, or without
// the flag, is refused naming both, and writes no model.
void check_other_value_refused(const TempDir& dir, const std::string& run, const std::string& resume, const std::string& flag,
                               const std::string& value, const std::string& other) {
    const std::string given = " " + flag + " " + value;
    for (const auto& [replacement, shown] : {std::pair<std::string, std::string>{" " + flag + " " + other, flag + " " + other}, {"", flag + " (not given)"}}) {
        std::string args = run;
        args.replace(args.find(given), given.size(), replacement);
        const CliResult r = run_gatkit("train " + args + resume + " --out " + dir.file("other.gatkit"));
        INFO(r.err);
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "written by a run with " + flag + " " + value + "; this run has " + shown));
    }
    CHECK_FALSE(fs::exists(dir.file("other.gatkit")));
}

}  // namespace

TEST_CASE("gatkit train --resume: node task, k epochs then resumed equals one run", "[cli][checkpoint]") {
    TempDir dir;
    check_resume_matches(dir, node_run(node_data(dir)), 5, 12);
}

TEST_CASE("gatkit train --resume: graph task, k epochs then resumed equals one run", "[cli][checkpoint]") {
    TempDir dir;
    // Seed 1: its best epoch (6) comes after the interruption (check_resume_matches needs that).
    check_resume_matches(dir, graph_run(molecule_data(dir)) + " --seed 1", 3, 8);
}

TEST_CASE("gatkit train --resume: graph task with batches in several sub-batches, resumed equals one run", "[cli][checkpoint]") {
    TempDir dir;
    // The 24 molecules three times over: 36 training graphs, one batch of 36 = three sub-batches
    // (kSubBatchGraphs 16), with dropout, so each sub-batch draws from its own generator.
    const std::string one = read_text(molecule_data(dir));
    const std::string rows = one.substr(one.find('\n') + 1);
    const std::string data = dir.write("mols3.csv", one + rows + rows);
    std::string run = graph_run(data);
    run.replace(run.find("--batch-size 4"), std::string("--batch-size 4").size(), "--batch-size 36");
    check_resume_matches(dir, run, 2, 8);
}

TEST_CASE("gatkit train --resume with --init-seed: resumed equals one run, another or no init seed is refused", "[cli][checkpoint]") {
    TempDir dir;
    // Init seed 10: its best epoch comes after the interruption (check_resume_matches needs that).
    const std::string run = graph_run(molecule_data(dir)) + " --init-seed 10";
    check_resume_matches(dir, run, 3, 8);
    check_other_value_refused(dir, run, " --epochs 8 --resume " + dir.file("part.gatkit.ckpt"), "--init-seed", "10", "11");
}

TEST_CASE("gatkit train --resume of an ensemble: finished members come from the checkpoint, the current one continues",
          "[cli][checkpoint][ensemble]") {
    TempDir dir;
    const std::string run = graph_run(molecule_data(dir)) + " --ensemble-size 3";
    const std::string whole = dir.file("whole.gatkit"), part = dir.file("part.gatkit"), resumed = dir.file("resumed.gatkit");
    train(run + " --epochs 6 --out " + whole + " --metrics-json " + dir.file("whole.json"));
    // Each member writes a checkpoint at its epoch 4; the last one is member 3's, after members 1
    // and 2 finished their 6 epochs.
    train(run + " --epochs 6 --checkpoint-every 4 --out " + part);
    const gatkit::Checkpoint c = gatkit::load_checkpoint(part + ".ckpt");
    CHECK(c.member == 2);
    REQUIRE(c.finished.size() == 2);
    CHECK(c.finished[0].epochs_run == 6);
    CHECK(c.state.epoch == 4);
    CHECK(c.run.at("--ensemble-size") == "3");
    train(run + " --epochs 6 --resume " + part + ".ckpt --out " + resumed + " --metrics-json " + dir.file("resumed.json"));
    const std::string a = read_text(whole);
    REQUIRE(!a.empty());
    CHECK(a == read_text(resumed));
    auto ma = nlohmann::json::parse(read_text(dir.file("whole.json"))), mb = nlohmann::json::parse(read_text(dir.file("resumed.json")));
    for (auto* m : {&ma, &mb}) {
        for (const char* timing : {"train_seconds", "epoch_seconds_median", "peak_rss_mib"}) m->erase(timing);
        for (auto& member : (*m)["members"]) member.erase("train_seconds");
    }
    CHECK(ma.dump() == mb.dump());

    // Another ensemble size, or none, is another run.
    check_other_value_refused(dir, run, " --epochs 6 --resume " + part + ".ckpt", "--ensemble-size", "3", "2");
}

TEST_CASE("gatkit train --resume of a regression ensemble: finished members keep their training set's scalings", "[cli][checkpoint][ensemble]") {
    // A finished member's weights come from the checkpoint; its target mean and standard deviation
    // (and the scaling of molecule-level features, when the run has them) come from the training
    // set again. Without them the resumed run failed on an empty vector.
    TempDir dir;
    const std::string one = read_text(molecule_data(dir));
    std::string csv = "smiles,size\n";
    for (const auto& line : gatkit::test::lines_of(one.substr(one.find('\n') + 1))) {
        const std::string smiles = line.substr(0, line.find(','));
        csv += smiles + "," + std::to_string(1.5 * static_cast<double>(smiles.size()) + 20.0) + "\n";
    }
    const std::string run = graph_run(dir.write("sizes.csv", csv), "size") + " --ensemble-size 2";
    const std::string whole = dir.file("whole.gatkit"), part = dir.file("part.gatkit"), resumed = dir.file("resumed.gatkit");
    train(run + " --epochs 5 --out " + whole + " --metrics-json " + dir.file("whole.json"));
    train(run + " --epochs 5 --checkpoint-every 3 --out " + part);
    REQUIRE(gatkit::load_checkpoint(part + ".ckpt").member == 1);
    train(run + " --epochs 5 --resume " + part + ".ckpt --out " + resumed + " --metrics-json " + dir.file("resumed.json"));
    CHECK(read_text(whole) == read_text(resumed));
    auto ma = nlohmann::json::parse(read_text(dir.file("whole.json"))), mb = nlohmann::json::parse(read_text(dir.file("resumed.json")));
    CHECK(ma.at("target_type") == "regression");
    CHECK(ma.at("test_rmse").get<double>() == mb.at("test_rmse").get<double>());
    CHECK(ma.at("members")[0].at("val_rmse").get<double>() == mb.at("members")[0].at("val_rmse").get<double>());
}

TEST_CASE("gatkit train --resume: link and edge tasks, k epochs then resumed equals one run", "[cli][checkpoint]") {
    TempDir dir;
    const std::string data = network_data(dir);
    SECTION("link") { check_resume_matches(dir, link_run("link", data), 4, 10); }
    SECTION("edge") { check_resume_matches(dir, link_run("edge", data), 4, 10); }
}

TEST_CASE("gatkit train --resume refuses a damaged or mismatching checkpoint with a one-line reason", "[cli][checkpoint]") {
    TempDir dir;
    const std::string data = node_data(dir);
    const std::string run = node_run(data) + " --out " + dir.file("m.gatkit");
    train(run + " --epochs 2 --checkpoint-every 2");
    const std::string ckpt = dir.file("m.gatkit.ckpt");
    REQUIRE(fs::exists(ckpt));
    const auto refused = [&](const std::string& args, const std::string& why) {
        const CliResult r = run_gatkit("train " + args);
        INFO(r.err);
        CHECK(r.exit_code == 1);
        CHECK(has(r.err, "gatkit: error: --resume: "));
        CHECK(has(r.err, why));
    };
    refused(run + " --epochs 4 --resume " + ckpt + " --seed 2", "--seed 0; this run has --seed 2");
    refused(run + " --epochs 4 --resume " + ckpt + " --weight-decay 0.001", "--weight-decay 0.0005; this run has --weight-decay 0.001");
    // A flag the first run left to its default is named as such, not as an empty value.
    refused(run + " --epochs 4 --resume " + ckpt + " --split-sizes 0.5,0.25,0.25",
            "--split-sizes (not given: the default); this run has --split-sizes 0.5,0.25,0.25");
    std::string wider = run;
    wider.replace(wider.find("--heads 2"), 9, "--heads 3");
    refused(wider + " --epochs 4 --resume " + ckpt, "heads = 2; this run builds one with heads = 3");
    refused(graph_run(molecule_data(dir)) + " --out " + dir.file("g.gatkit") + " --epochs 4 --resume " + ckpt, "--data");
    // The same path with other contents: the split and weights would not match it.
    const std::string cites = read_text(data + ".cites");
    gatkit::write_file_atomically(data + ".cites", cites.substr(0, cites.rfind('\n', cites.size() - 2) + 1));
    refused(run + " --epochs 4 --resume " + ckpt, "was written from other contents of --data");
    gatkit::write_file_atomically(data + ".cites", cites);
    CHECK(run_gatkit("train " + node_run(data) + " --out " + dir.file("m3.gatkit") + " --epochs 3 --resume " + ckpt).exit_code == 0);
    gatkit::write_file_atomically(dir.file("cut.ckpt"), read_text(ckpt).substr(0, 100));
    refused(run + " --epochs 4 --resume " + dir.file("cut.ckpt"), "truncated");
    refused(run + " --epochs 4 --resume " + dir.file("m.gatkit"), "is a model file, not a training checkpoint");
    refused(run + " --epochs 4 --resume " + dir.file("none.ckpt"), "cannot open checkpoint");
    CHECK_FALSE(fs::exists(dir.file("g.gatkit")));

    // Options that cannot checkpoint are refused before any data is read.
    const CliResult kfold = run_gatkit("train " + graph_run(molecule_data(dir)) + " --split kfold:3 --checkpoint-every 2 --out " + dir.file("k.gatkit"));
    CHECK(kfold.exit_code == 1);
    CHECK(has(kfold.err, "single-split runs, not --split kfold:3"));
    const CliResult fp = run_gatkit("train --task graph --data " + molecule_data(dir) + " --target-columns has_n --threads 1 --quiet --model-type fingerprint --resume " +
                                    ckpt + " --out " + dir.file("f.gatkit"));
    CHECK(fp.exit_code == 1);
    CHECK(has(fp.err, "--model-type fingerprint trains no epochs"));
    // A model file path is not a place to read a checkpoint from: predict says what the file is.
    const CliResult p = run_gatkit("predict --model " + ckpt + " --data " + data + " --out " + dir.file("p.csv"));
    CHECK(p.exit_code == 1);
    CHECK(has(p.err, "is a training checkpoint, not a model file"));
}

TEST_CASE("SIGINT during gatkit train: exit 130, a checkpoint, no model, resuming it ends as one run", "[cli][checkpoint][signal]") {
    TempDir dir;
    const std::string run = node_run(node_data(dir));
    const std::string out = dir.file("m.gatkit"), ckpt = dir.file("m.gatkit.ckpt");
    Background bg("train " + run + " --epochs 1000000 --checkpoint-every 1 --out " + out, dir);
    REQUIRE(wait_for_file(ckpt, bg));
    bg.signal(SIGINT);
    const int code = bg.wait();
    const std::string err = bg.err();
    INFO(err);
    CHECK(code == 130);
    CHECK(has(err, "gatkit: interrupted by SIGINT after epoch "));
    CHECK(has(err, "checkpoint written to " + ckpt));
    CHECK(has(err, "--resume " + ckpt));
    CHECK_FALSE(fs::exists(out));
    const int epoch = gatkit::load_checkpoint(ckpt).state.epoch;
    REQUIRE(epoch >= 1);

    const std::string total = std::to_string(epoch + 3);
    train(run + " --epochs " + total + " --resume " + ckpt + " --out " + dir.file("resumed.gatkit"));
    train(run + " --epochs " + total + " --out " + dir.file("whole.gatkit"));
    CHECK(read_text(dir.file("resumed.gatkit")) == read_text(dir.file("whole.gatkit")));
}

TEST_CASE("SIGTERM during graph training: exit 143 and a checkpoint (perhaps inside an epoch) that resumes as one run",
          "[cli][checkpoint][signal]") {
    TempDir dir;
    const std::string run = graph_run(molecule_data(dir));
    const std::string out = dir.file("m.gatkit"), ckpt = dir.file("run.ckpt");
    Background bg("train " + run + " --epochs 1000000 --checkpoint-every 1 --checkpoint " + ckpt + " --out " + out, dir);
    REQUIRE(wait_for_file(ckpt, bg));
    bg.signal(SIGTERM);
    const int code = bg.wait();
    INFO(bg.err());
    CHECK(code == 143);
    CHECK(has(bg.err(), "interrupted by SIGTERM"));
    CHECK_FALSE(fs::exists(out));
    const gatkit::Checkpoint c = gatkit::load_checkpoint(ckpt);
    const std::string total = std::to_string(c.state.epoch + 2);
    train(run + " --epochs " + total + " --resume " + ckpt + " --out " + dir.file("resumed.gatkit"));
    train(run + " --epochs " + total + " --out " + dir.file("whole.gatkit"));
    CHECK(read_text(dir.file("resumed.gatkit")) == read_text(dir.file("whole.gatkit")));
}

TEST_CASE("SIGKILL during gatkit train never leaves a truncated model under --out", "[cli][checkpoint][signal]") {
    TempDir dir;
    const std::string run = node_run(node_data(dir));
    const std::string out = dir.file("m.gatkit"), ckpt = dir.file("m.gatkit.ckpt");
    const bool previous = GENERATE(false, true);
    std::string before;
    if (previous) {
        train(run + " --epochs 2 --out " + out);
        before = read_text(out);
        REQUIRE(!before.empty());
    }
    Background bg("train " + run + " --epochs 1000000 --checkpoint-every 1 --out " + out, dir);
    REQUIRE(wait_for_file(ckpt, bg));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    bg.signal(SIGKILL);
    CHECK(bg.wait() == 128 + SIGKILL);
    if (previous)
        CHECK(read_text(out) == before);  // the previous complete model, untouched
    else
        CHECK_FALSE(fs::exists(out));
    // The checkpoint is complete too (written the same way), whenever the kill came.
    CHECK(gatkit::load_checkpoint(ckpt).state.epoch >= 1);
}
