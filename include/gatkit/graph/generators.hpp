// Synthetic graphs for demos, tests and scale runs.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <cstdint>

namespace gatkit {

// A citation-like graph from a planted-partition (stochastic block) model with class-dependent
// bag-of-words features:
//  * each node gets a class uniformly at random;
//  * nodes × avg_degree / 2 undirected edges: a uniform random endpoint u, then with
//    probability `homophily` a v of u's class, else a v of another class;
//  * each node draws `words_per_node` words from a vocabulary of `features` words: with
//    probability `feature_signal` from its class's topic (features / classes words), else
//    uniformly from the whole vocabulary. Features are the 0/1 word indicators.
// Node ids are "n0", "n1", …, class names "class0", "class1", ….
struct PlantedPartitionOptions {
    int nodes = 2000;
    int classes = 5;
    double avg_degree = 6.0;
    double homophily = 0.75;
    int features = 200;
    int words_per_node = 12;
    double feature_signal = 0.3;
    std::uint64_t seed = 0;
};

NodeDataset generate_planted_partition(const PlantedPartitionOptions& options);

}  // namespace gatkit
