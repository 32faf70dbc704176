// Edge cases of the inputs, end to end (docs/reliability.md, "Edge cases"): one-atom molecules
// through every layer, mask and PE; a molecule of 1,000 heavy atoms (trained, predicted, refused
// by --mask full above --max-full-nodes at training and as one error row at prediction); a 10 MB
// CSV cell and 10 MB edge-list lines; ids beyond 64 bits; labels out of range; a label file
// without labels. Unit-level cases are in tests/io and tests/chem (tag [edge-cases] there too).
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include "gatkit/gatkit.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using gatkit::test::CliResult;
using gatkit::test::has;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::shell_quote;
using gatkit::test::TempDir;

namespace {

// Small molecules (the label says whether there is a nitrogen), one-atom ones included.
std::string molecules_csv(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> smiles = {"CCO", "CCN",  "c1ccccc1", "c1ccncc1", "CC(=O)O", "CC(=O)N", "CCCC", "CCCN", "OCCO", "NCCN",
                                       "C",   "N",    "O",        "[Na+]",    "[Cl-]",   "[NH4+]",  "CC",   "CN",   "CO",   "NC=O"};
    smiles.insert(smiles.end(), extra.begin(), extra.end());
    std::string csv = "smiles,has_n\n";
    for (const auto& s : smiles) csv += s + "," + (s.find_first_of("Nn") != std::string::npos && s != "[Na+]" ? "1" : "0") + "\n";
    return csv;
}

const std::string kTiny = " --task graph --target-columns has_n --threads 1 --quiet --epochs 2 --layers 2 --heads 2 --hidden 8 --mlp-hidden 8";

// The error line, and at most a hint line, each short enough to read.
void require_short_error(const CliResult& r) {
    INFO("stderr: " << r.err.substr(0, 2000));
    REQUIRE(r.exit_code == 1);
    const auto lines = lines_of(r.err);
    REQUIRE(!lines.empty());
    REQUIRE(lines.size() <= 2);
    CHECK(lines[0].rfind("gatkit: error: ", 0) == 0);
    for (const auto& l : lines) CHECK(l.size() < 600);
}

// "c1ccccc1" 167 times: 1,002 aromatic carbons in a chain of rings. (An alkane chain "C"*1000
// works too but RDKit 2022.09 takes about a second to parse it, in its CIP ranking.)
std::string thousand_atoms() {
    std::string s;
    for (int k = 0; k < 167; ++k) s += "c1ccccc1";
    return s;
}

}  // namespace

TEST_CASE("one-atom molecules (no bonds) train and predict with every layer, mask and PE", "[cli][edge-cases]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecules_csv());
    const std::string ones = dir.write("ones.csv", "smiles,has_n\nC,0\n[Na+],0\n[Cl-],0\n");
    for (const char* variant : {"--conv gat", "--conv gatv2 --mask khop:2 --pe rw:3", "--conv transformer --mask full --pe lap:4",
                                "--conv gat --block transformer --readout attention --pe lap:2 --pe-mode add"}) {
        CAPTURE(variant);
        const std::string model = dir.file("m.gatkit");
        const CliResult r = run_gatkit("train --data " + shell_quote(data) + " --out " + shell_quote(model) + kTiny + " " + variant);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(ones) + " --out " + shell_quote(dir.file("p.csv")));
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("p.csv")));
        REQUIRE(rows.size() == 4);
        for (std::size_t i = 1; i < rows.size(); ++i) {
            CAPTURE(rows[i]);
            const auto last = rows[i].rfind(','), before = rows[i].rfind(',', last - 1);
            CHECK(std::isfinite(std::stod(rows[i].substr(before + 1, last - before - 1))));
            CHECK(rows[i].back() == ',');  // empty error column
        }
    }
}

TEST_CASE("a molecule of 1,000 heavy atoms trains and predicts", "[cli][edge-cases]") {
    TempDir dir;
    const std::string big = thousand_atoms();
    const std::string data = dir.write("mols.csv", molecules_csv({big}));
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --data " + shell_quote(data) + " --out " + shell_quote(model) + kTiny);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(data) + " --out " + shell_quote(dir.file("p.csv")));
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const auto rows = lines_of(read_text(dir.file("p.csv")));
    REQUIRE(rows.size() == 22);
    CHECK(rows[21].rfind(big + ",0,", 0) == 0);
    CHECK(rows[21].back() == ',');  // predicted, no error
}

