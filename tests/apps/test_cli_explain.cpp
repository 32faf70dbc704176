// End-to-end: `gatkit explain` (molecule pictures, a node's neighbours) and `gatkit embed`
// (molecule and node vectors) on tiny models trained here in well under a second each.
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

using gatkit::test::CliResult;
using gatkit::test::has;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::run_program;
using gatkit::test::TempDir;

namespace {

std::vector<std::string> fields_of(const std::string& line) {
    std::vector<std::string> f;
    std::stringstream in(line);
    std::string field;
    while (std::getline(in, field, ',')) f.push_back(field);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    return f;
}

// Twelve small molecules; the label says whether there is an oxygen. Two layers of two heads
// × 8 channels and the molecules' default readout, mean+max: graph vectors have 2 × 16 values.
const char* const kOxygen =
    "smiles,has_o\nCCO,1\nCCN,0\nc1ccccc1,0\nc1ccccc1O,1\nCC(=O)C,1\nCCCN,0\nOCCO,1\nNCCN,0\nCOC,1\nCNC,0\nC1CCOC1,1\nC1CCNC1,0\n";
const std::string kTiny = " --task graph --target-columns has_o --threads 1 --quiet --epochs 2 --layers 2 --heads 2 --hidden 8 --mlp-hidden 8";
constexpr std::size_t kGraphWidth = 32;

// A trained molecule model in `dir` (extra: more train flags).
std::string molecule_model(const TempDir& dir, const std::string& extra = "") {
    const std::string model = dir.file("mol.gatkit");
    const CliResult r = run_gatkit("train --data " + dir.write("train.csv", kOxygen) + " --out " + model + kTiny + extra);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return model;
}

// A node model on a generated 60-node graph with ids n0..n59 (data in dir/g).
std::string node_model(const TempDir& dir) {
    REQUIRE(run_gatkit("generate --out " + dir.file("g") + " --nodes 60 --classes 2 --features 10 --seed 3").exit_code == 0);
    const std::string model = dir.file("node.gatkit");
    const CliResult r = run_gatkit("train --task node --data " + dir.file("g") + " --split stratified --epochs 2 --threads 1 --quiet --out " + model);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return model;
}

}  // namespace

TEST_CASE("explain draws one molecule as an SVG with the prediction in the title", "[cli][explain]") {
    TempDir dir;
    const std::string model = molecule_model(dir);
    for (const std::string extra : {"", " --layer 0 --head 1 --atom-indices"}) {
        CAPTURE(extra);
        const CliResult r = run_gatkit("explain --model " + model + " --smiles 'OCC(=O)N' --out " + dir.file("m.svg") + extra);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const std::string svg = read_text(dir.file("m.svg"));
        CHECK(svg.rfind("<?xml", 0) == 0);
        CHECK(has(svg, "<svg"));
        CHECK(has(svg, "</svg>"));
        CHECK(has(svg, "OCC(=O)N   p_has_o = "));
        CHECK(has(svg, "#D62628"));  // full red: the most-attended atom and bond
        CHECK(has(svg, "linearGradient"));
        CHECK(has(svg, extra.empty() ? "layer 1 (last), mean of 2 heads" : "layer 0, head 1 of 2"));
        CHECK(has(r.err, "p_has_o"));
    }
}

