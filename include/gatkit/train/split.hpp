// Train / validation / test splits of the nodes of one graph.
#pragma once

#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace gatkit {

struct NodeSplit {
    std::vector<NodeId> train, val, test;  // each sorted ascending
};

struct PlanetoidOptions {
    int per_class = 20;
    int num_val = 500;
    int num_test = 1000;
};

// Planetoid-style random split (the rule of PyG's Planetoid(split="random"), with gatkit's Rng):
//  1. for each class c = 0, 1, …: shuffle that class's nodes (in index order) with the Rng and
//     take the first per_class (all of them if the class is smaller);
//  2. shuffle the remaining nodes (in index order) with the Rng;
//     the first num_val are validation, the next num_test are test, the rest are unused.
// Throws ConfigError when fewer than one validation and one test node remain.
NodeSplit planetoid_split(const std::vector<int>& labels, int num_classes, Rng& rng, const PlanetoidOptions& options = {});

// Reads a split file: CSV with header `node_id,split`, split one of train|val|test. Ids are the
// data set's node ids. Nodes not listed are unused (the files written by the PyTorch reference
// list only the 1,640 split nodes of Cora). Errors (ParseError naming file:line and the value):
// an id not in the data, an id listed twice, another split value, an empty train, val or test set
// (allow_empty_parts: only a file with no node at all; evaluation reads any parts it lists).
NodeSplit read_split_file(const std::string& path, const std::vector<std::string>& node_ids, bool allow_empty_parts = false);

// ---- Splits of a data set of many graphs (molecules) ---------------------------------------------
//
// `sizes` are the train / val / test fractions; each must lie in [0, 1], train > 0, and they must
// sum to 1 within 1e-6, else ConfigError. Every index 0..n-1 lands in exactly one part; each part
// is sorted ascending. The Rng is the only source of randomness: same seed, same split.

struct IndexSplit {
    std::vector<std::size_t> train, val, test;  // each sorted ascending
};

// Parses "0.8,0.1,0.1" (the --split-sizes flag): three comma-separated numbers, checked as above.
// ConfigError naming the offending value.
std::array<double, 3> parse_split_sizes(const std::string& text);

// chemprop's "random" split: shuffle 0..n-1, then train = the first floor(sizes[0]·n),
// val = the next floor((sizes[0]+sizes[1])·n) − |train|, test = the rest (the same rounding as
// chemprop, in double precision).
IndexSplit random_split(std::size_t n, const std::array<double, 3>& sizes, Rng& rng);

// Stratified random split: the rule of random_split applied to each class separately (classes in
// ascending label order, each class's indices shuffled in index order), so every part holds each
// class in proportion up to rounding.
IndexSplit stratified_split(const std::vector<int>& labels, const std::array<double, 3>& sizes, Rng& rng);

// chemprop's "scaffold_balanced" split (chemprop.data.scaffold_split with balanced=True).
// Indices with equal scaffold strings form one set (sets in order of first appearance; every
// acyclic molecule has scaffold "" and they form one set). With train/val/test sizes
// t = sizes[0]·n, v = sizes[1]·n, s = sizes[2]·n (not rounded):
//  1. a set larger than v/2 or s/2 is "big"; the big sets and the small sets are each shuffled
//     with the Rng, big sets first;
//  2. each set in that order goes whole to train if |train| + |set| <= t, else to val if
//     |val| + |set| <= v, else to test.
// So a scaffold never straddles two parts; the part sizes are close to, not exactly, `sizes`.
IndexSplit scaffold_split(const std::vector<std::string>& scaffolds, const std::array<double, 3>& sizes, Rng& rng);

// Stratified k-fold: each class's indices (classes in ascending label order) are shuffled and
// dealt round-robin to folds 0..k-1, the deal continuing from one class to the next, so folds
// differ in size by at most one and hold each class in proportion. Split f has test = fold f,
// val = fold (f+1) mod k (so early stopping never sees the test fold), train = the other k−2
// folds. The k test sets partition 0..n-1. ConfigError unless 3 <= k <= n.
std::vector<IndexSplit> stratified_kfold(const std::vector<int>& labels, int k, Rng& rng);

// A split given by a column of the data file: values[i] is "train", "val" or "test" (case-
// sensitive) for data row i. ParseError naming the 0-based row index and the value otherwise.
// Parts may come out empty; the caller decides whether that is acceptable.
IndexSplit split_from_column(const std::vector<std::string>& values);

}  // namespace gatkit
