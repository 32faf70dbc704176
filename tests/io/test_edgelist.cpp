// Edge lists (SNAP and CSV, plain and gzip), feature and label files, their errors, conversion
// from a LINQS-style NodeDataset and write_edge_list round trips. The [shared-data] cases load
// the real SNAP graphs from ../shared/data/social when present.
#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/io/edgelist.hpp"
#include "support/cli.hpp"
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

using Edges = std::vector<std::pair<NodeId, NodeId>>;

bool has_note(const LoadReport& r, const std::string& part) {
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

// The message of the exception load_network throws, or "" when it does not throw.
template <class Fn>
std::string error_of(Fn fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

// Tabs, spaces, CRLF, '#' and '%' comments, blank lines, string ids; a duplicate listed the
// other way round (line 6), a self-loop (line 7), an exact duplicate (line 9).
const std::string kSnap =
    "# a small network\r\n"
    "% also a comment\r\n"
    "alice\tbob\r\n"
    "bob  carol\r\n"
    "\r\n"
    "bob alice\r\n"
    "dave dave\r\n"
    "carol\t \tdave\r\n"
    "alice bob\r\n";

void check_snap(const NetworkDataset& ds, bool directed) {
    CHECK(ds.node_ids == std::vector<std::string>{"alice", "bob", "carol", "dave"});
    CHECK(ds.num_nodes() == 4);
    CHECK(ds.directed == directed);
    REQUIRE(ds.find("carol"));
    CHECK(*ds.find("carol") == 2);
    CHECK_FALSE(ds.find("eve"));
    CHECK(ds.edge_weights.empty());
    CHECK(ds.edge_labels.empty());
    CHECK(ds.features.rows() == 4);
    CHECK(ds.features.cols() == 0);
    CHECK(ds.node_labels.empty());
    CHECK(has_note(ds.report, "1 self-loops dropped"));
    CHECK(ds.report.skipped.empty());
    if (directed) {
        CHECK(ds.edges == Edges{{0, 1}, {1, 2}, {1, 0}, {2, 3}});
        CHECK(has_note(ds.report, "1 duplicate edges merged"));
    } else {
        CHECK(ds.edges == Edges{{0, 1}, {1, 2}, {2, 3}});
        CHECK(has_note(ds.report, "2 duplicate edges merged"));
    }
}

}  // namespace

TEST_CASE("load_network: SNAP edge list, undirected and directed", "[io][edgelist]") {
    TempDir dir;
    const std::string path = dir.write("tiny.txt", kSnap);
    const NetworkDataset und = load_network(path);
    check_snap(und, false);
    CHECK(und.name == "tiny");
    const Graph g = und.graph();
    CHECK(g.num_nodes() == 4);
    CHECK(g.num_edges() == 6);
    CHECK(g.num_self_loops() == 0);
    CHECK(g.has_edge(0, 1));
    CHECK(g.has_edge(1, 0));
    CHECK(g.has_edge(3, 2));

    const NetworkDataset dir_ds = load_network(path, {.directed = true});
    check_snap(dir_ds, true);
    const Graph dg = dir_ds.graph();
    CHECK(dg.num_edges() == 4);
    CHECK(dg.has_edge(1, 2));
    CHECK_FALSE(dg.has_edge(2, 1));
}

TEST_CASE("load_network: gzip, forced formats, sparse integer ids, weights", "[io][edgelist]") {
    TempDir dir;
    SECTION("a UTF-8 byte-order mark is not part of the first id, plain or gzip") {
        check_snap(load_network(dir.write("bom.txt", "\xEF\xBB\xBF" + std::string(kSnap))), false);
        write_gz(dir.file("bom.txt.gz"), "\xEF\xBB\xBF" + std::string(kSnap));
        check_snap(load_network(dir.file("bom.txt.gz")), false);
    }
    SECTION("gzip") {
        write_gz(dir.file("tiny.txt.gz"), kSnap);
        const NetworkDataset ds = load_network(dir.file("tiny.txt.gz"));
        check_snap(ds, false);
        CHECK(ds.name == "tiny");
    }
    SECTION("sparse integer ids are kept as strings") {
        const NetworkDataset ds = load_network(dir.write("ids.edges", "1061127 31336\n31336 7\n007 7\n"));
        CHECK(ds.node_ids == std::vector<std::string>{"1061127", "31336", "7", "007"});
        CHECK(ds.edges == Edges{{0, 1}, {1, 2}, {2, 3}});
    }
    SECTION("a weight column (karate style u v w), first copy's weight kept") {
        const NetworkDataset ds = load_network(dir.write("w.txt", "1 2 4\r\n1 3 5\r\n2 1 9\r\n3 4 0.5\r\n"));
        CHECK(ds.edges == Edges{{0, 1}, {0, 2}, {2, 3}});
        CHECK(ds.edge_weights == std::vector<float>{4, 5, 0.5f});
    }
    SECTION("format csv forces CSV for any name; snap forces SNAP") {
        const std::string path = dir.write("e.dat", "source,target\na,b\n");
        const NetworkDataset ds = load_network(path, {.format = "csv"});
        CHECK(ds.edges == Edges{{0, 1}});
        CHECK_THROWS_WITH(load_network(path, {.format = "snap"}), Contains("e.dat:1") && Contains("found 1"));
        CHECK_THROWS_AS(load_network(path, {.format = "tsv"}), ConfigError);
        CHECK_THROWS_WITH(load_network(path, {.format = "tsv"}), Contains("'tsv'"));
    }
}

TEST_CASE("load_network: CSV edge list with labels and weights", "[io][edgelist]") {
    TempDir dir;
    // quoted ids with commas, CRLF, upper-case header names, a conflicting duplicate (line 5)
    const std::string text =
        "Source,Target,Weight,Label\r\n"
        "\"Smith, J\",bob,1.5,friend\r\n"
        "bob,carol,2,work\r\n"
        "carol,carol,1,self\r\n"
        "bob,\"Smith, J\",7,work\r\n"
        "carol,dave,+3e-1,friend\r\n"
        "carol,bob,2,work\r\n";
    const std::string path = dir.write("net.csv", text);
    const NetworkDataset ds = load_network(path);
    CHECK(ds.node_ids == std::vector<std::string>{"Smith, J", "bob", "carol", "dave"});
    CHECK(ds.edges == Edges{{0, 1}, {1, 2}, {2, 3}});
    CHECK(ds.edge_weights == std::vector<float>{1.5f, 2, 0.3f});
    CHECK(ds.edge_class_names == std::vector<std::string>{"friend", "work"});
    CHECK(ds.edge_labels == std::vector<int>{0, 1, 0});
    CHECK(has_note(ds.report, "1 self-loops dropped"));
    CHECK(has_note(ds.report, "2 duplicate edges merged"));
    REQUIRE(ds.report.skipped.size() == 1);
    const LoadIssue& issue = ds.report.skipped[0];
    CHECK(issue.file == path);
    CHECK(issue.line == 5);
    CHECK_THAT(issue.text, Contains("Smith, J"));
    CHECK_THAT(issue.reason, Contains("conflicting label: first seen as 'friend'"));

    SECTION("gzip and src,dst only") {
        write_gz(dir.file("plain.csv.gz"), "src,dst\nx,y\ny,z\n");
        const NetworkDataset gz = load_network(dir.file("plain.csv.gz"));
        CHECK(gz.name == "plain");
        CHECK(gz.edges == Edges{{0, 1}, {1, 2}});
        CHECK(gz.edge_labels.empty());
        CHECK(gz.edge_weights.empty());
    }
}

TEST_CASE("load_network: errors name the file, the line and the value", "[io][edgelist]") {
    TempDir dir;
    SECTION("missing file") {
        const std::string p = dir.file("nowhere.txt");
        CHECK_THROWS_AS(load_network(p), IoError);
        CHECK_THROWS_WITH(load_network(p), Contains("nowhere.txt"));
    }
    SECTION("a line with one column") {
        const std::string p = dir.write("one.txt", "a b\n# c\nlonely\n");
        CHECK_THROWS_AS(load_network(p), ParseError);
        CHECK_THROWS_WITH(load_network(p), Contains("one.txt:3") && Contains("'lonely'"));
    }
    SECTION("more than 3 columns") {
        const std::string p = dir.write("four.txt", "a b 1 extra\n");
        CHECK_THROWS_AS(load_network(p), ParseError);
        CHECK_THROWS_WITH(load_network(p), Contains("four.txt:1") && Contains("found 4") && Contains("extra"));
    }
    SECTION("a weight column on some lines only") {
        const std::string p = dir.write("mixed.txt", "a b 1\nb c\n");
        CHECK_THROWS_WITH(load_network(p), Contains("mixed.txt:2") && Contains("line 1"));
    }
    SECTION("non-numeric, NaN and Inf weights") {
        for (const std::string w : {"heavy", "nan", "inf", "-Infinity", "1e99"}) {
            const std::string p = dir.write("w.txt", "a b 1\nb c " + w + "\n");
            const std::string msg = error_of([&] { load_network(p); });
            INFO(msg);
            CHECK_THROWS_AS(load_network(p), ParseError);
            CHECK_THAT(msg, Contains("w.txt:2") && Contains("'" + w + "'"));
        }
        const std::string p = dir.write("w.csv", "src,dst,weight\na,b,1\nb,c,NaN\n");
        CHECK_THROWS_WITH(load_network(p), Contains("w.csv:3") && Contains("'NaN'"));
    }
    SECTION("CSV without src/dst, with an unknown column, with a short row, with an empty label") {
        const std::string a = dir.write("a.csv", "from,to\nx,y\n");
        CHECK_THROWS_AS(load_network(a), ParseError);
        CHECK_THROWS_WITH(load_network(a), Contains("a.csv:1") && Contains("'from'") && Contains("src, dst, label, weight"));
        const std::string b = dir.write("b.csv", "src,label\nx,y\n");
        CHECK_THROWS_WITH(load_network(b), Contains("b.csv:1") && Contains("needs a src and a dst"));
        const std::string c = dir.write("c.csv", "src,dst,label\nx,y,k\nx,z\n");
        CHECK_THROWS_WITH(load_network(c), Contains("c.csv:3") && Contains("expected 3 fields"));
        const std::string d = dir.write("d.csv", "src,dst,label\nx,y,k\ny,z,\n");
        CHECK_THROWS_AS(load_network(d), ParseError);
        CHECK_THROWS_WITH(load_network(d), Contains("d.csv:3") && Contains("empty label"));
        const std::string e = dir.write("e.csv", "src,source,dst\nx,y,z\n");
        CHECK_THROWS_WITH(load_network(e), Contains("e.csv:1") && Contains("'src' and 'source'"));
    }
    SECTION("no edges at all, also after dropping self-loops") {
        const std::string a = dir.write("empty.txt", "# nothing here\n\n");
        CHECK_THROWS_AS(load_network(a), GraphError);
        CHECK_THROWS_WITH(load_network(a), Contains("empty.txt: no edges"));
        const std::string b = dir.write("loops.txt", "a a\nb b\n");
        CHECK_THROWS_AS(load_network(b), GraphError);
        CHECK_THROWS_WITH(load_network(b), Contains("loops.txt: no edges") && Contains("2 self-loops"));
        const std::string c = dir.write("header_only.csv", "src,dst\n");
        CHECK_THROWS_WITH(load_network(c), Contains("header_only.csv: no edges"));
    }
}

TEST_CASE("load_network: feature and label files", "[io][edgelist]") {
    TempDir dir;
    const std::string edges = dir.write("g.txt", "a b\nb c\n");
    SECTION("every node with features and a label, some unlabelled") {
        const std::string feats = dir.write("f.csv", "id,x,y\nc,3,0.5\r\nd,4,1\nb,2,0\na,1,-1\n");
        const std::string labels = dir.write("l.txt", "# id label\nb  spam\na\tham\nd ham\n");
        const NetworkDataset ds = load_network(edges, {}, feats, labels);
        CHECK(ds.node_ids == std::vector<std::string>{"a", "b", "c", "d"});
        Matrix expect(4, 2);
        expect << 1, -1, 2, 0, 3, 0.5f, 4, 1;
        CHECK(ds.features == expect);
        CHECK(ds.node_class_names == std::vector<std::string>{"ham", "spam"});
        CHECK(ds.node_labels == std::vector<int>{0, 1, -1, 0});
        CHECK(has_note(ds.report, "1 ids in " + feats + " are not in the edge file"));
        CHECK(ds.graph().num_nodes() == 4);
        CHECK(ds.graph().in_degree(3) == 0);
    }
    SECTION("CSV labels chosen by a comma in the first line; any header names") {
        const std::string labels = dir.write("l.tsv", "personId,labelId\n\"c\",2\na,1\nz,1\n");
        const NetworkDataset ds = load_network(edges, {}, "", labels);
        CHECK(ds.node_ids == std::vector<std::string>{"a", "b", "c", "z"});
        CHECK(ds.node_labels == std::vector<int>{0, -1, 1, 0});
        CHECK(ds.features.rows() == 4);
        CHECK(ds.features.cols() == 0);
        CHECK(has_note(ds.report, "1 ids in " + labels));
    }
    SECTION("gzip feature file") {
        write_gz(dir.file("f.csv.gz"), "id,v\na,1\nb,2\nc,3\n");
        const NetworkDataset ds = load_network(edges, {}, dir.file("f.csv.gz"));
        CHECK(ds.features.col(0) == Eigen::Vector3f(1, 2, 3));
    }
}

TEST_CASE("load_network: feature and label file errors", "[io][edgelist]") {
    TempDir dir;
    const std::string edges = dir.write("g.txt", "a b\nb c\n");
    SECTION("non-numeric, NaN, Inf feature values name file:line, column and value") {
        for (const std::string v : {"abc", "nan", "inf", ""}) {
            const std::string f = dir.write("f.csv", "id,x,y\na,1,2\nb,3," + v + "\nc,0,0\n");
            const std::string msg = error_of([&] { load_network(edges, {}, f); });
            INFO(msg);
            CHECK_THROWS_AS(load_network(edges, {}, f), ParseError);
            CHECK_THAT(msg, Contains("f.csv:3") && Contains("column 3") && Contains("'y'") && Contains("'" + v + "'"));
        }
    }
    SECTION("wrong column count") {
        const std::string f = dir.write("f.csv", "id,x,y\na,1,2\nb,3\n");
        CHECK_THROWS_AS(load_network(edges, {}, f), ParseError);
        CHECK_THROWS_WITH(load_network(edges, {}, f), Contains("f.csv:3") && Contains("expected 3 fields") && Contains("found 2"));
    }
    SECTION("repeated id") {
        const std::string f = dir.write("f.csv", "id,x\na,1\nb,2\na,3\nc,0\n");
        CHECK_THROWS_AS(load_network(edges, {}, f), ParseError);
        CHECK_THROWS_WITH(load_network(edges, {}, f), Contains("f.csv:4") && Contains("'a'") && Contains("line 2"));
        const std::string l = dir.write("l.txt", "a x\nb y\n\nb x\n");
        CHECK_THROWS_AS(load_network(edges, {}, "", l), ParseError);
        CHECK_THROWS_WITH(load_network(edges, {}, "", l), Contains("l.txt:4") && Contains("'b'"));
    }
    SECTION("nodes without a feature row") {
        const std::string f = dir.write("f.csv", "id,x\nb,2\n");
        CHECK_THROWS_AS(load_network(edges, {}, f), ParseError);
        CHECK_THROWS_WITH(load_network(edges, {}, f), Contains("f.csv") && Contains("2 of 3 nodes have no feature row") &&
                                                           Contains("'a', 'c'"));
        // a node that only the label file names has no features either
        const std::string full = dir.write("full.csv", "id,x\na,1\nb,2\nc,3\n");
        const std::string l = dir.write("l.txt", "a x\nnew y\n");
        CHECK_THROWS_WITH(load_network(edges, {}, full, l), Contains("1 of 4 nodes") && Contains("'new'"));
    }
    SECTION("bad label lines") {
        const std::string a = dir.write("a.txt", "a x\nb y z\n");
        CHECK_THROWS_WITH(load_network(edges, {}, "", a), Contains("a.txt:2") && Contains("found 3"));
        const std::string b = dir.write("b.csv", "id,label\na,x\nb,\n");
        CHECK_THROWS_WITH(load_network(edges, {}, "", b), Contains("b.csv:3") && Contains("empty label") && Contains("'b'"));
        const std::string c = dir.write("c.csv", "id,label,extra\na,x,1\n");
        CHECK_THROWS_WITH(load_network(edges, {}, "", c), Contains("c.csv:1") && Contains("2-column header"));
        CHECK_THROWS_AS(load_network(edges, {}, "", dir.file("missing.txt")), IoError);
    }
}

TEST_CASE("network_from_nodes: a NodeDataset seen as a network", "[io][edgelist]") {
    NodeDataset nd;
    nd.name = "tiny";
    nd.node_ids = {"p1", "p2", "p3"};
    nd.graph = build_graph(3, {{0, 1}, {2, 1}, {1, 1}}, {.undirected = true});
    nd.features = Matrix::Identity(3, 3);
    nd.labels = {1, 0, 1};
    nd.class_names = {"A", "B"};
    nd.report.notes.push_back("1 self-citations dropped");
    const NetworkDataset net = network_from_nodes(nd);
    CHECK(net.name == "tiny");
    CHECK_FALSE(net.directed);
    CHECK(net.node_ids == nd.node_ids);
    CHECK(*net.find("p3") == 2);
    // build_graph lays edges out by destination: (1,0), (0,1), (2,1), (1,2) → first appearance
    Edges sorted = net.edges;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == Edges{{0, 1}, {1, 2}});
    CHECK(net.features == nd.features);
    CHECK(net.node_labels == nd.labels);
    CHECK(net.node_class_names == nd.class_names);
    CHECK(net.report.notes == nd.report.notes);
    CHECK(net.graph().edge_list() == build_graph(3, {{0, 1}, {2, 1}}, {.undirected = true}).edge_list());
}

