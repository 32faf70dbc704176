// Molecule files (CSV, .smi, SDF, gzip) into featurised graph data sets, with row bookkeeping.
#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/mol_features.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/io/molecules.hpp"
#include "support/fixtures.hpp"

#include <GraphMol/ROMol.h>
#include <catch2/catch.hpp>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace gatkit;
using gatkit::test::TempDir;
using gatkit::test::write_gz;
using Row = std::vector<std::string>;

namespace {

// Captures what is written to std::cerr (where RDKit's loggers point by default) while alive.
struct CerrCapture {
    std::ostringstream text;
    std::streambuf* saved = std::cerr.rdbuf(text.rdbuf());
    ~CerrCapture() { std::cerr.rdbuf(saved); }
};

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no exception)";
}

// A V2000 mol block: atoms by symbol, single bonds (1-based), then SD properties.
std::string sd_record(const std::string& name, const std::vector<std::string>& atoms, const std::vector<std::pair<int, int>>& bonds,
                      const std::vector<std::pair<std::string, std::string>>& props) {
    char buf[128];
    std::string s = name + "\n  gatkit-test\n\n";
    std::snprintf(buf, sizeof buf, "%3zu%3zu  0  0  0  0  0  0  0  0999 V2000\n", atoms.size(), bonds.size());
    s += buf;
    for (std::size_t k = 0; k < atoms.size(); ++k) {
        std::snprintf(buf, sizeof buf, "%10.4f%10.4f%10.4f %-3s 0  0  0  0  0  0  0  0  0  0  0  0\n", 1.5 * k, 0.0, 0.0, atoms[k].c_str());
        s += buf;
    }
    for (const auto& [a, b] : bonds) {
        std::snprintf(buf, sizeof buf, "%3d%3d  1  0\n", a, b);
        s += buf;
    }
    s += "M  END\n";
    for (const auto& [key, value] : props) s += ">  <" + key + ">\n" + value + "\n\n";
    return s + "$$$$\n";
}

const std::string kBbbpLike =
    "num,name,p_np,smiles\r\n"
    "1,\"Propanolol, (S)-\",1,CC(C)NCC(O)COc1cccc2ccccc12\r\n"
    "2,\"\"\"2,2-dimethylbutane\"\"\",1,CCC(C)(C)C \r\n"  // trailing space
    "3,bad ring,0,C1CC\r\n"
    "4,valence,1,C[N](C)(C)(C)C\r\n"
    "5,missing label,,c1ccccc1O\r\n"
    "6,empty smiles,1,\r\n"
    "7,salt,0,[Na+].[Cl-]\r\n";

}  // namespace

TEST_CASE("molecules: CSV with quotes, CRLF, trailing spaces, missing labels and invalid rows", "[io][molecules]") {
    TempDir dir;
    const std::string path = dir.write("bbbp_like.csv", kBbbpLike);
    const MoleculeTable t = load_molecules(path, {.target_columns = {"p_np"}});
    const GraphDataset& d = t.data;

    CHECK(d.name == "bbbp_like");
    CHECK(t.header == Row{"num", "name", "p_np", "smiles"});
    REQUIRE(t.records.size() == 7);
    CHECK(t.records[0] == Row{"1", "Propanolol, (S)-", "1", "CC(C)NCC(O)COc1cccc2ccccc12"});
    CHECK(t.records[1][1] == "\"2,2-dimethylbutane\"");
    CHECK(t.records[1][3] == "CCC(C)(C)C ");  // records keep the fields as written

    REQUIRE(d.size() == 4);
    CHECK(d.smiles == Row{"CC(C)NCC(O)COc1cccc2ccccc12", "CCC(C)(C)C", "c1ccccc1O", "[Na+].[Cl-]"});
    CHECK(d.source_rows == std::vector<std::size_t>{2, 3, 6, 8});
    CHECK(d.target_names == Row{"p_np"});
    REQUIRE(d.targets.rows() == 4);
    REQUIRE(d.targets.cols() == 1);
    CHECK(d.targets(0, 0) == 1.0f);
    CHECK(d.targets(1, 0) == 1.0f);
    CHECK(std::isnan(d.targets(2, 0)));
    CHECK(d.targets(3, 0) == 0.0f);
    CHECK(d.names.empty());
    CHECK(d.graphs[3].graph.num_nodes() == 2);  // the salt is one graph
    for (const auto& g : d.graphs) {
        CHECK(g.x.cols() == chem::atom_feature_width());
        CHECK(g.edge_attr.cols() == chem::bond_feature_width());
        CHECK(g.x.rows() == g.graph.num_nodes());
    }

    CHECK(t.graph_of_record == std::vector<long>{0, 1, -1, -1, 2, -1, 3});
    CHECK(t.error_of_record[0].empty());
    CHECK_THAT(t.error_of_record[2], Catch::Contains("C1CC") && Catch::Contains("rejected by RDKit"));
    CHECK_THAT(t.error_of_record[3], Catch::Contains("valence", Catch::CaseSensitive::No));
    CHECK(t.error_of_record[5] == "empty SMILES");

    REQUIRE(d.report.n_skipped() == 3);
    const auto& s = d.report.skipped;
    CHECK(s[0].file == path);
    CHECK(s[0].line == 4);
    CHECK(s[0].text == "C1CC");
    CHECK_THAT(s[0].reason, Catch::Contains("ring", Catch::CaseSensitive::No));
    CHECK(s[1].line == 5);
    CHECK(s[1].text == "C[N](C)(C)(C)C");
    CHECK_THAT(s[1].reason, Catch::Contains("Explicit valence for atom # 1 N"));
    CHECK(s[2].line == 7);
    CHECK(s[2].reason == "empty SMILES");
    REQUIRE(d.report.notes.size() == 1);
    CHECK_THAT(d.report.notes[0], Catch::Contains("3 of 7 rows"));
}