TEST_CASE("the program starts without RDKit's drawing libraries and draws through its plugin", "[cli][explain]") {
    // Not linked: the program's list of needed libraries names no MolDraw2D, cairo or X11.
    const CliResult elf = run_program("readelf", "-d " + gatkit::test::shell_quote(GATKIT_CLI));
    REQUIRE(elf.exit_code == 0);
    REQUIRE(has(elf.out, "libRDKitGraphMol"));
    CHECK_FALSE(has(elf.out, "MolDraw2D"));
    CHECK_FALSE(has(elf.out, "libcairo"));
    CHECK_FALSE(has(elf.out, "libX11"));

    // A copy of the program without the plugin beside it predicts, and explain says what is missing.
    TempDir dir;
    const std::string model = molecule_model(dir);
    const std::filesystem::path copy = dir.path() / "bin" / "gatkit";
    std::filesystem::create_directories(copy.parent_path());
    std::filesystem::copy_file(GATKIT_CLI, copy);
    const CliResult predicted = run_program(copy.string(), "predict --model " + model + " --smiles CCO");
    INFO(predicted.err);
    CHECK(predicted.exit_code == 0);
    CHECK(has(predicted.out + predicted.err, "CCO"));
    const CliResult r = run_program(copy.string(), "explain --model " + model + " --smiles CCO --out " + dir.file("m.svg"));
    CHECK(r.exit_code == 1);
    CHECK(has(r.err, "gatkit_draw.so was not found"));
    CHECK(has(r.err, (dir.path() / "bin" / "gatkit_draw.so").string()));
    CHECK_FALSE(std::filesystem::exists(dir.file("m.svg")));

    // With the plugin beside the copy it draws.
    std::filesystem::copy_file(std::filesystem::path(GATKIT_CLI).parent_path() / "gatkit_draw.so", dir.path() / "bin" / "gatkit_draw.so");
    const CliResult drawn = run_program(copy.string(), "explain --model " + model + " --smiles CCO --out " + dir.file("m.svg"));
    INFO(drawn.err);
    CHECK(drawn.exit_code == 0);
    CHECK(has(read_text(dir.file("m.svg")), "</svg>"));
}

