// Train / validation / test splits of the nodes of one graph.
#pragma once

#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"

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
// an id not in the data, an id listed twice, another split value, an empty train, val or test set.
NodeSplit read_split_file(const std::string& path, const std::vector<std::string>& node_ids);

}  // namespace gatkit