TEST_CASE("molecules: several targets, explicit SMILES column, prediction without targets", "[io][molecules]") {
    TempDir dir;
    const std::string path = dir.write("multi.csv",
                                       "id,Structure,a,b\n"
                                       "m1,CCO,1.5,\n"
                                       "m2,c1ccccc1,,-2e-1\n"
                                       "m3,CC(=O)O, nan ,3\n");
    const MoleculeTable t = load_molecules(path, {.smiles_column = "Structure", .target_columns = {"b", "a"}});
    REQUIRE(t.data.size() == 3);
    CHECK(t.data.target_names == Row{"b", "a"});
    CHECK(std::isnan(t.data.targets(0, 0)));
    CHECK(t.data.targets(0, 1) == 1.5f);
    CHECK(t.data.targets(1, 0) == Approx(-0.2f));
    CHECK(std::isnan(t.data.targets(1, 1)));
    CHECK(t.data.targets(2, 0) == 3.0f);
    CHECK(std::isnan(t.data.targets(2, 1)));

    const MoleculeTable p = load_molecules(path, {.smiles_column = "Structure"});
    CHECK(p.data.size() == 3);
    CHECK(p.data.targets.rows() == 3);
    CHECK(p.data.targets.cols() == 0);
    CHECK(p.data.target_names.empty());

    // the SMILES column is found in any case when not named
    const std::string upper = dir.write("upper.csv", "SMILES,y\nCCO,1\n");
    CHECK(load_molecules(upper, {.target_columns = {"y"}}).data.size() == 1);
    const std::string mixed = dir.write("mixed.csv", "y,Smiles\n1,CCO\n");
    CHECK(load_molecules(mixed, {.target_columns = {"y"}}).data.smiles == Row{"CCO"});
}

TEST_CASE("molecules: gzip-compressed files", "[io][molecules]") {
    TempDir dir;
    const std::string path = dir.file("bbbp_like.csv.gz");
    write_gz(path, kBbbpLike);
    const MoleculeTable t = load_molecules(path, {.target_columns = {"p_np"}});
    CHECK(t.data.name == "bbbp_like");
    CHECK(t.data.size() == 4);
    CHECK(t.records.size() == 7);
    CHECK(t.data.report.n_skipped() == 3);

    const std::string smi = dir.file("list.smi.gz");
    write_gz(smi, "CCO ethanol\nc1ccccc1 benzene\n");
    const MoleculeTable s = load_molecules(smi);
    CHECK(s.data.size() == 2);
    CHECK(s.data.names == Row{"ethanol", "benzene"});
}

