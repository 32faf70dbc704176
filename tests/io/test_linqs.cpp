// LINQS content/cites loading (plain and gzip, folder and prefix paths), its errors, and
// write_linqs round trips. Also row_normalize.
#include "gatkit/core/error.hpp"
#include "gatkit/graph/generators.hpp"
#include "gatkit/io/linqs.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

using namespace gatkit;
using gatkit::test::TempDir;
using gatkit::test::write_gz;
namespace fs = std::filesystem;

namespace {

// String ids, tab separated, CRLF.
const std::string kContent =
    "paperA\t1\t0\t0.5\tNeural\r\n"
    "paperB\t0\t1\t0\tTheory\r\n"
    "\r\n"
    "paperC\t0\t0\t2\tAgents\r\n"
    "paperD\t1\t1\t1.25\tNeural\r\n";
// space separated, CRLF: A-B listed both ways, a self-citation, an unknown paper (line 5)
const std::string kCites =
    "paperA paperB\r\n"
    "paperB paperA\r\n"
    "paperC paperC\r\n"
    "paperA  paperD\r\n"
    "paperX paperA\r\n"
    "paperD\tpaperC\r\n";

void check_string_dataset(const NodeDataset& ds, const std::string& cites_file) {
    REQUIRE(ds.num_nodes() == 4);
    CHECK(ds.node_ids == std::vector<std::string>{"paperA", "paperB", "paperC", "paperD"});
    REQUIRE(ds.features.rows() == 4);
    REQUIRE(ds.features.cols() == 3);
    Matrix expect(4, 3);
    expect << 1, 0, 0.5f, 0, 1, 0, 0, 0, 2, 1, 1, 1.25f;
    CHECK(ds.features == expect);
    CHECK(ds.class_names == std::vector<std::string>{"Agents", "Neural", "Theory"});
    CHECK(ds.num_classes() == 3);
    CHECK(ds.labels == std::vector<int>{1, 2, 0, 1});

    // undirected A-B (listed twice), A-D, C-D; no self-loop for C
    const Graph& g = ds.graph;
    CHECK(g.num_edges() == 6);
    CHECK(g.num_self_loops() == 0);
    for (const auto& [u, v] : std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {0, 3}, {2, 3}}) {
        CHECK(g.has_edge(u, v));
        CHECK(g.has_edge(v, u));
    }
    CHECK_FALSE(g.has_edge(1, 2));

    REQUIRE(ds.report.skipped.size() == 1);
    const LoadIssue& issue = ds.report.skipped[0];
    CHECK(issue.file == cites_file);
    CHECK(issue.line == 5);
    CHECK_THAT(issue.text, Catch::Contains("paperX"));
    CHECK_THAT(issue.reason, Catch::Contains("paperX"));
    const auto& notes = ds.report.notes;
    CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("1 self-citation") != std::string::npos; }));
}

}  // namespace

TEST_CASE("load_linqs: string ids via folder and prefix", "[io][linqs]") {
    TempDir dir;
    const std::string content = dir.write("tiny.content", kContent);
    const std::string cites = dir.write("tiny.cites", kCites);

    const auto paths = resolve_linqs_paths(dir.path().string());
    CHECK(paths.content == content);
    CHECK(paths.cites == cites);

    const NodeDataset by_folder = load_linqs(dir.path().string());
    check_string_dataset(by_folder, cites);
    CHECK(by_folder.name == "tiny");

    const NodeDataset by_prefix = load_linqs(dir.file("tiny"));
    check_string_dataset(by_prefix, cites);
    CHECK(by_prefix.graph.edge_list() == by_folder.graph.edge_list());
}

TEST_CASE("load_linqs: gzip-compressed files", "[io][linqs]") {
    TempDir dir;
    write_gz(dir.file("tiny.content.gz"), kContent);
    write_gz(dir.file("tiny.cites.gz"), kCites);
    check_string_dataset(load_linqs(dir.path().string()), dir.file("tiny.cites.gz"));
    check_string_dataset(load_linqs(dir.file("tiny")), dir.file("tiny.cites.gz"));

    // one compressed and one plain
    TempDir mixed;
    write_gz(mixed.file("m.content.gz"), kContent);
    mixed.write("m.cites", kCites);
    check_string_dataset(load_linqs(mixed.file("m")), mixed.file("m.cites"));
}

