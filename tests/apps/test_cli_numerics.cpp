// Numerical faults end to end: a learning rate far too large makes every task diverge; gatkit
// stops with exit 1 and one error line naming the epoch, the batch and a parameter (plus a hint
// line about --lr), and writes no model file and no metrics (train/numerics.hpp).
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

namespace fs = std::filesystem;
using gatkit::test::CliResult;
using gatkit::test::cliques_csv;
using gatkit::test::has;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::shell_quote;
using gatkit::test::TempDir;

namespace {

// 48 small molecules; the label says whether there is a nitrogen.
std::string molecules_csv() {
    const char* smiles[] = {"CCO", "CCN", "c1ccccc1", "c1ccncc1", "CC(=O)O", "CC(=O)N", "CCCC", "CCCN", "OCCO", "NCCN", "CC(C)C", "CC(C)N",
                            "C1CCCCC1", "C1CCNCC1", "CCOC", "CCNC", "O=CC=O", "N#CC#N", "CCCCO", "CCCCN", "COC", "CNC", "OCC(O)CO", "NCC(N)CN"};
    std::string csv = "smiles,has_n\n";
    for (int rep = 0; rep < 2; ++rep)
        for (const char* s : smiles) csv += std::string(s) + "," + (std::string(s).find_first_of("Nn") != std::string::npos ? "1" : "0") + "\n";
    return csv;
}

// exit 1; "gatkit: error: training diverged at epoch E, batch B of N: ... '<parameter>' ...;
// no model file was written" and a hint about --lr; nothing at --out or --metrics-json.
void require_diverged(const CliResult& r, const std::string& out, const std::string& metrics) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 1);
    const auto lines = lines_of(r.err);
    REQUIRE(lines.size() == 2);
    CHECK(std::regex_search(lines[0], std::regex(R"(^gatkit: error: training diverged at epoch \d+, batch \d+ of \d+: )")));
    // a parameter by name: layers.<l>.<...>, head.<...>, decoder.<...>, pool.<...>
    CHECK(std::regex_search(lines[0], std::regex(R"('(layers|head|decoder|pool|pe_proj)\.[a-z0-9_.]+')")));
    CHECK(has(lines[0], "no model file was written"));
    CHECK(has(lines[1], "hint: ") );
    CHECK(has(lines[1], "--lr"));
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(metrics));
    for (const auto& entry : fs::directory_iterator(fs::path(out).parent_path()))
        CHECK_FALSE(entry.path().filename().string().rfind(fs::path(out).filename().string() + ".tmp", 0) == 0);
}

}  // namespace

TEST_CASE("train with a learning rate far too large stops with epoch, batch and parameter, and writes no model", "[cli][numerics]") {
    TempDir dir;
    const std::string out = dir.file("m.gatkit"), metrics = dir.file("m.json");
    const std::string outputs = " --threads 1 --quiet --out " + shell_quote(out) + " --metrics-json " + shell_quote(metrics);

    SECTION("node task: a non-finite gradient, then non-finite outputs after the first step") {
        const std::string prefix = dir.file("g");
        REQUIRE(run_gatkit("generate --out " + shell_quote(prefix) + " --nodes 120 --classes 3 --features 20 --seed 1").exit_code == 0);
        const CliResult grad = run_gatkit("train --data " + shell_quote(prefix) + " --split random --epochs 40 --lr 1e10" + outputs);
        require_diverged(grad, out, metrics);
        const CliResult outs = run_gatkit("train --data " + shell_quote(prefix) + " --split random --epochs 1 --lr 1e30" + outputs);
        require_diverged(outs, out, metrics);
        CHECK(has(outs.err, "not finite"));

        SECTION("an existing model at --out stays as it was") {
            REQUIRE(run_gatkit("train --data " + shell_quote(prefix) + " --split random --epochs 2 --quiet --threads 1 --out " + shell_quote(out))
                        .exit_code == 0);
            const std::string before = read_text(out);
            REQUIRE(!before.empty());
            const CliResult again = run_gatkit("train --data " + shell_quote(prefix) + " --split random --epochs 40 --lr 1e10 --threads 1 --out " +
                                               shell_quote(out));
            CHECK(again.exit_code == 1);
            CHECK(read_text(out) == before);
        }
    }
    SECTION("graph task: the batch is named among the epoch's batches") {
        const std::string data = dir.write("mols.csv", molecules_csv());
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) +
                                       " --target-columns has_n --epochs 20 --layers 1 --heads 2 --hidden 8 --mlp-hidden 16 --batch-size 8 --lr 1e10" +
                                       outputs);
        require_diverged(r, out, metrics);
        CHECK(std::regex_search(r.err, std::regex(R"(batch \d+ of [56]:)")));  // 48 graphs, 0.8 for training, 8 per batch
    }
    SECTION("link and edge tasks") {
        const std::string data = dir.write("net.csv", cliques_csv());
        for (const char* task : {"link", "edge"}) {
            CAPTURE(task);
            const CliResult r = run_gatkit(std::string("train --task ") + task + " --data " + shell_quote(data) +
                                           " --node-features degree --epochs 30 --hidden 8 --heads 2 --lr 1e30" + outputs);
            require_diverged(r, out, metrics);
        }
    }
}
