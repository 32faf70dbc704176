// Planetoid random splits and split files.
#include "gatkit/core/error.hpp"
#include "gatkit/train/split.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace gatkit;
using gatkit::test::TempDir;

namespace {

std::vector<int> synthetic_labels(int n, int classes, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<int> labels(static_cast<std::size_t>(n));
    for (auto& l : labels) l = static_cast<int>(rng.below(static_cast<std::uint64_t>(classes)));
    return labels;
}

void check_disjoint_sorted(const NodeSplit& s, NodeId n) {
    std::set<NodeId> all;
    for (const auto* part : {&s.train, &s.val, &s.test}) {
        CHECK(std::is_sorted(part->begin(), part->end()));
        for (NodeId i : *part) {
            REQUIRE(i >= 0);
            REQUIRE(i < n);
            all.insert(i);
        }
    }
    CHECK(all.size() == s.train.size() + s.val.size() + s.test.size());  // no node in two sets, none twice
}

std::vector<std::string> ids(int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back("n" + std::to_string(i));
    return out;
}

}  // namespace

TEST_CASE("planetoid_split: sizes, per-class counts, disjoint, sorted", "[train][split]") {
    const int N = 3000, K = 7;
    const auto labels = synthetic_labels(N, K, 1);
    Rng rng(42);
    const NodeSplit s = planetoid_split(labels, K, rng);
    CHECK(s.train.size() == 20u * K);
    CHECK(s.val.size() == 500);
    CHECK(s.test.size() == 1000);
    check_disjoint_sorted(s, N);
    std::vector<int> per_class(K, 0);
    for (NodeId i : s.train) ++per_class[labels[i]];
    for (int c = 0; c < K; ++c) CHECK(per_class[c] == 20);
}

TEST_CASE("planetoid_split: deterministic for a seed, different for another", "[train][split]") {
    const auto labels = synthetic_labels(3000, 7, 2);
    Rng a(5), b(5), c(6);
    const NodeSplit sa = planetoid_split(labels, 7, a), sb = planetoid_split(labels, 7, b), sc = planetoid_split(labels, 7, c);
    CHECK(sa.train == sb.train);
    CHECK(sa.val == sb.val);
    CHECK(sa.test == sb.test);
    CHECK(sa.train != sc.train);
    CHECK(sa.val != sc.val);
    CHECK(sa.test != sc.test);
}

TEST_CASE("planetoid_split: a class smaller than per_class contributes all its nodes", "[train][split]") {
    auto labels = synthetic_labels(2000, 3, 3);
    // class 3 has exactly 7 members
    for (NodeId i : {5, 100, 101, 700, 1500, 1998, 1999}) labels[i] = 3;
    Rng rng(1);
    const NodeSplit s = planetoid_split(labels, 4, rng, {.per_class = 20, .num_val = 300, .num_test = 600});
    CHECK(s.train.size() == 3 * 20 + 7);
    for (NodeId i : {5, 100, 101, 700, 1500, 1998, 1999})
        CHECK(std::binary_search(s.train.begin(), s.train.end(), i));
    CHECK(s.val.size() == 300);
    CHECK(s.test.size() == 600);
    check_disjoint_sorted(s, 2000);
}

TEST_CASE("planetoid_split: too few nodes", "[train][split]") {
    const auto labels = synthetic_labels(200, 2, 4);
    Rng rng(1);
    // 40 train leave 160: all of them go to validation, none to test
    CHECK_THROWS_AS(planetoid_split(labels, 2, rng), ConfigError);
    CHECK_THROWS_WITH(planetoid_split(labels, 2, rng), Catch::Contains("200 nodes") && Catch::Contains("160"));
    // every node is a training node
    CHECK_THROWS_AS(planetoid_split(synthetic_labels(30, 2, 5), 2, rng), ConfigError);

    // with smaller val/test sizes the same labels split, test taking what remains
    const NodeSplit s = planetoid_split(labels, 2, rng, {.per_class = 20, .num_val = 100, .num_test = 1000});
    CHECK(s.train.size() == 40);
    CHECK(s.val.size() == 100);
    CHECK(s.test.size() == 60);
    check_disjoint_sorted(s, 200);
}

TEST_CASE("read_split_file: valid file", "[train][split]") {
    TempDir dir;
    const auto node_ids = ids(10);
    const std::string path = dir.write("split.csv",
                                       "node_id,split\r\n"
                                       "n7,train\r\n"
                                       "n2,train\r\n"
                                       "\r\n"
                                       "n3,val\r\n"
                                       "\"n9\",test\r\n"
                                       "n0,test\r\n");
    const NodeSplit s = read_split_file(path, node_ids);
    CHECK(s.train == std::vector<NodeId>{2, 7});
    CHECK(s.val == std::vector<NodeId>{3});
    CHECK(s.test == std::vector<NodeId>{0, 9});

    // columns in another order, with an extra column
    const std::string other = dir.write("other.csv", "weight,split,node_id\n1,val,n1\n1,test,n4\n1,train,n5\n");
    const NodeSplit t = read_split_file(other, node_ids);
    CHECK(t.train == std::vector<NodeId>{5});
    CHECK(t.val == std::vector<NodeId>{1});
    CHECK(t.test == std::vector<NodeId>{4});
}

TEST_CASE("read_split_file: errors name file, line and value", "[train][split]") {
    TempDir dir;
    const auto node_ids = ids(10);
    const auto fails_with = [&](const std::string& text, const std::string& a, const std::string& b) {
        const std::string path = dir.write("s.csv", text);
        CHECK_THROWS_AS(read_split_file(path, node_ids), ParseError);
        CHECK_THROWS_WITH(read_split_file(path, node_ids), Catch::Contains(a) && Catch::Contains(b));
    };
    SECTION("unknown id") { fails_with("node_id,split\nn1,train\nn42,val\nn2,test\n", "s.csv:3", "'n42'"); }
    SECTION("id listed twice") {
        fails_with("node_id,split\nn1,train\nn2,val\nn1,test\n", "s.csv:4", "'n1'");
        CHECK_THROWS_WITH(read_split_file(dir.file("s.csv"), node_ids), Catch::Contains("first on line 2"));
    }
    SECTION("bad split value") { fails_with("node_id,split\nn1,training\nn2,val\nn3,test\n", "s.csv:2", "'training'"); }
    SECTION("empty test set") { fails_with("node_id,split\nn1,train\nn2,val\n", "s.csv", "test set is empty"); }
    SECTION("wrong number of fields") { fails_with("node_id,split\nn1,train,x\n", "s.csv:2", "found 3"); }
    SECTION("missing column") {
        const std::string path = dir.write("s.csv", "id,split\nn1,train\n");
        CHECK_THROWS_AS(read_split_file(path, node_ids), ConfigError);
        CHECK_THROWS_WITH(read_split_file(path, node_ids), Catch::Contains("'node_id'") && Catch::Contains("columns: id, split"));
    }
    SECTION("empty file") {
        const std::string path = dir.write("s.csv", "");
        CHECK_THROWS_AS(read_split_file(path, node_ids), ParseError);
    }
}
