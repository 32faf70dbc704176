// Splits of graph data sets: random / stratified / scaffold (chemprop's rules), stratified k-fold,
// split columns and --split-sizes parsing.
#include "gatkit/core/error.hpp"
#include "gatkit/train/split.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace gatkit;

namespace {

constexpr std::array<double, 3> k811 = {0.8, 0.1, 0.1};

// Every index 0..n-1 in exactly one part; parts sorted.
void check_partition(const IndexSplit& s, std::size_t n) {
    std::vector<int> seen(n, 0);
    for (const auto* part : {&s.train, &s.val, &s.test}) {
        CHECK(std::is_sorted(part->begin(), part->end()));
        for (const std::size_t i : *part) {
            REQUIRE(i < n);
            ++seen[i];
        }
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
}

std::vector<int> labels_with_counts(const std::vector<int>& counts, std::uint64_t seed) {
    std::vector<int> labels;
    for (std::size_t c = 0; c < counts.size(); ++c) labels.insert(labels.end(), static_cast<std::size_t>(counts[c]), static_cast<int>(c));
    Rng rng(seed);
    rng.shuffle(labels);
    return labels;
}

std::size_t count_label(const std::vector<std::size_t>& part, const std::vector<int>& labels, int label) {
    return static_cast<std::size_t>(std::count_if(part.begin(), part.end(), [&](std::size_t i) { return labels[i] == label; }));
}

}  // namespace

TEST_CASE("random_split: chemprop's sizes, complete, disjoint", "[train][split]") {
    Rng rng(1);
    const IndexSplit s = random_split(1000, k811, rng);
    CHECK(s.train.size() == 800);
    CHECK(s.val.size() == 100);
    CHECK(s.test.size() == 100);
    check_partition(s, 1000);
    // chemprop: train = int(0.8·7) = 5, val = int(0.9·7) − 5 = 1, test = 1
    const IndexSplit small = random_split(7, k811, rng);
    CHECK(small.train.size() == 5);
    CHECK(small.val.size() == 1);
    CHECK(small.test.size() == 1);
    // (0.8 + 0.1)·10 = 9.000000000000002 in double: int() gives 9
    const IndexSplit ten = random_split(10, k811, rng);
    CHECK(ten.train.size() == 8);
    CHECK(ten.val.size() == 1);
    CHECK(ten.test.size() == 1);
    const IndexSplit none = random_split(0, k811, rng);
    CHECK(none.train.empty());
    CHECK(none.test.empty());
}

TEST_CASE("random_split: deterministic for a seed, different for another", "[train][split]") {
    Rng a(5), b(5), c(6);
    const IndexSplit sa = random_split(500, k811, a), sb = random_split(500, k811, b), sc = random_split(500, k811, c);
    CHECK(sa.train == sb.train);
    CHECK(sa.val == sb.val);
    CHECK(sa.test == sb.test);
    CHECK(sa.test != sc.test);
}

TEST_CASE("split sizes must be fractions that sum to one", "[train][split]") {
    Rng rng(1);
    CHECK_THROWS_AS(random_split(10, {0.8, 0.1, 0.2}, rng), ConfigError);
    CHECK_THROWS_WITH(random_split(10, {0.8, 0.1, 0.2}, rng), Catch::Contains("expected 1"));
    CHECK_THROWS_WITH(random_split(10, {1.2, -0.1, -0.1}, rng), Catch::Contains("outside [0, 1]"));
    CHECK_THROWS_AS(stratified_split({0, 1}, {0.0, 0.5, 0.5}, rng), ConfigError);
    CHECK_THROWS_AS(scaffold_split({"a"}, {0.5, 0.5, 0.5}, rng), ConfigError);
    CHECK_NOTHROW(random_split(10, {0.8, 0.1, 0.1 + 5e-7}, rng));  // within 1e-6
    CHECK_NOTHROW(random_split(10, {1.0, 0.0, 0.0}, rng));
}

TEST_CASE("parse_split_sizes", "[train][split]") {
    CHECK(parse_split_sizes("0.8,0.1,0.1") == std::array<double, 3>{0.8, 0.1, 0.1});
    CHECK(parse_split_sizes(" 0.7 , 0.2,0.1 ") == std::array<double, 3>{0.7, 0.2, 0.1});
    CHECK_THROWS_WITH(parse_split_sizes("0.8,x,0.1"), Catch::Contains("'x' is not a number"));
    CHECK_THROWS_WITH(parse_split_sizes("0.8,,0.2"), Catch::Contains("'' is not a number"));
    CHECK_THROWS_WITH(parse_split_sizes("0.8,0.2"), Catch::Contains("2 values, expected 3"));
    CHECK_THROWS_WITH(parse_split_sizes("0.8,0.1,0.1,"), Catch::Contains("4 values, expected 3"));
    CHECK_THROWS_WITH(parse_split_sizes("0.8,0.1,0.2"), Catch::Contains("= 1.1"));
    CHECK_THROWS_WITH(parse_split_sizes("0.8,0.1,nan"), Catch::Contains("'nan' is not a number"));
    CHECK_THROWS_AS(parse_split_sizes(""), ConfigError);
}

TEST_CASE("stratified_split: each class in proportion", "[train][split]") {
    const auto labels = labels_with_counts({300, 700, 55}, 3);
    Rng rng(9);
    const IndexSplit s = stratified_split(labels, k811, rng);
    check_partition(s, labels.size());
    // per class, chemprop's rounding: 300 → 240/30/30, 700 → 560/70/70, 55 → 44/5/6
    const std::map<int, std::array<std::size_t, 3>> expected = {{0, {240, 30, 30}}, {1, {560, 70, 70}}, {2, {44, 5, 6}}};
    for (const auto& [label, counts] : expected) {
        INFO("class " << label);
        CHECK(count_label(s.train, labels, label) == counts[0]);
        CHECK(count_label(s.val, labels, label) == counts[1]);
        CHECK(count_label(s.test, labels, label) == counts[2]);
    }
    Rng again(9), other(10);
    CHECK(stratified_split(labels, k811, again).test == s.test);
    CHECK(stratified_split(labels, k811, other).test != s.test);
}

TEST_CASE("scaffold_split: a scaffold never straddles two parts", "[train][split]") {
    // 1000 molecules over scaffold sets of very different sizes (a few big, many singletons)
    std::vector<std::string> scaffolds;
    Rng gen(4);
    for (int i = 0; i < 1000; ++i) {
        const double u = gen.uniform();
        scaffolds.push_back(u < 0.3 ? "big" + std::to_string(gen.below(4)) : u < 0.35 ? "" : "s" + std::to_string(gen.below(400)));
    }
    Rng rng(2);
    const IndexSplit s = scaffold_split(scaffolds, k811, rng);
    check_partition(s, scaffolds.size());
    std::map<std::string, std::set<int>> parts_of;
    for (int p = 0; p < 3; ++p)
        for (const std::size_t i : p == 0 ? s.train : p == 1 ? s.val : s.test) parts_of[scaffolds[i]].insert(p);
    for (const auto& [scaffold, parts] : parts_of) {
        INFO("scaffold '" << scaffold << "'");
        CHECK(parts.size() == 1);
    }
    // greedy fill: train never exceeds its share, and the big sets (> 50 = val_size/2) are in train
    CHECK(s.train.size() <= 800);
    CHECK(s.val.size() <= 100);
    CHECK(s.train.size() >= 700);
    for (int b = 0; b < 4; ++b) CHECK(*parts_of["big" + std::to_string(b)].begin() == 0);
    Rng again(2), other(3);
    const IndexSplit s2 = scaffold_split(scaffolds, k811, again);
    CHECK(s2.train == s.train);
    CHECK(s2.val == s.val);
    CHECK(scaffold_split(scaffolds, k811, other).val != s.val);
}

TEST_CASE("scaffold_split: chemprop's greedy rule on a hand-made case", "[train][split]") {
    // n = 20: train_size 16, val_size 2, test_size 2 (not rounded); "big" means > 1.
    // Sets A (7), B (5), C (2) are big and come first in some order: 14 molecules, all fit train.
    // Then the six singletons in some order: two fill train to 16, two fill val, two go to test.
    std::vector<std::string> scaffolds;
    for (const auto& [name, size] : {std::pair{"A", 7}, std::pair{"B", 5}, std::pair{"C", 2}})
        scaffolds.insert(scaffolds.end(), static_cast<std::size_t>(size), name);
    for (const char* single : {"D", "E", "F", "G", "H", "I"}) scaffolds.emplace_back(single);
    std::set<std::vector<std::size_t>> different_vals;
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
        INFO("seed " << seed);
        Rng rng(seed);
        const IndexSplit s = scaffold_split(scaffolds, k811, rng);
        check_partition(s, scaffolds.size());
        REQUIRE(s.train.size() == 16);
        CHECK(s.val.size() == 2);
        CHECK(s.test.size() == 2);
        for (std::size_t i = 0; i < 14; ++i) CHECK(std::binary_search(s.train.begin(), s.train.end(), i));
        different_vals.insert(s.val);
    }
    CHECK(different_vals.size() > 1);  // the singletons' order comes from the Rng
}