TEST_CASE("molecules: file errors", "[io][molecules]") {
    TempDir dir;
    SECTION("a label that is not a number names file, line, column and value") {
        const std::string path = dir.write("bad_label.csv", "name,p_np,smiles\r\na,1,CCO\r\nb,abc,CC\r\n");
        CHECK_THROWS_AS(load_molecules(path, {.target_columns = {"p_np"}}), ParseError);
        CHECK(error_of([&] { load_molecules(path, {.target_columns = {"p_np"}}); }) ==
              path + ":3: column 'p_np': label 'abc' is not a number");
        // A number too large for a float label is named as such, not as "not a number".
        const std::string huge = dir.write("huge_label.csv", "p_np,smiles\n1e300,CCO\n");
        CHECK(error_of([&] { load_molecules(huge, {.target_columns = {"p_np"}}); }) ==
              huge + ":2: column 'p_np': label '1e300' is outside the finite float range (about ±3.4e38)");
        // an invalid molecule on that row does not hide the file error
        const std::string both = dir.write("both.csv", "p_np,smiles\n1,C1CC\nx,CCO\n");
        CHECK_THAT(error_of([&] { load_molecules(both, {.target_columns = {"p_np"}}); }),
                   Catch::Contains(both + ":3: column 'p_np': label 'x'"));
    }
    SECTION("wrong column names list the available ones") {
        const std::string path = dir.write("cols.csv", "name,p_np,smiles\na,1,CCO\n");
        CHECK_THROWS_AS(load_molecules(path, {.smiles_column = "SMI"}), ConfigError);
        CHECK_THAT(error_of([&] { load_molecules(path, {.smiles_column = "SMI"}); }),
                   Catch::Contains("'SMI'") && Catch::Contains("name, p_np, smiles"));
        CHECK_THROWS_AS(load_molecules(path, {.target_columns = {"label"}}), ConfigError);
        CHECK_THAT(error_of([&] { load_molecules(path, {.target_columns = {"label"}}); }),
                   Catch::Contains("'label'") && Catch::Contains("name, p_np, smiles"));
        const std::string none = dir.write("nosmiles.csv", "name,structure\na,CCO\n");
        CHECK_THROWS_AS(load_molecules(none), ConfigError);
        CHECK_THAT(error_of([&] { load_molecules(none); }), Catch::Contains("name, structure") && Catch::Contains("--smiles-column"));
    }
    SECTION("no valid molecule") {
        const std::string path = dir.write("allbad.csv", "smiles,y\nC1CC,1\n\nC(C)(C)(C)(C)C,0\n");
        CHECK_THROWS_AS(load_molecules(path, {.target_columns = {"y"}}), ParseError);
        const std::string what = error_of([&] { load_molecules(path, {.target_columns = {"y"}}); });
        CHECK_THAT(what, Catch::StartsWith(path + ": no valid molecule in 2 rows (first error: line 2: SMILES 'C1CC' rejected by RDKit: "));
        const std::string empty = dir.write("header_only.csv", "smiles,y\n");
        CHECK_THAT(error_of([&] { load_molecules(empty); }), Catch::Contains("no valid molecule in 0 rows"));
    }
    SECTION("files that are not molecule CSVs give one line") {
        std::string garbage = "\x01\x02";
        for (int k = 0; k < 300; ++k) garbage += static_cast<char>((k * 37 + 11) % 256);
        std::string fake_gzip = "\x1f\x8b";
        fake_gzip += garbage;
        for (const auto& [name, bytes] : {std::pair{"garbage.csv", garbage}, std::pair{"fake_gzip.csv", fake_gzip}}) {
            const std::string bin = dir.write(name, bytes);
            const std::string what = error_of([&] { load_molecules(bin); });
            INFO(what);
            CHECK_THAT(what, Catch::Contains(name));
            CHECK(what.find('\n') == std::string::npos);
            CHECK_THROWS_AS(load_molecules(bin), Error);
        }

        // a list of SMILES saved as .csv: its first SMILES is read as the only column's name
        const std::string list = dir.write("list.csv", "CCO\nc1ccccc1\n");
        const std::string msg = error_of([&] { load_molecules(list); });
        CHECK_THROWS_AS(load_molecules(list), ConfigError);
        CHECK_THAT(msg, Catch::Contains("no SMILES column") && Catch::Contains("CCO"));
        CHECK(msg.find('\n') == std::string::npos);

        CHECK_THROWS_AS(load_molecules(dir.write("x.txt", "CCO\n")), ConfigError);
        CHECK_THROWS_AS(load_molecules(dir.write("x.mol2", "CCO\n"), {.format = "mol2"}), ConfigError);
        CHECK_THROWS_AS(load_molecules(dir.file("absent.csv")), IoError);
    }
    SECTION("a row with another number of fields is a skipped row") {
        const std::string path = dir.write("ragged.csv", "name,smiles,y\na,CCO,1\nb, c,CC,0\n");
        const MoleculeTable t = load_molecules(path, {.target_columns = {"y"}});
        CHECK(t.data.size() == 1);
        REQUIRE(t.data.report.n_skipped() == 1);
        CHECK(t.data.report.skipped[0].line == 3);
        CHECK_THAT(t.data.report.skipped[0].reason, Catch::Contains("4 fields") && Catch::Contains("header has 3"));
        // The whole row is the shown text, and the field beyond the header is named in the reason.
        CHECK(t.data.report.skipped[0].text == "b, c,CC,0");
        CHECK_THAT(t.data.report.skipped[0].reason, Catch::EndsWith("beyond the header: 0"));
        // The record keeps as many fields as the header, so predictions that repeat the input
        // columns stay aligned with their header.
        REQUIRE(t.records.size() == 2);
        CHECK(t.records[1] == std::vector<std::string>{"b", " c", "CC"});
    }
    SECTION("a short row is padded to the header's width in the records") {
        const MoleculeTable t = load_molecules(dir.write("short.csv", "name,smiles,y\na,CCO,1\nb\n"), {.target_columns = {"y"}});
        REQUIRE(t.data.report.n_skipped() == 1);
        CHECK(t.data.report.skipped[0].text == "b");
        CHECK_THAT(t.data.report.skipped[0].reason, Catch::Contains("1 fields") && Catch::Contains("header has 3"));
        CHECK(t.records[1] == std::vector<std::string>{"b", "", ""});
    }
}

