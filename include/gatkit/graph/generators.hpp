// Synthetic graphs for demos, tests and scale runs.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <cstdint>
#include <utility>
#include <vector>

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

// Random graphs from Boost.Graph's generators, as edge lists. Each returns unique undirected
// edges (u < v), sorted, without self-loops; the same arguments give the same edges (the Boost
// generators draw from a boost::random::mt19937_64 seeded with `seed`). Bad arguments are a
// ConfigError naming the value.
using EdgePairs = std::vector<std::pair<NodeId, NodeId>>;

// G(n, p) with p = avg_degree / (nodes - 1) (boost::sorted_erdos_renyi_iterator): every pair is an
// edge independently, so the expected average degree is avg_degree. Needs nodes >= 2 and
// 0 < avg_degree < nodes - 1. O(nodes + edges) time.
EdgePairs generate_erdos_renyi(NodeId nodes, double avg_degree, std::uint64_t seed);

// Power-law degrees (PLOD, Palmer & Steffan 2000; boost::plod_iterator, directed form): each
// node draws an out-degree floor(beta · x^-alpha) for a uniform integer x in [0, nodes) (x = 0
// gives 0) and links to that many uniformly random other nodes; the links are
// then made undirected and merged. Out-degrees follow P(k) ∝ k^-(1 + 1/alpha) up to beta
// (alpha = 0.5: the k^-3 tail of preferential attachment). For alpha < 1 the mean degree is about
// 2 · beta · nodes^-alpha / (1 - alpha). Nodes whose draw is 0 and that nobody picks are isolated
// (many for alpha >= 1). Needs nodes >= 2, alpha > 0, 0 < beta <= nodes.
EdgePairs generate_power_law(NodeId nodes, double alpha, double beta, std::uint64_t seed);

// Watts–Strogatz small world (boost::small_world_iterator): a ring where each node links to its
// k nearest neighbours (k/2 per side), each edge rewired to a random far node with probability
// `rewire`. About nodes·k/2 edges (a rewired edge that lands on an existing one is merged). Needs
// nodes >= 2, k even with 2 <= k <= nodes - 2 (k = nodes - 1 would leave no far node to rewire
// to), 0 <= rewire <= 1.
EdgePairs generate_small_world(NodeId nodes, int k, double rewire, std::uint64_t seed);

// The planted-partition graph's edges (u < v, sorted), for writing it as an edge list. The node
// classes and features stay in generate_planted_partition's data set (same options, same graph).
EdgePairs generate_planted_partition_edges(const PlantedPartitionOptions& options);

}  // namespace gatkit