TEST_CASE("write_edge_list: round trips through load_network", "[io][edgelist]") {
    TempDir dir;
    SECTION("SNAP, string ids, directed") {
        const NetworkDataset a = load_network(dir.write("a.txt", kSnap), {.directed = true});
        write_edge_list(dir.file("out.txt"), a);
        const NetworkDataset b = load_network(dir.file("out.txt"), {.directed = true});
        CHECK(b.node_ids == a.node_ids);
        CHECK(b.edges == a.edges);
        CHECK(b.report.notes.empty());
    }
    SECTION("SNAP with weights, gzip") {
        const NetworkDataset a = load_network(dir.write("w.txt", "1 2 4\n2 3 0.1\n3 1 7\n"));
        write_edge_list(dir.file("out.txt.gz"), a);
        const NetworkDataset b = load_network(dir.file("out.txt.gz"));
        CHECK(b.node_ids == a.node_ids);
        CHECK(b.edges == a.edges);
        CHECK(b.edge_weights == a.edge_weights);
    }
    SECTION("CSV with labels, weights and ids that need quoting") {
        const NetworkDataset a = load_network(
            dir.write("in.csv", "src,dst,label,weight\n\"Smith, J\",\"say \"\"hi\"\"\",x,0.25\nb,\"Smith, J\",y,3\n"));
        write_edge_list(dir.file("out.csv"), a);
        const NetworkDataset b = load_network(dir.file("out.csv"));
        CHECK(b.node_ids == a.node_ids);
        CHECK(b.edges == a.edges);
        CHECK(b.edge_weights == a.edge_weights);
        CHECK(b.edge_labels == a.edge_labels);
        CHECK(b.edge_class_names == a.edge_class_names);
        // labels or awkward ids cannot go to a SNAP file
        CHECK_THROWS_AS(write_edge_list(dir.file("out.txt"), a), ConfigError);
        CHECK_THROWS_WITH(write_edge_list(dir.file("out.txt"), a), Contains("out.txt") && Contains(".csv"));
        NetworkDataset unlabelled = a;
        unlabelled.edge_labels.clear();
        CHECK_THROWS_WITH(write_edge_list(dir.file("out.txt"), unlabelled), Contains("'Smith, J'"));
        CHECK_FALSE(std::filesystem::exists(dir.file("out.txt")));
    }
    SECTION("the SNAP header comment, and features + labels files") {
        NodeDataset nd;
        nd.name = "nd";
        nd.node_ids = {"n0", "n1", "n2", "n3"};
        nd.graph = build_graph(4, {{0, 1}, {1, 2}, {3, 2}}, {.undirected = true});
        nd.features = Matrix::Random(4, 3);
        nd.labels = {0, 1, 1, 0};
        nd.class_names = {"c0", "c1"};
        const NetworkDataset a = network_from_nodes(nd);
        write_edge_list(dir.file("g.txt"), a);
        write_node_features(dir.file("g.features.csv"), a);
        write_node_labels(dir.file("g.labels.csv"), a);
        const std::string text = gatkit::test::read_text(dir.file("g.txt"));
        CHECK(text.rfind("# gatkit edge list: 4 nodes, 3 edges\n", 0) == 0);
        const NetworkDataset b = load_network(dir.file("g.txt"), {}, dir.file("g.features.csv"), dir.file("g.labels.csv"));
        CHECK(b.num_nodes() == 4);
        CHECK(b.graph().edge_list() == nd.graph.edge_list());  // ids appear in row order here
        for (NodeId i = 0; i < 4; ++i) {
            const NodeId j = *b.find(a.node_ids[i]);
            CHECK(b.features.row(j) == a.features.row(i));
            CHECK(b.node_class_names[b.node_labels[j]] == a.node_class_names[a.node_labels[i]]);
        }
    }
}

