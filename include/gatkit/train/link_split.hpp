// Leak-free train / validation / test splits of the edges of one graph, and negative sampling
// for link prediction (the rules of PyG's RandomLinkSplit, with gatkit's Rng).
//
// The leak this file exists to prevent: an encoder that sees a validation or test edge while
// training has been told the answer. So the graph the encoder sees is built from the training
// positives only (training_graph), and negatives are drawn against every real edge of the input
// graph, so a held-out positive can never come back as a "negative".
//
// Shape letters: N nodes, M unique edges of the input graph. Undirected pairs are stored as
// (min, max); a pair key is u·N + v (64-bit, N < 2^31).
#pragma once

#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"
#include "gatkit/graph/graph.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gatkit {

using NodePair = std::pair<NodeId, NodeId>;

struct LinkSplitOptions {
    double train = 0.85, val = 0.05, test = 0.10;  // fractions of the unique edges (>= 0, sum 1 within 1e-6)
    bool directed = false;
    std::uint64_t seed = 0;
};

struct LinkSplit {
    std::vector<NodePair> train_pos, val_pos, test_pos;  // undirected: each (min, max); in shuffled order
    std::vector<NodePair> val_neg, test_neg;             // fixed non-edges, as many as val_pos / test_pos
};

// Splits the M unique edges of a graph on `num_nodes` nodes (undirected: each edge once, in either
// orientation; it is stored as (min, max)).
//
// Rule (PyG RandomLinkSplit): Rng rng(seed) shuffles the edges (Fisher–Yates, Rng::shuffle);
// n_val = floor(val·M), n_test = floor(test·M), n_train = M − n_val − n_test; the shuffled list is
// cut as train = [0, n_train), val = the next n_val, test = the rest. options.train is checked
// (it must make the fractions sum to 1) but the training part is simply what remains.
// Then the same Rng draws n_val validation and then n_test test negatives with
// NegativeSampler(num_nodes, edges, directed).sample_distinct: uniform pairs u != v that are no
// edge of the input graph (undirected: in neither direction), all distinct, so val_neg and
// test_neg are disjoint.
//
// Errors: ConfigError for fractions < 0 or not summing to 1; GraphError (with the numbers) for no
// edges, an id outside [0, num_nodes), a self-loop or a repeated edge in `edges` (undirected:
// (u,v) and (v,u) count as the same edge), a split that leaves no training edge, and more
// negatives requested than non-edges exist (small dense graphs).
// Cost: O(M log M) time, O(M) memory.
LinkSplit split_links(NodeId num_nodes, const std::vector<NodePair>& edges, const LinkSplitOptions& options);

// The graph the encoder sees: the training positives only (both directions when undirected), no
// self-loops, no repeated edges. Node count `num_nodes`, so held-out nodes keep their ids.
Graph training_graph(NodeId num_nodes, const LinkSplit& split, bool directed);

// Uniform negative pairs: pairs (u, v), u != v, that are not in `forbidden` (undirected: neither
// (u,v) nor (v,u) is in it). Undirected samples are returned as (min, max); so an undirected draw
// is uniform over unordered allowed pairs, a directed one over ordered allowed pairs.
//
// How: the forbidden pairs are kept as sorted 64-bit keys u·N + v (undirected: of (min, max)).
// When at least half of all pairs are allowed, a draw is rejection sampling (u, v uniform,
// expected < 2 tries); otherwise the allowed pairs are listed once in the constructor (then there
// are fewer of them than 2·|forbidden|, so the list is O(|forbidden|)) and a draw picks one.
// So no draw loops for long, and when no pair is allowed sampling is a GraphError, never a hang.
// Everything is a pure function of the Rng's state: same state, same samples.
class NegativeSampler {
public:
    // `forbidden`: pairs that must never be returned (typically every real edge of the input
    // graph: train + val + test positives). Self-loops in it are ignored (they are never returned
    // anyway), repeats are fine. An id outside [0, num_nodes) is a GraphError.
    NegativeSampler(NodeId num_nodes, const std::vector<NodePair>& forbidden, bool directed);

    // `count` independent uniform draws (with replacement; repeats possible), as PyG's
    // negative_sampling does per epoch. GraphError when count > 0 and no pair is allowed.
    // From kParallelDraws on, drawn in parallel: the same pairs, and the same state of rng after.
    std::vector<NodePair> sample(std::size_t count, Rng& rng) const;
    // The same draws written to out[0, count) (a training batch's slots after its positives).
    void sample_into(std::size_t count, Rng& rng, NodePair* out) const;
    static constexpr std::size_t kParallelDraws = 4096;

    // `count` distinct allowed pairs, uniform among such sets (used for the fixed val/test
    // negatives). GraphError naming both numbers when count > allowed_pairs().
    std::vector<NodePair> sample_distinct(std::size_t count, Rng& rng) const;

    // True when (u, v) may never be returned: a self-loop, or (undirected: either orientation of)
    // a forbidden pair. GraphError for an id outside [0, N).
    bool forbidden(NodeId u, NodeId v) const;

    NodeId num_nodes() const { return num_nodes_; }
    bool directed() const { return directed_; }
    // Pairs u != v in the sampling space: N(N−1) directed, N(N−1)/2 undirected.
    std::uint64_t total_pairs() const { return total_pairs_; }
    // total_pairs() minus the distinct forbidden pairs.
    std::uint64_t allowed_pairs() const { return total_pairs_ - forbidden_keys_.size(); }

private:
    std::uint64_t key(NodeId u, NodeId v) const;  // orientation already normalised
    NodePair normalise(NodeId u, NodeId v) const { return directed_ || u < v ? NodePair{u, v} : NodePair{v, u}; }
    bool forbidden_normalised(NodeId u, NodeId v) const;
    NodePair draw_by_rejection(Rng& rng) const;
    std::vector<NodePair> list_allowed() const;  // every allowed pair, in key order

    NodeId num_nodes_ = 0;
    bool directed_ = false;
    std::uint64_t total_pairs_ = 0;
    std::vector<std::uint64_t> forbidden_keys_;  // sorted, unique, no self-loops
    std::vector<std::uint64_t> forbidden_bits_;  // bit k set for each forbidden key; N² <= 2^28 only
    std::vector<NodePair> allowed_;              // filled only when fewer than half of the pairs are allowed
};

}  // namespace gatkit
