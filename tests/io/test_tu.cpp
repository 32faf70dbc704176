// TU Dortmund data sets: per-graph CSR with edge labels following the edge-id permutation,
// graph label remapping, and errors that name file, line and value.
#include "gatkit/core/error.hpp"
#include "gatkit/io/tu.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

using namespace gatkit;
using gatkit::test::TempDir;

namespace {

// Two graphs: graph 1 = nodes 1,2,3 (path 1–2–3), graph 2 = nodes 4,5 (edge 4–5). A.txt lists
// the edges out of (dst, src) order; edge label k marks line k so the permutation can be checked.
struct ToyFiles {
    std::string a = "2, 1\n1, 2\n3, 2\n2, 3\n5, 4\n4, 5\n";
    std::string graph_indicator = "1\n1\n1\n2\n2\n";
    std::string graph_labels = "1\n-1\n";
    std::string node_labels = "0\n2\n1\n0\n0\n";
    std::string node_attributes = "0.5, 1\n1.5, 2\n2.5, 3\n3.5, 4\n4.5, 5\n";
    std::string edge_labels = "0\n1\n2\n3\n4\n5\n";
};

std::string write_toy(const TempDir& dir, const ToyFiles& f, bool with_optional = true) {
    std::filesystem::create_directories(dir.path() / "TOY");
    dir.write("TOY/TOY_A.txt", f.a);
    dir.write("TOY/TOY_graph_indicator.txt", f.graph_indicator);
    dir.write("TOY/TOY_graph_labels.txt", f.graph_labels);
    if (with_optional) {
        dir.write("TOY/TOY_node_labels.txt", f.node_labels);
        dir.write("TOY/TOY_node_attributes.txt", f.node_attributes);
        dir.write("TOY/TOY_edge_labels.txt", f.edge_labels);
    }
    return dir.file("TOY");
}

std::string error_of(const std::string& path) {
    try {
        load_tu(path);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no exception)";
}

}  // namespace

TEST_CASE("tu: two graphs with node labels, attributes and edge labels", "[io][tu]") {
    TempDir dir;
    const ToyFiles files;
    const std::string folder = write_toy(dir, files);
    const GraphDataset ds = load_tu(folder);
    CHECK(ds.name == "TOY");
    REQUIRE(ds.size() == 2);
    CHECK(ds.class_names == std::vector<std::string>{"-1", "1"});
    CHECK(ds.target_names == std::vector<std::string>{"label"});
    REQUIRE(ds.targets.rows() == 2);
    REQUIRE(ds.targets.cols() == 1);
    CHECK(ds.targets(0, 0) == 1.0f);  // label 1 → class 1
    CHECK(ds.targets(1, 0) == 0.0f);  // label -1 → class 0
    CHECK(ds.source_rows == std::vector<std::size_t>{1, 2});

    const GraphSample& g1 = ds.graphs[0];
    REQUIRE(g1.graph.num_nodes() == 3);
    REQUIRE(g1.graph.num_edges() == 4);
    // x = one-hot node label (width 3), the two attributes, then the degree one-hot over 0..10
    REQUIRE(g1.x.cols() == 5 + kTuMaxDegree + 1);
    Matrix expected(3, 5);
    expected << 1, 0, 0, 0.5f, 1,  //
        0, 0, 1, 1.5f, 2,          //
        0, 1, 0, 2.5f, 3;
    CHECK(g1.x.leftCols(5) == expected);
    CHECK(ds.continuous_node_columns == std::vector<int>{3, 4});  // the attributes, standardised by graph models
    Matrix degree = Matrix::Zero(3, kTuMaxDegree + 1);
    degree(0, 1) = degree(1, 2) = degree(2, 1) = 1;  // the path 0 - 1 - 2
    CHECK(g1.x.rightCols(kTuMaxDegree + 1) == degree);
    CHECK(ds.graphs[1].x.row(1).head(5) == (Eigen::RowVectorXf(5) << 1, 0, 0, 4.5f, 5).finished());

    // edges sorted by (dst, src); edge label k was given to line k of A.txt
    const std::map<std::pair<int, int>, int> line_of = {{{2, 1}, 0}, {{1, 2}, 1}, {{3, 2}, 2}, {{2, 3}, 3}, {{5, 4}, 4}, {{4, 5}, 5}};
    CHECK(g1.graph.edge_list() == std::vector<std::pair<NodeId, NodeId>>{{1, 0}, {0, 1}, {2, 1}, {1, 2}});
    int offset = 0;
    for (const GraphSample& g : ds.graphs) {
        REQUIRE(g.edge_attr.cols() == 6);
        REQUIRE(g.edge_attr.rows() == g.graph.num_edges());
        const auto edges = g.graph.edge_list();
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const int line = line_of.at({edges[e].first + 1 + offset, edges[e].second + 1 + offset});
            Eigen::Index hot = -1;
            g.edge_attr.row(static_cast<Eigen::Index>(e)).maxCoeff(&hot);
            CHECK(hot == line);
            CHECK(g.edge_attr.row(static_cast<Eigen::Index>(e)).sum() == 1.0f);
        }
        offset += g.graph.num_nodes();
    }

    // the prefix form reads the same files
    const GraphDataset by_prefix = load_tu(folder + "/TOY");
    CHECK(by_prefix.size() == 2);
    CHECK(by_prefix.graphs[1].edge_attr == ds.graphs[1].edge_attr);
    CHECK(load_tu(folder + "/").name == "TOY");
}