TEST_CASE("molecules: empty and header-only files in every format, one-atom molecules, a 10 MB cell", "[io][molecules][edge-cases]") {
    TempDir dir;
    SECTION("empty files and header-only files name the file and say it has no data") {
        CHECK_THAT(error_of([&] { load_molecules(dir.write("empty.csv", "")); }), Catch::Contains("empty.csv: file is empty"));
        CHECK_THAT(error_of([&] { load_molecules(dir.write("header.csv", "smiles,y\n")); }),
                   Catch::Contains("header.csv: no valid molecule in 0 rows (the file has no data)"));
        CHECK_THAT(error_of([&] { load_molecules(dir.write("empty.smi", "")); }), Catch::Contains("empty.smi: no valid molecule in 0 rows"));
        CHECK_THAT(error_of([&] { load_molecules(dir.write("header.smi", "smiles name\n")); }), Catch::Contains("header.smi: no valid molecule"));
        CHECK_THAT(error_of([&] { load_molecules(dir.write("empty.sdf", "")); }), Catch::Contains("empty.sdf: no valid molecule in 0 records"));
    }
    SECTION("one-atom molecules have one node, no edges and a 0-row edge feature block") {
        const MoleculeTable t = load_molecules(dir.write("one.csv", "smiles,y\nC,1\n[Na+],0\n[He],1\n"), {.target_columns = {"y"}});
        REQUIRE(t.data.size() == 3);
        for (const auto& g : t.data.graphs) {
            CHECK(g.graph.num_nodes() == 1);
            CHECK(g.graph.num_edges() == 0);
            CHECK(g.edge_attr.rows() == 0);
            CHECK(g.x.allFinite());
        }
    }
    SECTION("a 10 MB cell is one skipped row with a short reason; the rows after it are read") {
        const std::string path = dir.write("big.csv", "smiles,y\nCCO,1\n" + std::string(10 * 1024 * 1024, 'C') + ",0\nCCN,1\n");
        const MoleculeTable t = load_molecules(path, {.target_columns = {"y"}});
        CHECK(t.data.size() == 2);
        REQUIRE(t.data.report.n_skipped() == 1);
        CHECK(t.data.report.skipped[0].line == 3);
        CHECK_THAT(t.data.report.skipped[0].reason, Catch::Contains("characters long"));
        CHECK(t.data.report.skipped[0].reason.size() < 500);
        CHECK(t.data.report.skipped[0].text.size() < 200);
    }
}

