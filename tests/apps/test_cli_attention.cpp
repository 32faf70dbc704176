// End-to-end: the attention family on the command line (--conv, --mask, --block, --pe) for the
// graph task on a small molecule CSV written here; predictions rebuild the same inputs.
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using gatkit::test::CliResult;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::TempDir;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// 24 molecules; the label says whether the molecule has a nitrogen.
std::string molecules() {
    const char* smiles[] = {"CCO",       "CCN",        "c1ccccc1",   "c1ccncc1",    "CC(=O)O",   "CC(=O)N",   "CCCC",     "CCCN",
                            "OCCO",      "NCCN",       "c1ccc(O)cc1", "c1ccc(N)cc1", "CC(C)C",    "CC(C)N",    "C1CCCCC1", "C1CCNCC1",
                            "CCOC",      "CCNC",       "O=CC=O",     "N#CC#N",      "CCCCO",     "CCCCN",     "COC",      "CNC"};
    std::string csv = "smiles,has_n\n";
    for (const char* s : smiles) csv += std::string(s) + "," + (std::string(s).find_first_of("Nn") != std::string::npos ? "1" : "0") + "\n";
    return csv;
}

const std::string kSmall = " --task graph --target-columns has_n --threads 1 --quiet --epochs 3 --layers 2 --heads 2 --hidden 8 --mlp-hidden 8";

}  // namespace

TEST_CASE("gatkit train --task graph with every conv, mask, block and PE; predict rebuilds the inputs", "[cli][attention]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecules());
    const char* variants[] = {"--conv gatv2",
                              "--conv transformer",
                              "--conv transformer --mask full --pe lap:4",
                              "--conv gat --mask khop:2 --pe rw:3 --pe-mode add",
                              "--conv transformer --block transformer --mask full --pe lap:2 --pe-mode add",
                              "--conv gat --block transformer"};
    for (const char* v : variants) {
        CAPTURE(v);
        const std::string model = dir.file("m.gatkit");
        const CliResult r = run_gatkit("train --data " + data + " --out " + model + " --metrics-json " + dir.file("m.json") + kSmall + " " + v);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto m = nlohmann::json::parse(read_text(dir.file("m.json")));
        CHECK(std::string(v).find(m["conv"].get<std::string>()) != std::string::npos);
        CHECK(m.contains("test_roc_auc"));
        const CliResult p = run_gatkit("predict --model " + model + " --data " + data + " --out " + dir.file("p.csv"));
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        CHECK(lines_of(read_text(dir.file("p.csv"))).size() == 25);
        const CliResult one = run_gatkit("predict --model " + model + " --smiles CCN");
        REQUIRE(one.exit_code == 0);
        CHECK(has(one.out, "CCN,"));
    }
}

TEST_CASE("A full mask names a molecule above --max-full-nodes before training", "[cli][attention]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecules());
    const CliResult r = run_gatkit("train --data " + data + " --out " + dir.file("m.gatkit") + kSmall + " --mask full --max-full-nodes 5");
    CHECK(r.exit_code == 1);
    CHECK(has(r.err, "'c1ccccc1'"));
    CHECK(has(r.err, "6 nodes"));
    CHECK(has(r.err, "--max-full-nodes 5"));
}

TEST_CASE("bad --mask and --pe values are one-line errors", "[cli][attention]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecules());
    for (const char* bad : {"--mask khop:0", "--mask window", "--pe lap:0", "--pe eig:4"}) {
        CAPTURE(bad);
        const CliResult r = run_gatkit("train --data " + data + " --out " + dir.file("m.gatkit") + kSmall + " " + bad);
        CHECK(r.exit_code == 1);
        CHECK(lines_of(r.err).size() <= 2);
    }
}