TEST_CASE("tu: without node labels or attributes every node gets a constant 1", "[io][tu]") {
    TempDir dir;
    ToyFiles files;
    files.graph_labels = "2\n1\n";
    const GraphDataset ds = load_tu(write_toy(dir, files, false));
    CHECK(ds.class_names == std::vector<std::string>{"1", "2"});
    CHECK(ds.targets(0, 0) == 1.0f);
    CHECK(ds.targets(1, 0) == 0.0f);
    REQUIRE(ds.graphs[0].x.cols() == 1 + kTuMaxDegree + 1);  // the constant, then the degree
    CHECK(ds.graphs[0].x.col(0) == Matrix::Ones(3, 1));
    CHECK(ds.continuous_node_columns.empty());
    CHECK(ds.graphs[0].x.rightCols(kTuMaxDegree + 1).rowwise().sum() == Matrix::Ones(3, 1));
    CHECK(ds.graphs[0].edge_attr.rows() == 4);
    CHECK(ds.graphs[0].edge_attr.cols() == 0);
}

TEST_CASE("tu: errors name the file, the line and the value", "[io][tu]") {
    TempDir dir;
    ToyFiles files;
    SECTION("non-numeric node id") {
        files.a = "2, 1\n1, x\n";
        const std::string folder = write_toy(dir, files, false);
        CHECK_THROWS_AS(load_tu(folder), ParseError);
        CHECK_THAT(error_of(folder), Catch::Contains("TOY_A.txt:2") && Catch::Contains("'x'"));
    }
    SECTION("node id out of range") {
        files.a = "2, 1\n1, 9\n";
        const std::string folder = write_toy(dir, files, false);
        CHECK_THAT(error_of(folder), Catch::Contains("TOY_A.txt:2") && Catch::Contains("'9'") && Catch::Contains("1..5"));
    }
    SECTION("edge across two graphs") {
        files.a = "2, 1\n3, 4\n";
        const std::string folder = write_toy(dir, files, false);
        CHECK_THAT(error_of(folder), Catch::Contains("TOY_A.txt:2") && Catch::Contains("graph 1 and graph 2"));
    }
    SECTION("node_labels and graph_indicator disagree on the node count") {
        files.node_labels = "0\n1\n";
        const std::string folder = write_toy(dir, files);
        CHECK_THAT(error_of(folder), Catch::Contains("TOY_node_labels.txt: has 2 lines, expected 5"));
    }
    SECTION("edge_labels and A disagree on the edge count") {
        files.edge_labels = "0\n1\n2\n";
        CHECK_THAT(error_of(write_toy(dir, files)), Catch::Contains("TOY_edge_labels.txt: has 3 lines, expected 6"));
    }
    SECTION("graph_labels and graph_indicator disagree on the graph count") {
        files.graph_labels = "1\n-1\n1\n";
        CHECK_THAT(error_of(write_toy(dir, files, false)), Catch::Contains("TOY_graph_labels.txt: has 3 lines") &&
                                                                  Catch::Contains("names only 2 graphs"));
    }
    SECTION("non-numeric labels") {
        files.graph_labels = "1\nactive\n";
        CHECK_THAT(error_of(write_toy(dir, files, false)), Catch::Contains("TOY_graph_labels.txt:2: graph label 'active' is not a number"));
    }
    SECTION("non-numeric graph id and node label") {
        files.graph_indicator = "1\n1\none\n2\n2\n";
        CHECK_THAT(error_of(write_toy(dir, files, false)), Catch::Contains("TOY_graph_indicator.txt:3") && Catch::Contains("'one'"));
    }
    SECTION("bad node label") {
        files.node_labels = "0\n1\n-1\n0\n0\n";
        CHECK_THAT(error_of(write_toy(dir, files)), Catch::Contains("TOY_node_labels.txt:3") && Catch::Contains("'-1'"));
    }
    SECTION("missing required file or folder") {
        const std::string folder = write_toy(dir, files, false);
        std::filesystem::remove(dir.path() / "TOY/TOY_graph_labels.txt");
        CHECK_THROWS_AS(load_tu(folder), IoError);
        CHECK_THAT(error_of(folder), Catch::Contains("TOY_graph_labels.txt"));
        CHECK_THROWS_AS(load_tu(dir.file("NOPE")), IoError);
    }
}