TEST_CASE("load_linqs: sparse integer ids, mixed separators", "[io][linqs]") {
    TempDir dir;
    dir.write("cora.content",
              "31336 0 1 0 Neural_Networks\n"
              "1061127\t1 0 1\tRule_Learning\n"
              "1106406 0 0 0 Reinforcement_Learning\n"
              "13195\t0\t0\t1\tNeural_Networks\n");
    dir.write("cora.cites", "31336\t1061127\n1061127 31336\n13195 1106406\n35 31336\n");
    const NodeDataset ds = load_linqs(dir.path().string());
    REQUIRE(ds.num_nodes() == 4);
    CHECK(ds.node_ids == std::vector<std::string>{"31336", "1061127", "1106406", "13195"});
    CHECK(ds.class_names == std::vector<std::string>{"Neural_Networks", "Reinforcement_Learning", "Rule_Learning"});
    CHECK(ds.labels == std::vector<int>{0, 2, 1, 0});
    CHECK(ds.features.row(1) == Eigen::RowVector3f(1, 0, 1));
    CHECK(ds.graph.num_edges() == 4);  // 31336-1061127 and 13195-1106406, both directions
    CHECK(ds.graph.has_edge(0, 1));
    CHECK(ds.graph.has_edge(1, 0));
    CHECK(ds.graph.has_edge(2, 3));
    REQUIRE(ds.report.skipped.size() == 1);
    CHECK(ds.report.skipped[0].line == 4);
    CHECK_THAT(ds.report.skipped[0].reason, Catch::Contains("'35'"));
}

TEST_CASE("load_linqs: errors name the file, the line and the value", "[io][linqs]") {
    TempDir dir;
    SECTION("missing folder or prefix") {
        const std::string p = dir.file("nowhere");
        CHECK_THROWS_AS(load_linqs(p), IoError);
        CHECK_THROWS_WITH(load_linqs(p), Catch::Contains("nowhere"));
    }
    SECTION("prefix with .content but no .cites") {
        dir.write("x.content", kContent);
        CHECK_THROWS_AS(load_linqs(dir.file("x")), IoError);
        CHECK_THROWS_WITH(load_linqs(dir.file("x")), Catch::Contains("x.cites"));
        // the folder form too
        CHECK_THROWS_AS(load_linqs(dir.path().string()), IoError);
        CHECK_THROWS_WITH(load_linqs(dir.path().string()), Catch::Contains("found 1 and 0"));
    }
    SECTION("folder with two .content files") {
        dir.write("a.content", kContent);
        write_gz(dir.file("b.content.gz"), kContent);
        dir.write("a.cites", kCites);
        CHECK_THROWS_AS(load_linqs(dir.path().string()), IoError);
        CHECK_THROWS_WITH(load_linqs(dir.path().string()), Catch::Contains(dir.path().string()) && Catch::Contains("found 2 and 1"));
    }
    SECTION("wrong column count on a later row") {
        dir.write("x.content", "p1 1 0 A\np2 0 1 B\np3 1 C\n");
        dir.write("x.cites", "");
        CHECK_THROWS_AS(load_linqs(dir.file("x")), ParseError);
        CHECK_THROWS_WITH(load_linqs(dir.file("x")),
                          Catch::Contains("x.content:3") && Catch::Contains("expected 4 columns") && Catch::Contains("found 3"));
    }
    SECTION("non-numeric feature") {
        dir.write("x.content", "p1 1 0 A\np2 0 abc B\n");
        dir.write("x.cites", "");
        CHECK_THROWS_AS(load_linqs(dir.file("x")), ParseError);
        CHECK_THROWS_WITH(load_linqs(dir.file("x")), Catch::Contains("x.content:2") && Catch::Contains("'abc'") &&
                                                         Catch::Contains("column 3"));
    }
    SECTION("empty .content") {
        dir.write("x.content", "\n\n");
        dir.write("x.cites", "");
        CHECK_THROWS_AS(load_linqs(dir.file("x")), ParseError);
        CHECK_THROWS_WITH(load_linqs(dir.file("x")), Catch::Contains("x.content") && Catch::Contains("empty"));
    }
    SECTION("a .cites line with one column") {
        dir.write("x.content", kContent);
        dir.write("x.cites", "paperA paperB\npaperC\n");
        CHECK_THROWS_AS(load_linqs(dir.file("x")), ParseError);
        CHECK_THROWS_WITH(load_linqs(dir.file("x")), Catch::Contains("x.cites:2") && Catch::Contains("found 1") &&
                                                         Catch::Contains("'paperC'"));
    }
    SECTION("duplicate paper id") {
        dir.write("x.content", "p1 1 A\np2 0 B\np1 1 C\n");
        dir.write("x.cites", "");
        CHECK_THROWS_AS(load_linqs(dir.file("x")), ParseError);
        CHECK_THROWS_WITH(load_linqs(dir.file("x")), Catch::Contains("x.content:3") && Catch::Contains("'p1'") &&
                                                         Catch::Contains("twice"));
    }
    SECTION("first row too short") {
        dir.write("x.content", "p1 A\n");
        dir.write("x.cites", "");
        CHECK_THROWS_WITH(load_linqs(dir.file("x")), Catch::Contains("x.content:1") && Catch::Contains("'p1 A'"));
    }
}

