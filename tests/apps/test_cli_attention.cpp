// End-to-end: the attention family on the command line (--conv, --mask, --block, --pe) for the
// graph task on a small molecule CSV written here; predictions rebuild the same inputs.
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using gatkit::test::CliResult;
using gatkit::test::has;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::TempDir;

namespace {

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

TEST_CASE("gatkit train --task graph with every conv, mask, block and PE, predict rebuilds the inputs", "[cli][attention]") {
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

namespace {

// Sums of alpha per (leading key columns) group: every destination's weights must sum to 1.
std::map<std::string, double> alpha_sums(const std::string& csv, std::size_t key_columns, std::size_t* self_loops) {
    std::map<std::string, double> sums;
    const auto rows = lines_of(csv);
    for (std::size_t r = 1; r < rows.size(); ++r) {
        std::vector<std::string> f;
        std::stringstream in(rows[r]);
        std::string field;
        while (std::getline(in, field, ',')) f.push_back(field);
        REQUIRE(f.size() == key_columns + 4);  // ..., src, dst, self_loop, alpha
        std::string key;
        for (std::size_t k = 0; k < key_columns; ++k) key += f[k] + "|";
        key += f[key_columns + 1];  // dst
        sums[key] += std::stod(f.back());
        if (f[key_columns + 2] == "1") ++*self_loops;
    }
    return sums;
}

}  // namespace

TEST_CASE("predict --attention writes alpha per layer, head and edge, each destination sums to 1", "[cli][attention]") {
    TempDir dir;
    SECTION("molecules: input row and atom indices; invalid rows have none") {
        const std::string data = dir.write("mols.csv", molecules());
        const std::string model = dir.file("m.gatkit");
        REQUIRE(run_gatkit("train --data " + data + " --out " + model + kSmall + " --conv gatv2").exit_code == 0);
        const std::string pred = dir.write("p.csv", "smiles\nCCO\nnot_a_smiles\nc1ccncc1\n");
        const CliResult r = run_gatkit("predict --model " + model + " --data " + pred + " --out " + dir.file("o.csv") + " --attention " +
                                       dir.file("a.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const std::string csv = read_text(dir.file("a.csv"));
        CHECK(lines_of(csv).front() == "row,layer,head,src_atom,dst_atom,self_loop,alpha");
        std::size_t loops = 0;
        const auto sums = alpha_sums(csv, 3, &loops);
        CHECK(loops == (3 + 6) * 2 * 2);  // atoms × layers × heads (self-loops added)
        for (const auto& [key, sum] : sums) {
            INFO(key);
            CHECK(std::abs(sum - 1.0) < 1e-5);
            CHECK(key.rfind("2|", 0) != 0);  // the invalid row has no attention rows
        }
    }
    SECTION("node models: the user's node ids") {
        REQUIRE(run_gatkit("generate --out " + dir.file("g") + " --nodes 60 --classes 2 --features 10 --seed 1").exit_code == 0);
        const std::string model = dir.file("n.gatkit");
        REQUIRE(run_gatkit("train --task node --data " + dir.file("g") + " --split stratified --epochs 2 --threads 1 --quiet --out " + model)
                    .exit_code == 0);
        const CliResult r = run_gatkit("predict --model " + model + " --data " + dir.file("g") + " --out " + dir.file("o.csv") +
                                       " --attention " + dir.file("a.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const std::string csv = read_text(dir.file("a.csv"));
        CHECK(lines_of(csv).front() == "layer,head,src,dst,self_loop,alpha");
        CHECK(lines_of(csv)[1].find(",n") != std::string::npos);  // ids "n0", "n1", …
        std::size_t loops = 0;
        const auto sums = alpha_sums(csv, 2, &loops);
        CHECK(loops == 60 * (8 + 1));  // layer 0: 8 heads, output layer: 1
        for (const auto& [key, sum] : sums) CHECK(std::abs(sum - 1.0) < 1e-5);
    }
}