TEST_CASE("tu: integers beyond 64 bits, huge labels, repeated edges and empty files", "[io][tu][edge-cases]") {
    TempDir dir;
    ToyFiles files;
    SECTION("a node id or graph id beyond 64 bits is a clear error, not 'not an integer'") {
        files.a = "2, 1\n1, 99999999999999999999999\n";
        CHECK_THAT(error_of(write_toy(dir, files, false)), Catch::Contains("TOY_A.txt:2") && Catch::Contains("'99999999999999999999999'") &&
                                                                  Catch::Contains("out of range") && Catch::Contains("9223372036854775807"));
        files = ToyFiles{};
        files.graph_indicator = "1\n1\n1\n2\n18446744073709551617\n";
        CHECK_THAT(error_of(write_toy(dir, files, false)), Catch::Contains("TOY_graph_indicator.txt:5") && Catch::Contains("out of range"));
    }
    SECTION("a node or edge label above 9999 (a one-hot column each) is refused, not allocated") {
        files.node_labels = "0\n1\n123456789012\n0\n0\n";
        CHECK_THAT(error_of(write_toy(dir, files)), Catch::Contains("TOY_node_labels.txt:3") && Catch::Contains("'123456789012'") &&
                                                       Catch::Contains("larger than 9999"));
        files = ToyFiles{};
        files.edge_labels = "0\n1\n2\n10000\n4\n5\n";
        CHECK_THAT(error_of(write_toy(dir, files)), Catch::Contains("TOY_edge_labels.txt:4") && Catch::Contains("larger than 9999"));
        files = ToyFiles{};
        files.node_labels = "0\n1\n9999\n0\n0\n";
        CHECK(load_tu(write_toy(dir, files)).graphs[0].x.cols() == 10000 + 2 + kTuMaxDegree + 1);  // 9999 itself is fine
    }
    SECTION("a repeated line in A.txt stays a parallel edge, with a note; self-loops are dropped with a note") {
        files.a = "2, 1\n1, 2\n1, 2\n3, 2\n2, 3\n5, 4\n4, 5\n3, 3\n";
        files.edge_labels = "0\n1\n2\n3\n4\n5\n6\n7\n";
        const GraphDataset ds = load_tu(write_toy(dir, files));
        CHECK(ds.graphs[0].graph.num_edges() == 5);
        CHECK(ds.graphs[0].edge_attr.rows() == 5);
        const auto& notes = ds.report.notes;
        CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("1 repeated edges") != std::string::npos; }));
        CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("1 self-loops") != std::string::npos; }));
    }
    SECTION("graphs without edges (an empty A.txt) load: every node is isolated") {
        files.a = "";
        const GraphDataset ds = load_tu(write_toy(dir, files, false));
        REQUIRE(ds.size() == 2);
        CHECK(ds.graphs[0].graph.num_edges() == 0);
        CHECK(ds.graphs[0].graph.num_nodes() == 3);
    }
    SECTION("an empty graph_indicator or graph_labels file is an error naming it") {
        files.graph_indicator = "";
        CHECK_THAT(error_of(write_toy(dir, files, false)), Catch::Contains("TOY_graph_indicator.txt: file is empty"));
        files = ToyFiles{};
        files.graph_labels = "";
        CHECK_THAT(error_of(write_toy(dir, files, false)), Catch::Contains("TOY_graph_labels.txt has 0 lines"));
    }
}