TEST_CASE("molecules: .smi files", "[io][molecules]") {
    TempDir dir;
    const std::string path = dir.write("list.smi",
                                       "SMILES Name\n"
                                       "CCO ethanol\n"
                                       "c1ccccc1\tbenzene ring\n"
                                       "\n"
                                       "C1CC broken\n"
                                       "[Na+].[Cl-]\n");
    const MoleculeTable t = load_molecules(path);
    CHECK(t.header == Row{"smiles", "name"});
    REQUIRE(t.records.size() == 4);
    CHECK(t.records[0] == Row{"CCO", "ethanol"});
    CHECK(t.records[1] == Row{"c1ccccc1", "benzene ring"});
    CHECK(t.records[3] == Row{"[Na+].[Cl-]"});
    CHECK(t.graph_of_record == std::vector<long>{0, 1, -1, 2});
    REQUIRE(t.data.size() == 3);
    CHECK(t.data.source_rows == std::vector<std::size_t>{2, 3, 6});
    CHECK(t.data.names == Row{"ethanol", "benzene ring", ""});
    CHECK(t.data.smiles == Row{"CCO", "c1ccccc1", "[Na+].[Cl-]"});
    REQUIRE(t.data.report.n_skipped() == 1);
    CHECK(t.data.report.skipped[0].line == 5);
    CHECK(t.data.report.skipped[0].text == "C1CC");

    // no header: the first line is a molecule
    const MoleculeTable plain = load_molecules(dir.write("plain.smi", "CC\nCCC\n"));
    CHECK(plain.data.source_rows == std::vector<std::size_t>{1, 2});
    CHECK(plain.data.names.empty());
    CHECK_THROWS_AS(load_molecules(path, {.target_columns = {"y"}}), ConfigError);
    // the format can be forced for another extension
    CHECK(load_molecules(dir.write("mols.txt", "CCO\n"), {.format = "smi"}).data.size() == 1);
}

TEST_CASE("molecules: SDF records with SD properties", "[io][molecules]") {
    TempDir dir;
    const std::string text = sd_record("ethanol", {"C", "C", "O"}, {{1, 2}, {2, 3}}, {{"logS", "0.5"}, {"id", "E1"}}) +
                             // a neutral nitrogen with 5 bonds: RDKit rejects it
                             sd_record("bad", {"N", "C", "C", "C", "C", "C"}, {{1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}}, {{"logS", "1"}}) +
                             sd_record("methane", {"C"}, {}, {{"id", "M1"}});
    const std::string path = dir.write("mols.sdf", text);
    const MoleculeTable t = load_molecules(path, {.target_columns = {"logS"}});
    CHECK(t.header == Row{"smiles", "logS"});
    REQUIRE(t.records.size() == 3);
    CHECK(t.records[0] == Row{"CCO", "0.5"});
    CHECK(t.records[1] == Row{"", "1"});
    CHECK(t.records[2] == Row{"C", ""});
    CHECK(t.graph_of_record == std::vector<long>{0, -1, 1});
    REQUIRE(t.data.size() == 2);
    CHECK(t.data.smiles == Row{"CCO", "C"});
    CHECK(t.data.names == Row{"ethanol", "methane"});
    CHECK(t.data.source_rows == std::vector<std::size_t>{1, 3});
    CHECK(t.data.targets(0, 0) == 0.5f);
    CHECK(std::isnan(t.data.targets(1, 0)));
    CHECK(t.data.graphs[0].graph.num_edges() == 4);
    CHECK(t.data.graphs[1].graph.num_nodes() == 1);
    REQUIRE(t.data.report.n_skipped() == 1);
    const LoadIssue& issue = t.data.report.skipped[0];
    CHECK(issue.line == 18);  // the record starts after ethanol's 17 lines
    CHECK(issue.text == "record 2 'bad'");
    CHECK_THAT(issue.reason, Catch::Contains("record 2 'bad' rejected by RDKit") && Catch::Contains("valence", Catch::CaseSensitive::No));
    CHECK(t.error_of_record[1] == issue.reason);

    // gzip, and errors: an unknown property lists those present; a non-numeric one names its line
    const std::string gz = dir.file("mols.sdf.gz");
    write_gz(gz, text);
    CHECK(load_molecules(gz, {.target_columns = {"logS"}}).data.size() == 2);
    CHECK_THROWS_AS(load_molecules(path, {.target_columns = {"logP"}}), ConfigError);
    CHECK_THAT(error_of([&] { load_molecules(path, {.target_columns = {"logP"}}); }), Catch::Contains("logS, id"));
    const std::string bad = dir.write("bad.sdf", sd_record("x", {"C"}, {}, {{"y", "high"}}));
    CHECK(error_of([&] { load_molecules(bad, {.target_columns = {"y"}}); }) == bad + ":8: property 'y': label 'high' is not a number");
}

TEST_CASE("molecules: RDKit's messages stay off stderr", "[io][molecules]") {
    TempDir dir;
    // C1CC logs a syntax error, [N] with 5 bonds a valence error, [H+].[Cl-] a warning
    const std::string path = dir.write("noisy.csv", "smiles\nC1CC\nC[N](C)(C)(C)C\n[H+].[Cl-]\nCC.[H+]\nCCO\n");
    CerrCapture cerr;
    const MoleculeTable t = load_molecules(path);
    CHECK(t.data.size() == 3);
    CHECK(cerr.text.str().empty());
}