TEST_CASE("A full mask refuses a 1,000-atom molecule above --max-full-nodes: at training in one line, at prediction as its row's error",
          "[cli][edge-cases]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecules_csv({thousand_atoms()}));
    const CliResult f = run_gatkit("train --data " + shell_quote(data) + " --out " + shell_quote(dir.file("f.gatkit")) + kTiny + " --mask full");
    require_short_error(f);
    CHECK(has(f.err, "'c1ccccc1c1ccccc1"));  // the molecule, clipped
    CHECK(has(f.err, "...'"));
    CHECK(has(f.err, "(row 22)"));
    CHECK(has(f.err, "1002 nodes"));
    CHECK(has(f.err, "--max-full-nodes 512"));
    CHECK_FALSE(fs::exists(dir.file("f.gatkit")));

    // a full-mask model trained on small molecules predicts the other rows
    const std::string small = dir.write("small.csv", molecules_csv());
    REQUIRE(run_gatkit("train --data " + shell_quote(small) + " --out " + shell_quote(dir.file("f.gatkit")) + kTiny + " --mask full").exit_code == 0);
    const CliResult q = run_gatkit("predict --model " + shell_quote(dir.file("f.gatkit")) + " --data " + shell_quote(data) + " --out " +
                                   shell_quote(dir.file("q.csv")));
    INFO(q.err);
    REQUIRE(q.exit_code == 0);
    CHECK(has(q.err, "21 rows (20 predicted, 1 with errors)"));
    const auto out = lines_of(read_text(dir.file("q.csv")));
    REQUIRE(out.size() == 22);
    CHECK(has(out[21], ",0,,\"1002 atoms, more than the 512"));
    CHECK(out[1].back() == ',');
}

TEST_CASE("the library Predictor gives a molecule too large for a full mask an error row", "[edge-cases][predictor]") {
    TempDir dir;
    gatkit::MoleculeTrainOptions o = gatkit::test::small_molecule_options();
    o.fit.model.layers = 1;
    o.fit.model.mask = "full";
    o.fit.model.max_full_nodes = 6;  // the largest training molecule, benzene, has 6 atoms
    o.fit.train.epochs = 2;
    gatkit::MoleculeTrainResult r = gatkit::train_molecules(dir.write("mols.csv", molecules_csv()), o);
    gatkit::save_model(dir.file("m.gatkit"), r.model);
    gatkit::Predictor p = gatkit::Predictor::load(dir.file("m.gatkit"));
    const gatkit::Predictions out = p.predict_smiles({"CCO", "CCCCCCCCCC", "not a smiles"});
    REQUIRE(out.errors.size() == 3);
    CHECK(out.ok(0));
    CHECK(std::isfinite(out.values(0, 0)));
    CHECK(has(out.errors[1], "10 atoms, more than the 6"));
    CHECK(std::isnan(out.values(1, 0)));
    CHECK(has(out.errors[2], "rejected by RDKit"));
    // graph_embeddings: the same rows are errors, the others as if alone.
    std::vector<std::string> errors;
    const gatkit::Matrix emb = p.graph_embeddings({"CCO", "CCCCCCCCCC", "not a smiles", "c1ccccc1"}, &errors);
    REQUIRE(emb.rows() == 4);
    REQUIRE(errors.size() == 4);
    CHECK(errors[0].empty());
    CHECK(has(errors[1], "10 atoms, more than the 6"));
    CHECK(emb.row(1).array().isNaN().all());
    CHECK(has(errors[2], "rejected by RDKit"));
    CHECK(errors[3].empty());
    CHECK(emb.row(3).allFinite());
    CHECK(emb.row(0).isApprox(p.graph_embeddings({"CCO"}).row(0), 1e-6f));
}

TEST_CASE("a 10 MB CSV cell is one skipped row, read and reported in one short line", "[cli][edge-cases]") {
    TempDir dir;
    // a valid-looking 10 MB SMILES: RDKit would take hours on it, so it is refused by length
    const std::string cell(10 * 1024 * 1024, 'C');
    const std::string data = dir.write("mols.csv", molecules_csv() + cell + ",0\n");
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --data " + shell_quote(data) + " --out " + shell_quote(model) + kTiny);
    INFO(r.err.substr(0, 1000));
    REQUIRE(r.exit_code == 0);
    const std::string report = read_text(model + ".invalid.csv");
    INFO(report.substr(0, 1000));
    CHECK(report.size() < 2000);
    CHECK(has(report, "22,"));
    CHECK(has(report, "10485760 characters long, more than the 100000 gatkit reads"));
    const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(data) + " --out " + shell_quote(dir.file("p.csv")));
    REQUIRE(p.exit_code == 0);
    const auto rows = lines_of(read_text(dir.file("p.csv")));
    REQUIRE(rows.size() == 22);  // one row per input row, the long cell copied through
    CHECK(has(rows[21], "characters long"));
}