// ---- the real TU files in ../shared/data (skipped when absent) --------------------------

namespace {

bool have(const std::string& path) {
    if (std::filesystem::exists(path)) return true;
    std::cout << "SKIPPED: " << path << " not found\n";
    WARN("SKIPPED: " << path << " not found");
    return false;
}

struct Totals {
    long nodes = 0, edges = 0;
};

Totals totals(const GraphDataset& ds) {
    Totals t;
    for (const auto& g : ds.graphs) {
        t.nodes += g.graph.num_nodes();
        t.edges += g.graph.num_edges();
    }
    return t;
}

}  // namespace

TEST_CASE("tu: MUTAG", "[io][tu][shared-data]") {
    const std::string path = std::string(GATKIT_SHARED_DATA) + "/tu/MUTAG";
    if (!have(path)) return;
    const GraphDataset ds = load_tu(path);
    CHECK(ds.name == "MUTAG");
    CHECK(ds.size() == 188);
    const Totals t = totals(ds);
    CHECK(t.nodes == 3371);
    CHECK(t.edges == 7442);
    CHECK(ds.class_names == std::vector<std::string>{"-1", "1"});
    CHECK((ds.targets.array() == 1.0f).count() == 125);
    CHECK((ds.targets.array() == 0.0f).count() == 63);
    CHECK(ds.graphs[0].x.cols() == 7 + 11);     // C, N, O, F, I, Cl, Br; degree 0..10
    for (const auto& g : ds.graphs)  // MUTAG's hydrogen-free atoms have 1 to 4 neighbours
        for (NodeId i = 0; i < g.graph.num_nodes(); ++i) CHECK(g.x(i, 7 + g.graph.in_degree(i)) == 1.0f);
    CHECK(ds.graphs[0].edge_attr.cols() == 4);  // aromatic, single, double, triple
    for (const auto& g : ds.graphs)
        for (const auto& [u, v] : g.graph.edge_list()) CHECK(g.graph.has_edge(v, u));
}

TEST_CASE("tu: PROTEINS", "[io][tu][shared-data]") {
    const std::string path = std::string(GATKIT_SHARED_DATA) + "/tu/PROTEINS";
    if (!have(path)) return;
    const GraphDataset ds = load_tu(path);
    CHECK(ds.size() == 1113);
    const Totals t = totals(ds);
    CHECK(t.nodes == 43471);
    CHECK(t.edges == 162088);
    CHECK(ds.class_names == std::vector<std::string>{"1", "2"});
    CHECK((ds.targets.array() == 0.0f).count() == 663);
    CHECK(ds.graphs[0].x.cols() == 4 + 11);  // 3 node labels + 1 attribute + degree 0..10
    CHECK(ds.continuous_node_columns == std::vector<int>{3});
    CHECK(ds.graphs[0].edge_attr.cols() == 0);
}