TEST_CASE("load_linqs: NaN, Inf and values beyond float are rejected with file:line, column and value", "[io][linqs][edge-cases]") {
    TempDir dir;
    for (const std::string v : {"nan", "NaN", "inf", "-Infinity", "1e39"}) {
        CAPTURE(v);
        dir.write("x.content", "p1 1 0 A\np2 0 " + v + " B\n");
        dir.write("x.cites", "p1 p2\n");
        CHECK_THROWS_AS(load_linqs(dir.file("x")), ParseError);
        CHECK_THROWS_WITH(load_linqs(dir.file("x")), Catch::Contains("x.content:2") && Catch::Contains("column 3") &&
                                                         Catch::Contains("'" + v + "'") && Catch::Contains("not a finite number"));
    }
}

TEST_CASE("write_linqs then load_linqs gives the same data set", "[io][linqs]") {
    TempDir dir;
    SECTION("hand-written") {
        dir.write("tiny.content", kContent);
        dir.write("tiny.cites", kCites);
        const NodeDataset a = load_linqs(dir.file("tiny"));
        fs::create_directory(dir.path() / "out");
        const std::string prefix = (dir.path() / "out" / "copy").string();
        write_linqs(prefix, a);
        const NodeDataset b = load_linqs(prefix);
        CHECK(b.node_ids == a.node_ids);
        CHECK(b.features == a.features);
        CHECK(b.labels == a.labels);
        CHECK(b.class_names == a.class_names);
        CHECK(b.graph.edge_list() == a.graph.edge_list());
        CHECK(b.report.skipped.empty());
        CHECK(b.report.notes.empty());
        // no temporary files left behind
        for (const auto& e : fs::directory_iterator(dir.path() / "out"))
            CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
    }
    SECTION("generated, with non-trivial feature values") {
        NodeDataset a = generate_planted_partition({.nodes = 300, .classes = 4, .features = 40, .words_per_node = 7, .seed = 3});
        row_normalize(a.features);  // values like 1/7 must survive the text round trip exactly
        const std::string prefix = dir.file("pp");
        write_linqs(prefix, a);
        const NodeDataset b = load_linqs(prefix);
        CHECK(b.node_ids == a.node_ids);
        CHECK((b.features.array() == a.features.array()).all());
        CHECK(b.labels == a.labels);
        CHECK(b.class_names == a.class_names);
        CHECK(b.graph.edge_list() == a.graph.edge_list());
    }
}

TEST_CASE("row_normalize: rows sum to 1, zero rows stay zero", "[io][linqs]") {
    Matrix x(4, 3);
    x << 1, 1, 2, 0, 0, 0, 0, 5, 0, 0.25f, 0.25f, 0.5f;
    row_normalize(x);
    Matrix expect(4, 3);
    expect << 0.25f, 0.25f, 0.5f, 0, 0, 0, 0, 1, 0, 0.25f, 0.25f, 0.5f;
    CHECK((x - expect).cwiseAbs().maxCoeff() < 1e-7f);
    CHECK(x.row(1).isZero(0));

    Rng rng(1);
    Matrix big = gatkit::test::random_matrix<float>(500, 20, rng).cwiseAbs();
    big.row(17).setZero();
    row_normalize(big);
    for (Eigen::Index i = 0; i < big.rows(); ++i) {
        if (i == 17)
            CHECK(big.row(i).isZero(0));
        else
            REQUIRE(big.row(i).sum() == Approx(1.0f).epsilon(1e-5));
    }
}