namespace {

// 3 cliques of 5 users and 2 bridges: 32 lines.
std::string small_network() {
    std::string net;
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 5; ++i)
            for (int j = i + 1; j < 5; ++j) net += "u" + std::to_string(c) + "_" + std::to_string(i) + " u" + std::to_string(c) + "_" + std::to_string(j) + "\n";
    return net + "u0_0 u1_1\nu1_0 u2_1\n";
}

const std::string kLinkFlags = " --threads 1 --quiet --epochs 3 --hidden 4 --heads 1 --node-features degree";

}  // namespace

TEST_CASE("a 10 MB edge-list line holding a 10 MB id: the id is a name like any other", "[cli][edge-cases]") {
    TempDir dir;
    const std::string long_id(10 * 1024 * 1024, '7');
    const CliResult ok = run_gatkit("train --task link --data " + shell_quote(dir.write("a.txt", small_network() + "u2_0 " + long_id + "\n")) +
                                    kLinkFlags + " --out " + shell_quote(dir.file("a.gatkit")));
    INFO(ok.err.substr(0, 1000));
    CHECK(ok.exit_code == 0);
}

TEST_CASE("a 10 MB edge-list line of 5 million columns is one clipped error naming file and line", "[cli][edge-cases]") {
    TempDir dir;
    std::string columns = "x y";
    columns.reserve(10 * 1024 * 1024 + 8);
    for (int k = 0; k < 5 * 1024 * 1024; ++k) columns += " 1";
    const CliResult bad = run_gatkit("train --task link --data " + shell_quote(dir.write("b.txt", small_network() + columns + "\n")) + kLinkFlags +
                                     " --out " + shell_quote(dir.file("b.gatkit")));
    require_short_error(bad);
    CHECK(has(bad.err, "b.txt:33"));
    CHECK(has(bad.err, "found 5242882"));
    CHECK_FALSE(fs::exists(dir.file("b.gatkit")));
}

TEST_CASE("edge-list ids beyond 64 bits are names: they train and predict", "[cli][edge-cases]") {
    TempDir dir;
    const auto id = [](int k) { return "9999999999999999999999" + std::to_string(k); };  // 23-24 digits, > 2^64
    std::string net;
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 5; ++i)
            for (int j = i + 1; j < 5; ++j) net += id(5 * c + i) + " " + id(5 * c + j) + "\n";
    net += id(0) + " " + id(6) + "\n" + id(5) + " " + id(11) + "\n-" + id(1) + " " + id(2) + "\n";
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task link --data " + shell_quote(dir.write("big_ids.txt", net)) +
                                   " --threads 1 --quiet --epochs 3 --hidden 4 --heads 1 --out " + shell_quote(model));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --pairs " +
                                   shell_quote(dir.write("pairs.txt", id(0) + " " + id(1) + "\n-" + id(1) + " " + id(14) + "\n")) + " --out " +
                                   shell_quote(dir.file("s.csv")));
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    const auto rows = lines_of(read_text(dir.file("s.csv")));
    REQUIRE(rows.size() == 3);
    CHECK(rows[1].rfind(id(0) + "," + id(1) + ",", 0) == 0);
    CHECK(rows[2].rfind("-" + id(1) + "," + id(14) + ",", 0) == 0);
    CHECK(rows[2].back() == ',');  // scored: both ids are known
}

TEST_CASE("labels out of range: a binary label of 2, a label file without labels", "[cli][edge-cases]") {
    TempDir dir;
    SECTION("--target-type binary with a label 2 names the column, the row and the value") {
        std::string csv = molecules_csv();
        csv.replace(csv.find("\nCCN,1\n"), 7, "\nCCN,2\n");
        const CliResult r = run_gatkit("train --data " + shell_quote(dir.write("m.csv", csv)) + " --target-type binary --out " +
                                       shell_quote(dir.file("m.gatkit")) + kTiny);
        require_short_error(r);
        CHECK(has(r.err, "label 2 in column 'has_n' on row 3 is not 0 or 1"));
        CHECK_FALSE(fs::exists(dir.file("m.gatkit")));
    }
    SECTION("a node label file that is empty or only a header") {
        const std::string net = dir.write("net.txt", "a b\nb c\nc d\nd a\n");
        for (const std::string labels : {"", "id,label\n"}) {
            CAPTURE(labels);
            const CliResult r = run_gatkit("train --task node --data " + shell_quote(net) + " --label-file " +
                                           shell_quote(dir.write("labels.csv", labels)) + " --threads 1 --out " + shell_quote(dir.file("n.gatkit")));
            require_short_error(r);
            CHECK(has(r.err, "labels.csv"));
            CHECK((has(r.err, "no labelled node") || has(r.err, "file is empty")));
        }
    }
}