TEST_CASE("molecules: records stay in input order with any thread count", "[io][molecules]") {
    TempDir dir;
    const std::vector<std::string> pool = {"CCO", "C1CC", "c1ccccc1", "CC(=O)O", "[NH5]", "CCN(CC)CC", "", "OC1CCCCC1"};
    std::string csv = "id,smiles,y\n";
    for (int k = 0; k < 300; ++k) csv += "r" + std::to_string(k) + "," + pool[k % pool.size()] + "," + std::to_string(k) + "\n";
    const std::string path = dir.write("many.csv", csv);
    const int saved = thread_count();
    set_thread_count(1);
    const MoleculeTable one = load_molecules(path, {.target_columns = {"y"}});
    set_thread_count(2);
    const MoleculeTable two = load_molecules(path, {.target_columns = {"y"}});
    set_thread_count(saved);
    for (const MoleculeTable* t : {&one, &two}) {
        REQUIRE(t->records.size() == 300);
        long next = 0;
        for (std::size_t k = 0; k < 300; ++k) {
            const std::string& smiles = pool[k % pool.size()];
            const bool valid = smiles != "C1CC" && smiles != "[NH5]" && !smiles.empty();
            INFO("record " << k);
            if (!valid) {
                CHECK(t->graph_of_record[k] == -1);
                CHECK(!t->error_of_record[k].empty());
                continue;
            }
            REQUIRE(t->graph_of_record[k] == next);
            CHECK(t->data.smiles[next] == smiles);
            CHECK(t->data.source_rows[next] == k + 2);
            CHECK(t->data.targets(next, 0) == static_cast<float>(k));
            ++next;
        }
        CHECK(static_cast<long>(t->data.size()) == next);
    }
    REQUIRE(one.data.size() == two.data.size());
    for (std::size_t b = 0; b < one.data.size(); ++b) {
        CHECK(one.data.graphs[b].x == two.data.graphs[b].x);
        CHECK(one.data.graphs[b].edge_attr == two.data.graphs[b].edge_attr);
        CHECK(one.data.graphs[b].graph.in_src() == two.data.graphs[b].graph.in_src());
    }
    CHECK(one.error_of_record == two.error_of_record);
}

namespace {

// Checks the graph load_molecules_chunked handed over for table row r (got[r]) against the one
// load_molecules read for it (atom rows, bond rows, edges); returns the row's graph index, or
// -1 when the row has none (and then none was handed over).
long check_handed_over(const std::vector<std::optional<GraphSample>>& got, const MoleculeTable& whole, std::size_t r) {
    const long g = whole.graph_of_record[r];
    REQUIRE(got[r].has_value() == (g >= 0));
    if (g < 0) return g;
    const GraphSample& want = whole.data.graphs[static_cast<std::size_t>(g)];
    CHECK(got[r]->x == want.x);
    CHECK(got[r]->edge_attr == want.edge_attr);
    CHECK(got[r]->graph.in_src() == want.graph.in_src());
    return g;
}

}  // namespace