TEST_CASE("explain with khop and full masks scores atoms on every pair and bonds on bonds", "[cli][explain]") {
    TempDir dir;
    for (const std::string mask : {" --mask full --conv transformer --pe lap:2", " --mask khop:2"}) {
        CAPTURE(mask);
        const std::string model = molecule_model(dir, mask);
        const CliResult r = run_gatkit("explain --model " + model + " --smiles 'c1ccccc1CO' --out " + dir.file("k.svg"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(has(read_text(dir.file("k.svg")), "c1ccccc1CO"));
    }
}

TEST_CASE("explain with data writes one picture per valid row and an index that keeps every row", "[cli][explain]") {
    TempDir dir;
    const std::string model = molecule_model(dir);
    const std::string data = dir.write("in.csv", "name,smiles\nethanol,CCO\nbroken,C1CC(N\nphenol,c1ccccc1O\n");
    const std::string out = dir.file("pictures");
    const CliResult r = run_gatkit("explain --model " + model + " --data " + data + " --out-dir " + out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(std::filesystem::exists(out + "/row-1.svg"));
    CHECK_FALSE(std::filesystem::exists(out + "/row-2.svg"));
    CHECK(std::filesystem::exists(out + "/row-3.svg"));
    CHECK(has(read_text(out + "/row-3.svg"), "c1ccccc1O"));
    const auto index = lines_of(read_text(out + "/index.csv"));
    REQUIRE(index.size() == 4);
    CHECK(index[0] == "row,smiles,p_has_o,file,error");
    CHECK(index[1].rfind("1,CCO,", 0) == 0);
    CHECK(has(index[1], ",row-1.svg,"));
    CHECK(index[2].rfind("2,C1CC(N,,,", 0) == 0);  // no prediction, no file, RDKit's reason
    CHECK(has(index[2], "C1CC(N"));
    CHECK(index[2].size() > std::string("2,C1CC(N,,,").size());
    CHECK(has(index[3], ",row-3.svg,"));
    // A run that fails leaves no folder it made: a missing input, a bad --layer found part way.
    const std::string none = dir.file("none");
    CHECK(run_gatkit("explain --model " + model + " --data " + dir.file("absent.csv") + " --out-dir " + none).exit_code == 1);
    CHECK_FALSE(std::filesystem::exists(none));
    CHECK(run_gatkit("explain --model " + model + " --data " + data + " --layer 7 --out-dir " + none).exit_code == 1);
    CHECK_FALSE(std::filesystem::exists(none));
    // A folder that was there stays.
    CHECK(run_gatkit("explain --model " + model + " --data " + data + " --layer 7 --out-dir " + out).exit_code == 1);
    CHECK(std::filesystem::exists(out + "/index.csv"));
}

TEST_CASE("explain refuses a bad layer, head, node or model kind with a message naming it", "[cli][explain]") {
    TempDir dir;
    const std::string model = molecule_model(dir);
    const std::string svg = " --smiles CCO --out " + dir.file("x.svg");
    const CliResult layer = run_gatkit("explain --model " + model + svg + " --layer 7");
    CHECK(layer.exit_code == 1);
    CHECK(has(layer.err, "layer 7"));
    CHECK(has(layer.err, "2 attention layers"));
    const CliResult head = run_gatkit("explain --model " + model + svg + " --head 9");
    CHECK(head.exit_code == 1);
    CHECK(has(head.err, "head 9"));
    CHECK_FALSE(std::filesystem::exists(dir.file("x.svg")));
    const CliResult node = run_gatkit("explain --model " + model + svg + " --node 3");
    CHECK(node.exit_code == 1);
    CHECK(has(node.err, "--node"));
    const CliResult bad = run_gatkit("explain --model " + model + " --smiles 'C1CC(N' --out " + dir.file("x.svg"));
    CHECK(bad.exit_code == 1);
    CHECK(has(bad.err, "C1CC(N"));

    const std::string fp = dir.file("fp.gatkit");
    REQUIRE(run_gatkit("train --data " + dir.file("train.csv") + " --out " + fp + " --task graph --target-columns has_o --threads 1 --quiet --model-type fingerprint").exit_code == 0);
    const CliResult kind = run_gatkit("explain --model " + fp + svg);
    CHECK(kind.exit_code == 1);
    CHECK(has(kind.err, "fingerprint"));
    CHECK(run_gatkit("embed --model " + fp + " --smiles CCO --out " + dir.file("e.csv")).exit_code == 1);
}

TEST_CASE("explain node lists the neighbours a node attends to, by alpha, summing to 1 for one head", "[cli][explain]") {
    TempDir dir;
    const std::string model = node_model(dir);
    const std::string base = "explain --model " + model + " --data " + dir.file("g") + " --node n5";
    const CliResult r = run_gatkit(base + " --layer 0 --head 3 --top-k 1000");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto rows = lines_of(r.out);
    REQUIRE(rows.size() >= 2);
    CHECK(rows[0] == "rank,neighbor,alpha,self_loop");
    double sum = 0, previous = 2;
    int self_loops = 0;
    for (std::size_t k = 1; k < rows.size(); ++k) {
        const auto f = fields_of(rows[k]);
        REQUIRE(f.size() == 4);
        CHECK(f[0] == std::to_string(k));
        const double alpha = std::stod(f[2]);
        CHECK(alpha <= previous);
        previous = alpha;
        sum += alpha;
        self_loops += f[3] == "1";
        if (f[3] == "1") CHECK(f[1] == "n5");
    }
    CHECK(self_loops == 1);
    CHECK(std::abs(sum - 1.0) < 1e-5);

    // --top-k and --out.
    REQUIRE(run_gatkit(base + " --top-k 2 --out " + dir.file("nb.csv")).exit_code == 0);
    CHECK(lines_of(read_text(dir.file("nb.csv"))).size() <= 3);

    const CliResult unknown = run_gatkit(base.substr(0, base.size() - 2) + "nope");
    CHECK(unknown.exit_code == 1);
    CHECK(has(unknown.err, "'nope'"));
    const CliResult head = run_gatkit(base + " --head 1");  // the output layer has 1 head
    CHECK(head.exit_code == 1);
    CHECK(has(head.err, "head 1"));
}

TEST_CASE("embed writes one row per input row: molecule vectors with an error column, node vectors", "[cli][explain]") {
    TempDir dir;
    const std::string model = molecule_model(dir);
    SECTION("molecules from a CSV") {
        const std::string data = dir.write("in.csv", "smiles,id\nCCO,a\nnot_a_molecule,b\nc1ccccc1O,c\n");
        const CliResult r = run_gatkit("embed --model " + model + " --data " + data + " --out " + dir.file("e.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("e.csv")));
        REQUIRE(rows.size() == 4);
        const auto header = fields_of(rows[0]);
        CHECK(header.size() == 2 + kGraphWidth + 1);
        CHECK(header[0] == "row");
        CHECK(header[1] == "smiles");
        CHECK(header[2] == "g0");
        CHECK(header.back() == "error");
        for (std::size_t k = 1; k < rows.size(); ++k) {
            CAPTURE(rows[k]);
            const auto f = fields_of(rows[k]);
            CHECK(f.size() == header.size());
            CHECK(f[0] == std::to_string(k));
            CHECK(f[2].empty() == (k == 2));
            CHECK(f.back().empty() == (k != 2));
        }
    }
    SECTION("predict --embeddings writes the same file beside the predictions") {
        const std::string data = dir.write("in.csv", "smiles,id\nCCO,a\nnot_a_molecule,b\nc1ccccc1O,c\n");
        REQUIRE(run_gatkit("embed --model " + model + " --data " + data + " --out " + dir.file("e.csv")).exit_code == 0);
        const CliResult p = run_gatkit("predict --model " + model + " --data " + data + " --out " + dir.file("p.csv") + " --embeddings " +
                                       dir.file("pe.csv"));
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        CHECK(lines_of(read_text(dir.file("p.csv"))).size() == 4);
        CHECK(read_text(dir.file("pe.csv")) == read_text(dir.file("e.csv")));
    }
    SECTION("molecules from a .smi file keep their names") {
        const std::string data = dir.write("in.smi", "CCO ethanol\nCCN ethylamine\n");
        REQUIRE(run_gatkit("embed --model " + model + " --data " + data + " --out " + dir.file("e.csv")).exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("e.csv")));
        REQUIRE(rows.size() == 3);
        CHECK(rows[0].rfind("row,smiles,name,g0,", 0) == 0);
        CHECK(rows[2].rfind("2,CCN,ethylamine,", 0) == 0);
    }
    SECTION("one molecule, the same vector as in a file") {
        REQUIRE(run_gatkit("embed --model " + model + " --smiles c1ccccc1O --out " + dir.file("one.csv")).exit_code == 0);
        REQUIRE(run_gatkit("embed --model " + model + " --data " + dir.write("p.csv", "smiles\nCC\nc1ccccc1O\n") + " --out " + dir.file("two.csv"))
                    .exit_code == 0);
        const auto one = fields_of(lines_of(read_text(dir.file("one.csv")))[1]);
        const auto two = fields_of(lines_of(read_text(dir.file("two.csv")))[2]);
        CHECK(std::vector<std::string>(one.begin() + 1, one.end()) == std::vector<std::string>(two.begin() + 1, two.end()));
    }
    SECTION("nodes") {
        const std::string nodes = node_model(dir);
        const CliResult r = run_gatkit("embed --model " + nodes + " --data " + dir.file("g") + " --out " + dir.file("z.csv"));
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_of(read_text(dir.file("z.csv")));
        REQUIRE(rows.size() == 61);
        const auto header = fields_of(rows[0]);
        CHECK(header[0] == "node_id");
        CHECK(header[1] == "z0");
        CHECK(header.size() == 1 + 64);  // the default hidden layer: 8 heads × 8 channels, concatenated
        CHECK(fields_of(rows[1]).size() == header.size());
        CHECK(rows[1].rfind("n0,", 0) == 0);
        // predict --embeddings: the same vectors beside the predictions.
        const CliResult p = run_gatkit("predict --model " + nodes + " --data " + dir.file("g") + " --out " + dir.file("p.csv") + " --embeddings " +
                                       dir.file("pz.csv"));
        INFO(p.err);
        REQUIRE(p.exit_code == 0);
        CHECK(read_text(dir.file("pz.csv")) == read_text(dir.file("z.csv")));
    }
}
