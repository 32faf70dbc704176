// `gatkit generate` for every --kind: the real binary writes LINQS files or edge lists that the
// library reads back, and bad values are one-line user errors with exit code 1.
#include "gatkit/io/edgelist.hpp"
#include "gatkit/io/linqs.hpp"
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using gatkit::test::CliResult;
using gatkit::test::TempDir;
using gatkit::test::lines_of;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::shell_quote;
using Catch::Contains;

namespace {

// exit 1 and one "gatkit: error: ..." line (plus an optional "hint: ..." line) containing `part`.
void require_user_error(const CliResult& r, const std::string& part) {
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 1);
    const auto lines = lines_of(r.err);
    REQUIRE(!lines.empty());
    CHECK(lines.size() <= 2);
    CHECK(lines[0].rfind("gatkit: error: ", 0) == 0);
    CHECK_THAT(lines[0], Contains(part));
}

}  // namespace

TEST_CASE("generate: every kind writes a file gatkit reads back", "[cli][generators]") {
    TempDir dir;
    SECTION("planted (default) keeps the LINQS output") {
        const CliResult r = run_gatkit("generate --out " + shell_quote(dir.file("p")) + " --nodes 60 --classes 3 --features 12 --seed 1");
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const gatkit::NodeDataset ds = gatkit::load_linqs(dir.file("p"));
        CHECK(ds.num_nodes() == 60);
        CHECK(ds.num_classes() == 3);
    }
    SECTION("planted as an edge list with features and labels") {
        const CliResult r = run_gatkit("generate --edge-list --out " + shell_quote(dir.file("p.txt")) + " --features-out " +
                                       shell_quote(dir.file("p.features.csv")) + " --labels-out " +
                                       shell_quote(dir.file("p.labels.csv")) + " --nodes 80 --classes 4 --features 10 --seed 2");
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const gatkit::NetworkDataset net =
            gatkit::load_network(dir.file("p.txt"), {}, dir.file("p.features.csv"), dir.file("p.labels.csv"));
        CHECK(net.num_nodes() == 80);
        CHECK(net.features.cols() == 10);
        CHECK(net.node_class_names.size() == 4);
    }
    for (const std::string kind : {"erdos-renyi", "power-law", "small-world"}) {
        DYNAMIC_SECTION(kind) {
            const std::string out = dir.file(kind + ".txt");
            const CliResult r = run_gatkit("generate --kind " + kind + " --out " + shell_quote(out) + " --nodes 200 --seed 3");
            INFO("stderr: " << r.err);
            REQUIRE(r.exit_code == 0);
            CHECK_THAT(r.err, Contains("wrote " + out));
            const std::string text = read_text(out);
            CHECK(text.rfind("# gatkit edge list: 200 nodes, ", 0) == 0);
            const gatkit::NetworkDataset net = gatkit::load_network(out);
            CHECK(net.num_nodes() > 100);
            CHECK(net.num_nodes() <= 200);
            CHECK(net.edges.size() > 100);
            CHECK(net.report.notes.empty());  // no self-loops, no duplicates
            // the same seed writes the same file
            const std::string again = dir.file(kind + "-again.txt");
            REQUIRE(run_gatkit("generate --kind " + kind + " --out " + shell_quote(again) + " --nodes 200 --seed 3").exit_code == 0);
            CHECK(read_text(again) == text);
        }
    }
    SECTION("CSV and gzip by the file name") {
        const std::string out = dir.file("sw.csv.gz");
        REQUIRE(run_gatkit("generate --kind small-world --k 4 --rewire 0 --out " + shell_quote(out) + " --nodes 50").exit_code == 0);
        const gatkit::NetworkDataset net = gatkit::load_network(out);
        CHECK(net.num_nodes() == 50);
        CHECK(net.edges.size() == 100);
    }
}

TEST_CASE("generate: bad values are user errors", "[cli][generators]") {
    TempDir dir;
    const std::string out = " --out " + shell_quote(dir.file("g.txt"));
    require_user_error(run_gatkit("generate --kind erdos-renyi --nodes 1" + out), "nodes >= 2");
    require_user_error(run_gatkit("generate --kind erdos-renyi --avg-degree 0" + out), "avg_degree = 0");
    require_user_error(run_gatkit("generate --kind power-law --alpha -2" + out), "alpha = -2");
    require_user_error(run_gatkit("generate --kind small-world --rewire 1.5" + out), "rewire = 1.5");
    require_user_error(run_gatkit("generate --kind small-world --k 5" + out), "k = 5");
    require_user_error(run_gatkit("generate --nodes 1 --out " + shell_quote(dir.file("p"))), "nodes = 1");
    require_user_error(run_gatkit("generate --kind erdos-renyi --alpha 2" + out), "--alpha does not apply to --kind erdos-renyi");
    require_user_error(run_gatkit("generate --kind power-law --out " + shell_quote(dir.file("missing/g.txt"))), "does not exist");
    CHECK_FALSE(fs::exists(dir.file("g.txt")));
    CHECK(run_gatkit("generate --kind star" + out).exit_code == 2);  // not a kind: a usage error
}
