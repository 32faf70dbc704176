// LINQS's tab layout (PubMed-Diabetes: X.NODE.paper.tab + X.DIRECTED.cites.tab): folder and
// prefix paths, sparse numeric attributes with defaults, the class attribute, unlabelled rows,
// links with prefixes, gzip; every refusal names file:line and the value. The links file read
// alone as an edge list (load_network), and the real PubMed-Diabetes links file ([shared-data]).
#include "gatkit/core/error.hpp"
#include "gatkit/io/edgelist.hpp"
#include "gatkit/io/linqs.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>

using namespace gatkit;
using gatkit::test::TempDir;
using gatkit::test::write_gz;
using Catch::Contains;

namespace {

// Attributes in PubMed's style: the class first, numeric words with defaults (w-c's is 0.5),
// a summary string last. Rows list only their non-default words, in any order; p4 has no class.
const std::string kNodes =
    "NODE\tpaper\r\n"
    "cat=1,2,3:label\tnumeric:w-a:0.0\tnumeric:w-b:0.0\tnumeric:w-c:0.5\tstring:summary\r\n"
    "p1\tlabel=2\tw-b=0.25\tw-a=1\tsummary=w-a,w-b\r\n"
    "p2\tlabel=1\tw-c=2\tsummary=w-c\r\n"
    "\r\n"
    "p3\tlabel=3\tsummary=\r\n"
    "p4\tw-a=3\tsummary=w-a\r\n";
// line 3 p1-p2, line 4 p2-p1 (the same undirected link), line 5 a self-link, line 6 an unknown
// paper, line 7 p3-p4
const std::string kLinks =
    "DIRECTED\tcites\n"
    "NO_FEATURES\n"
    "101\tpaper:p1\t|\tpaper:p2\n"
    "102\tpaper:p2\t|\tpaper:p1\n"
    "103\tpaper:p3\t|\tpaper:p3\n"
    "104\tpaper:p9\t|\tpaper:p1\n"
    "105\tpaper:p3\t|\tpaper:p4\n";

bool has_note(const LoadReport& report, const std::string& text) {
    return std::any_of(report.notes.begin(), report.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

void check_tab_dataset(const NodeDataset& ds, const std::string& links_file) {
    CHECK(ds.name == "tiny");
    REQUIRE(ds.num_nodes() == 4);
    CHECK(ds.node_ids == std::vector<std::string>{"p1", "p2", "p3", "p4"});
    REQUIRE(ds.features.cols() == 3);
    Matrix expect(4, 3);
    expect << 1, 0.25f, 0.5f,  //
        0, 0, 2,               //
        0, 0, 0.5f,            //
        3, 0, 0.5f;
    CHECK(ds.features == expect);
    CHECK(ds.class_names == std::vector<std::string>{"1", "2", "3"});
    CHECK(ds.labels == std::vector<int>{1, 0, 2, -1});
    CHECK(has_note(ds.report, "1 papers have no label"));

    const Graph& g = ds.graph;
    CHECK(g.num_edges() == 4);  // p1-p2 and p3-p4, both ways
    CHECK(g.has_edge(0, 1));
    CHECK(g.has_edge(1, 0));
    CHECK(g.has_edge(2, 3));
    CHECK(g.has_edge(3, 2));
    CHECK(g.num_self_loops() == 0);
    CHECK(has_note(ds.report, "1 self-links dropped"));
    REQUIRE(ds.report.skipped.size() == 1);
    CHECK(ds.report.skipped[0].file == links_file);
    CHECK(ds.report.skipped[0].line == 6);
    CHECK_THAT(ds.report.skipped[0].reason, Contains("'p9'"));
}

}  // namespace

TEST_CASE("load_linqs, tab layout: folder, prefix and gzip", "[io][linqs]") {
    TempDir dir;
    const std::string nodes = dir.write("tiny.NODE.paper.tab", kNodes);
    const std::string links = dir.write("tiny.DIRECTED.cites.tab", kLinks);
    dir.write("tiny.GRAPH.pubmed.tab", "GRAPH\tpubmed\nNO_FEATURES\ntiny\n");  // PubMed's third file, not read

    const LinqsPaths paths = resolve_linqs_paths(dir.path().string());
    CHECK(paths.tab);
    CHECK(paths.content == nodes);
    CHECK(paths.cites == links);
    check_tab_dataset(load_linqs(dir.path().string()), links);
    check_tab_dataset(load_linqs(dir.file("tiny")), links);

    TempDir gz;
    write_gz(gz.file("tiny.NODE.paper.tab.gz"), kNodes);
    write_gz(gz.file("tiny.DIRECTED.cites.tab.gz"), kLinks);
    check_tab_dataset(load_linqs(gz.path().string()), gz.file("tiny.DIRECTED.cites.tab.gz"));
}

TEST_CASE("load_linqs, tab layout: the class attribute and an undirected links file", "[io][linqs]") {
    TempDir dir;
    // the only categorical attribute is the class, whatever its name; no default on a numeric one
    dir.write("s.NODE.author.tab",
              "NODE\tauthor\n"
              "numeric:x\tcat=physics,biology:field\n"
              "a\tx=1.5\tfield=physics\n"
              "b\tfield=biology\n"
              "c\tfield=physics\tx=-2\n");
    dir.write("s.UNDIRECTED.coauthor.tab",
              "UNDIRECTED\tcoauthor\n"
              "numeric:papers:1\n"
              "1\tauthor:a\t|\tauthor:b\tpapers=3\n"
              "2\tauthor:c\t|\tauthor:b\n");
    const NodeDataset ds = load_linqs(dir.file("s"));
    CHECK(ds.class_names == std::vector<std::string>{"biology", "physics"});
    CHECK(ds.labels == std::vector<int>{1, 0, 1});
    CHECK(ds.features.col(0) == Eigen::Vector3f(1.5f, 0, -2));
    CHECK(ds.graph.num_edges() == 4);
    CHECK(has_note(ds.report, "attributes are not read"));
}

TEST_CASE("load_linqs, tab layout: refusals name the file, the line and the value", "[io][linqs]") {
    TempDir dir;
    const auto refused = [&](const std::string& nodes, const std::string& links, const std::vector<std::string>& parts) {
        dir.write("x.NODE.paper.tab", nodes);
        dir.write("x.DIRECTED.cites.tab", links);
        try {
            load_linqs(dir.path().string());
            FAIL("loaded: " << nodes << " / " << links);
        } catch (const ParseError& e) {
            for (const auto& p : parts) CHECK_THAT(std::string(e.what()), Contains(p));
        }
    };
    const std::string header = "NODE\tpaper\ncat=1,2:label\tnumeric:w\n";
    SECTION("headers") {
        refused("paper\tNODE\n", kLinks, {"x.NODE.paper.tab:1", "'paper\tNODE'"});
        refused("", kLinks, {"x.NODE.paper.tab", "empty"});
        refused("NODE\tpaper\n", kLinks, {"x.NODE.paper.tab", "attribute line"});
        refused(header + "1\tlabel=1\n", "p1\tp2\n", {"x.DIRECTED.cites.tab:1", "DIRECTED"});
    }
    SECTION("declarations") {
        refused("NODE\tpaper\ncat=1,2:label\tfloat:w\n", kLinks, {"x.NODE.paper.tab:2", "'float:w'"});
        refused("NODE\tpaper\ncat=1,2:label\tnumeric:w:high\n", kLinks, {"x.NODE.paper.tab:2", "'high'"});
        refused("NODE\tpaper\ncat=1,2:label\tnumeric:w\tnumeric:w\n", kLinks, {"x.NODE.paper.tab:2", "'w'", "twice"});
        refused("NODE\tpaper\nnumeric:w\n1\tw=1\n", kLinks, {"x.NODE.paper.tab:2", "no class attribute"});
        refused("NODE\tpaper\ncat=1,2:label\tcat=a,b:kind\n", kLinks, {"x.NODE.paper.tab:2", "'kind'"});
    }
    SECTION("rows") {
        refused(header + "p1\tlabel=1\tw=0.5\np2\tlabel=2\tv=1\n", kLinks, {"x.NODE.paper.tab:4", "'v'", "not declared"});
        refused(header + "p1\tlabel=4\n", kLinks, {"x.NODE.paper.tab:3", "label='4'"});
        refused(header + "p1\tlabel=1\tw=abc\n", kLinks, {"x.NODE.paper.tab:3", "w='abc'", "not a finite number"});
        refused(header + "p1\tlabel=1\tw=1\tw=2\n", kLinks, {"x.NODE.paper.tab:3", "'w'", "twice"});
        refused(header + "p1\tlabel=1\tlabel=2\n", kLinks, {"x.NODE.paper.tab:3", "twice"});
        refused(header + "p1\tlabel=1\np1\tlabel=2\n", kLinks, {"x.NODE.paper.tab:4", "'p1'", "twice"});
        refused(header + "p1\tlabel=1\tw\n", kLinks, {"x.NODE.paper.tab:3", "'w'", "NAME=VALUE"});
        refused(header, kLinks, {"x.NODE.paper.tab", "no paper rows"});
        refused(header + "p1\tw=1\n", kLinks, {"x.NODE.paper.tab", "no row has a label"});
    }
    SECTION("links") {
        const std::string nodes = header + "p1\tlabel=1\np2\tlabel=2\n";
        refused(nodes, "DIRECTED\tcites\nNO_FEATURES\n1\tpaper:p1\tpaper:p2\n", {"x.DIRECTED.cites.tab:3", "'1\tpaper:p1\tpaper:p2'"});
        refused(nodes, "DIRECTED\tcites\nNO_FEATURES\n1\tpaper:p1\t|\tauthor:p2\n", {"x.DIRECTED.cites.tab:3", "'author:p2'", "not a paper"});
        refused(nodes, "DIRECTED\tcites\nNO_FEATURES\n1\tp1\t|\tpaper:p2\n", {"x.DIRECTED.cites.tab:3", "'p1'"});
    }
}

TEST_CASE("load_linqs, tab layout: a folder without the node file says how to read the links", "[io][linqs]") {
    TempDir dir;
    const std::string links = dir.write("Pubmed-Diabetes.DIRECTED.cites.tab", kLinks);
    dir.write("Pubmed-Diabetes.GRAPH.pubmed.tab", "GRAPH\tpubmed\nNO_FEATURES\nPubmed-Diabetes\n");
    CHECK_THROWS_AS(load_linqs(dir.path().string()), IoError);
    CHECK_THROWS_WITH(load_linqs(dir.path().string()), Contains("found 0 and 1") && Contains("--task link --data " + links));
    CHECK_THROWS_WITH(load_linqs(dir.file("Pubmed-Diabetes")), Contains("found 0 and 1"));
}

TEST_CASE("load_network: a LINQS tab links file read alone", "[io][edgelist][linqs]") {
    TempDir dir;
    const std::string links = dir.write("tiny.DIRECTED.cites.tab", kLinks);
    const NetworkDataset net = load_network(links);
    using Edges = std::vector<std::pair<NodeId, NodeId>>;
    CHECK(net.name == "tiny.DIRECTED.cites");
    // the ids without "paper:"; p3's self-link still names it first
    CHECK(net.node_ids == std::vector<std::string>{"p1", "p2", "p3", "p9", "p4"});
    CHECK(net.edges == Edges{{0, 1}, {0, 3}, {2, 4}});
    CHECK(has_note(net.report, "1 self-loops dropped"));
    CHECK(has_note(net.report, "1 duplicate edges merged"));
    CHECK(load_network(links, {.directed = true}).edges == Edges{{0, 1}, {1, 0}, {3, 0}, {2, 4}});
    // the format by name: the same file named .txt is SNAP, and its header is no edge
    const std::string txt = dir.write("links.txt", kLinks);
    CHECK_THROWS_WITH(load_network(txt), Contains("links.txt:2") && Contains("'NO_FEATURES'"));
    CHECK(load_network(txt, {.format = "linqs-tab"}).edges == Edges{{0, 1}, {0, 3}, {2, 4}});
    CHECK_THROWS_WITH(load_network(dir.write("bad.DIRECTED.cites.tab", "DIRECTED\tcites\nNO_FEATURES\n1\tp1\t|\tpaper:p2\n")),
                      Contains("bad.DIRECTED.cites.tab:3") && Contains("'p1'"));
}

TEST_CASE("load_network: the PubMed-Diabetes links file (LINQS tab layout)", "[shared-data][edgelist][linqs]") {
    const std::string dir = std::string(GATKIT_SHARED_DATA) + "/pubmed";
    const std::string links = dir + "/Pubmed-Diabetes.DIRECTED.cites.tab";
    if (!std::filesystem::exists(links)) {
        std::cout << "SKIPPED: " << links << " not found; the LINQS tab links reader was not checked on it\n";
        WARN("SKIPPED: " << links << " not found");
        return;
    }
    // ../shared/data/README.md: 44,338 links over 19,717 papers, 3 self-loops; without them
    // 44,324 undirected pairs, Planetoid PubMed's count.
    const NetworkDataset net = load_network(links);
    CHECK(net.num_nodes() == 19717);
    CHECK(net.edges.size() == 44324);
    CHECK(has_note(net.report, "3 self-loops dropped"));
    CHECK(has_note(net.report, "11 duplicate edges merged"));
    CHECK(net.find("19127292").has_value());
    CHECK_FALSE(net.find("paper:19127292").has_value());
    // the folder holds the links but not the node file (features and classes)
    CHECK_THROWS_WITH(load_linqs(dir), Contains("found 0 and 1") && Contains(links));
}