namespace {

const std::string kSocial = std::string(GATKIT_SHARED_DATA) + "/social";

bool have_social(const std::string& file) {
    if (std::filesystem::exists(kSocial + "/" + file)) return true;
    std::cout << "SKIPPED: " << kSocial << "/" << file << " not found; the SNAP loader was not checked on it\n";
    WARN("SKIPPED: " << kSocial << "/" << file << " not found");
    return false;
}

}  // namespace

TEST_CASE("load_network: SNAP facebook_combined and Email-Enron", "[shared-data][edgelist]") {
    if (have_social("facebook_combined.txt")) {
        const NetworkDataset fb = load_network(kSocial + "/facebook_combined.txt");
        CHECK(fb.name == "facebook_combined");
        CHECK(fb.num_nodes() == 4039);
        CHECK(fb.edges.size() == 88234);
        CHECK(fb.report.notes.empty());
        CHECK(fb.graph().num_edges() == 2 * 88234);
    }
    if (have_social("Email-Enron.txt")) {
        const NetworkDataset enron = load_network(kSocial + "/Email-Enron.txt");
        CHECK(enron.num_nodes() == 36692);
        CHECK(enron.edges.size() == 183831);
        CHECK(has_note(enron.report, "183831 duplicate edges merged"));
        CHECK(*enron.find("0") == 0);
        const NetworkDataset directed = load_network(kSocial + "/Email-Enron.txt", {.directed = true});
        CHECK(directed.edges.size() == 367662);
    }
    if (have_social("karate/zachary.txt")) {
        const NetworkDataset karate =
            load_network(kSocial + "/karate/zachary.txt", {}, "", kSocial + "/karate/karate_factions_readme.txt");
        CHECK(karate.num_nodes() == 34);
        CHECK(karate.edges.size() == 78);
        CHECK(karate.edge_weights.size() == 78);
        CHECK(std::count(karate.node_labels.begin(), karate.node_labels.end(), 0) == 16);
        CHECK(std::count(karate.node_labels.begin(), karate.node_labels.end(), 1) == 18);
    }
}