TEST_CASE("molecules: load_molecules_chunked hands over load_molecules' graphs chunk by chunk", "[io][molecules]") {
    TempDir dir;
    const std::vector<std::string> pool = {"CCO", "C1CC", "c1ccccc1", "CC(=O)O", "[NH5]", "CCN(CC)CC", "", "OC1CCCCC1"};
    std::string csv = "id,smiles,y\n";
    for (int k = 0; k < 50; ++k) csv += "r" + std::to_string(k) + "," + pool[k % pool.size()] + "," + std::to_string(k) + "\n";
    const std::string path = dir.write("many.csv", csv);
    const MoleculeTable whole = load_molecules(path, {.target_columns = {"y"}});
    for (const int threads : {1, 2}) {
        const ThreadScope scope(threads);
        for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{50}, std::size_t{1000}}) {
            INFO("chunk_rows " << chunk << ", threads " << threads);
            // per table row: the graph handed over for it, its smiles and target, the thread
            std::vector<std::optional<GraphSample>> got(50);
            std::vector<std::string> got_smiles(50);
            std::vector<float> got_targets(50, -1.0f);
            std::vector<std::size_t> first_records;  // the first row of each call's chunk
            std::set<int> thread_numbers;
            std::mutex m;
            const MoleculeTable t = load_molecules_chunked(path, {.target_columns = {"y"}}, chunk,
                                                           [&](GraphDataset& part, const std::vector<std::size_t>& records, int thread) {
                const std::lock_guard<std::mutex> lock(m);
                REQUIRE(records.size() == part.size());
                REQUIRE(part.smiles.size() == part.size());
                REQUIRE(part.source_rows.size() == part.size());
                REQUIRE(part.targets.rows() == static_cast<Eigen::Index>(part.size()));
                CHECK(part.target_names == std::vector<std::string>{"y"});
                CHECK(std::is_sorted(records.begin(), records.end()));
                CHECK(records.back() - records.front() < chunk);  // one chunk's rows
                CHECK(records.front() / chunk == records.back() / chunk);
                first_records.push_back(records.front());
                thread_numbers.insert(thread);
                for (std::size_t k = 0; k < part.size(); ++k) {
                    const std::size_t r = records[k];
                    REQUIRE(r < 50);
                    CHECK(!got[r]);  // every row once
                    got[r] = std::move(part.graphs[k]);
                    got_smiles[r] = part.smiles[k];
                    got_targets[r] = part.targets(static_cast<Eigen::Index>(k), 0);
                }
            });
            // one call per chunk that holds a valid row; on one thread in input order
            std::size_t chunks_with_graphs = 0;
            for (std::size_t r0 = 0; r0 < 50; r0 += chunk) {
                bool any = false;
                for (std::size_t r = r0; r < std::min<std::size_t>(50, r0 + chunk); ++r) any = any || whole.graph_of_record[r] >= 0;
                chunks_with_graphs += any ? 1 : 0;
            }
            CHECK(first_records.size() == chunks_with_graphs);
            CHECK(first_records.size() < 50);  // the chunks of one row skip the invalid rows
            if (threads == 1) CHECK(std::is_sorted(first_records.begin(), first_records.end()));
            for (const int th : thread_numbers) CHECK((th >= 0 && th < threads));
            CHECK(t.data.graphs.empty());
            CHECK(t.graph_of_record == whole.graph_of_record);
            CHECK(t.error_of_record == whole.error_of_record);
            CHECK(t.records == whole.records);
            CHECK(t.data.smiles == whole.data.smiles);
            CHECK(t.data.source_rows == whole.data.source_rows);
            CHECK(t.data.targets == whole.data.targets);
            CHECK(t.data.report.n_skipped() == whole.data.report.n_skipped());
            for (std::size_t r = 0; r < 50; ++r) {
                const long g = check_handed_over(got, whole, r);
                if (g < 0) continue;
                CHECK(got_smiles[r] == whole.data.smiles[static_cast<std::size_t>(g)]);
                CHECK(got_targets[r] == whole.data.targets(g, 0));
            }
        }
    }
    // An exception from `consume` ends the load with the lowest failing chunk's.
    {
        const ThreadScope scope(2);
        const std::string error = error_of([&] {
            load_molecules_chunked(path, {}, 4, [&](GraphDataset&, const std::vector<std::size_t>& records, int) {
                if (records.front() >= 20) throw ConfigError("chunk from row " + std::to_string(records.front() / 4 * 4));
            });
        });
        CHECK(error == "chunk from row 20");
    }
    // no valid molecule: the same error as load_molecules, nothing consumed
    const std::string bad = dir.write("bad.csv", "smiles\nC1CC\n[NH5]\n");
    std::size_t calls = 0;
    const std::string error =
        error_of([&] { load_molecules_chunked(bad, {}, 1, [&](GraphDataset&, const std::vector<std::size_t>&, int) { ++calls; }); });
    CHECK(error == error_of([&] { load_molecules(bad); }));
    CHECK_THAT(error, Catch::Contains("no valid molecule"));
    CHECK(calls == 0);
    CHECK_THROWS_AS(load_molecules_chunked(path, {}, 0, [](GraphDataset&, const std::vector<std::size_t>&, int) {}), ConfigError);
}