TEST_CASE("stratified_kfold: test folds partition the data, val is the next fold", "[train][split]") {
    const auto labels = labels_with_counts({103, 47}, 11);
    Rng rng(8);
    const int k = 5;
    const auto folds = stratified_kfold(labels, k, rng);
    REQUIRE(folds.size() == 5);
    std::vector<int> in_test(labels.size(), 0);
    for (int f = 0; f < k; ++f) {
        INFO("fold " << f);
        check_partition(folds[f], labels.size());
        for (const std::size_t i : folds[f].test) ++in_test[i];
        CHECK(folds[f].val == folds[(f + 1) % k].test);
        CHECK(folds[f].test.size() == 30);
        // each class spread evenly: 103/5 and 47/5 per fold, up to one
        CHECK(count_label(folds[f].test, labels, 0) >= 20);
        CHECK(count_label(folds[f].test, labels, 0) <= 21);
        CHECK(count_label(folds[f].test, labels, 1) >= 9);
        CHECK(count_label(folds[f].test, labels, 1) <= 10);
    }
    CHECK(std::all_of(in_test.begin(), in_test.end(), [](int c) { return c == 1; }));
    Rng again(8);
    CHECK(stratified_kfold(labels, k, again)[2].test == folds[2].test);
    CHECK_THROWS_AS(stratified_kfold(labels, 2, rng), ConfigError);
    CHECK_THROWS_WITH(stratified_kfold({0, 1, 0}, 4, rng), Catch::Contains("k = 4 for 3 items"));
}

TEST_CASE("split_from_column", "[train][split]") {
    const IndexSplit s = split_from_column({"train", "test", "val", "train", "test"});
    CHECK(s.train == std::vector<std::size_t>{0, 3});
    CHECK(s.val == std::vector<std::size_t>{2});
    CHECK(s.test == std::vector<std::size_t>{1, 4});
    CHECK_THROWS_AS(split_from_column({"train", "val", "Train"}), ParseError);
    CHECK_THROWS_WITH(split_from_column({"train", "val", "Train"}), Catch::Contains("row 2: 'Train'"));
}