TEST_CASE("molecules: the reader computes molecule-level features from its own parse, as add_molecule_features does", "[io][molecules][mol_features]") {
    TempDir dir;
    const std::vector<std::string> pool = {"CCO", "C1CC", "c1ccccc1", "CC(=O)NC1CC1", "[NH5]", "CCN(CC)CC", "OC1CCCCC1", "[Na+].[Cl-]"};
    std::string csv = "smiles\n";
    for (int k = 0; k < 24; ++k) csv += pool[static_cast<std::size_t>(k) % pool.size()] + "\n";
    const std::string path = dir.write("mols.csv", csv);
    const MoleculeTable plain = load_molecules(path);
    for (const std::string kind : {"rdkit2d", "morgan", "rdkit2d,morgan"}) {
        INFO(kind);
        const auto width = static_cast<Eigen::Index>(chem::molecule_feature_names(kind).size());
        for (const std::size_t chunk : {std::size_t{5}, std::size_t{1000}}) {
            std::vector<std::optional<GraphSample>> got(plain.records.size());  // per table row
            std::mutex m;
            const MoleculeTable t = load_molecules_chunked(path, {.mol_features = kind}, chunk,
                                                           [&](GraphDataset& part, const std::vector<std::size_t>& records, int) {
                const std::lock_guard<std::mutex> lock(m);
                for (std::size_t k = 0; k < part.size(); ++k) got.at(records[k]) = std::move(part.graphs[k]);
            });
            // the same rows as without features, the same atom rows, and u as computed on its own
            CHECK(t.graph_of_record == plain.graph_of_record);
            CHECK(t.error_of_record == plain.error_of_record);
            for (std::size_t r = 0; r < got.size(); ++r) {
                const long g = check_handed_over(got, plain, r);
                if (g < 0) continue;
                const std::vector<float> u = chem::molecule_features(*chem::parse_smiles(plain.data.smiles[static_cast<std::size_t>(g)]), kind);
                REQUIRE(got[r]->u.rows() == 1);
                REQUIRE(got[r]->u.cols() == width);
                for (Eigen::Index c = 0; c < width; ++c) CHECK(got[r]->u(0, c) == u[static_cast<std::size_t>(c)]);
            }
        }
    }
    CHECK(plain.data.graphs.front().u.size() == 0);  // "none", the default: no features

    // SDF: from RDKit's SMILES of the record, as add_molecule_features takes it
    const std::string sdf = dir.write("mols.sdf", sd_record("ethanol", {"C", "C", "O"}, {{1, 2}, {2, 3}}, {}) + sd_record("methane", {"C"}, {}, {}));
    const MoleculeTable s = load_molecules(sdf, {.mol_features = "rdkit2d"});
    REQUIRE(s.data.size() == 2);
    const std::vector<float> ethanol = chem::molecule_features(*chem::parse_smiles("CCO"), "rdkit2d");
    CHECK(s.data.graphs[0].u == Eigen::Map<const Matrix>(ethanol.data(), 1, static_cast<Eigen::Index>(ethanol.size())));

    CHECK_THROWS_AS(load_molecules(path, {.mol_features = "rdkit3d"}), ConfigError);
}

// ---- the real MoleculeNet files in ../shared/data (skipped when absent) -----------------

namespace {

bool have(const std::string& path) {
    if (std::filesystem::exists(path)) return true;
    std::cout << "SKIPPED: " << path << " not found\n";
    WARN("SKIPPED: " << path << " not found");
    return false;
}

}  // namespace

TEST_CASE("molecules: BBBP has 2050 rows, 11 rejected by RDKit", "[io][molecules][shared-data]") {
    const std::string path = std::string(GATKIT_SHARED_DATA) + "/moleculenet/BBBP.csv";
    if (!have(path)) return;
    CerrCapture cerr;
    const MoleculeTable t = load_molecules(path, {.target_columns = {"p_np"}});
    CHECK(cerr.text.str().empty());
    CHECK(t.records.size() == 2050);
    CHECK(t.data.size() == 2039);
    REQUIRE(t.data.report.n_skipped() == 11);
    std::set<std::string> nums;
    for (std::size_t k = 0; k < t.records.size(); ++k)
        if (t.graph_of_record[k] < 0) nums.insert(t.records[k][0]);
    CHECK(nums == std::set<std::string>{"60", "62", "393", "616", "644", "647", "648", "649", "650", "651", "687"});
    for (const auto& issue : t.data.report.skipped) CHECK_THAT(issue.reason, Catch::Contains("rejected by RDKit"));
    CHECK(t.data.targets.rows() == 2039);
}

TEST_CASE("molecules: ESOL trims trailing spaces and keeps every row", "[io][molecules][shared-data]") {
    const std::string path = std::string(GATKIT_SHARED_DATA) + "/moleculenet/delaney-processed.csv";
    if (!have(path)) return;
    const MoleculeTable t = load_molecules(path, {.target_columns = {"measured log solubility in mols per litre"}});
    CHECK(t.records.size() == 1128);
    CHECK(t.data.size() == 1128);
    CHECK(t.data.report.n_skipped() == 0);
    for (const auto& s : t.data.smiles) CHECK(s.back() != ' ');
    CHECK(t.data.targets.minCoeff() == Approx(-11.6f));
}
