// Classic link-prediction heuristics: scores of node pairs from their shared neighbourhoods.
// They are the baselines a learned link predictor has to beat (on the same training graph and
// the same held-out pairs), with the definitions of networkx:
//
//   common neighbours   CN(u,v) = |N(u) ∩ N(v)|
//   Jaccard             J(u,v)  = |N(u) ∩ N(v)| / |N(u) ∪ N(v)|             (0 when the union is empty)
//   Adamic–Adar         AA(u,v) = Σ_{w ∈ N(u) ∩ N(v)} 1 / ln deg(w)           (Adamic & Adar 2003)
//
// N(x) is the set of neighbours of x other than x itself (self-loops are ignored; repeated edges
// count once), deg(w) = |N(w)|. A common neighbour w of u != v is adjacent to both, so deg(w) >= 2
// and ln deg(w) > 0.
#pragma once

#include "gatkit/graph/graph.hpp"

#include <string>
#include <utility>
#include <vector>

namespace gatkit {

enum class LinkHeuristic { common_neighbours, jaccard, adamic_adar };

// "common-neighbours" (also "cn"), "jaccard", "adamic-adar" (also "aa"); anything else is a
// ConfigError listing the names.
LinkHeuristic parse_link_heuristic(const std::string& name);
// The long name: "common-neighbours", "jaccard", "adamic-adar".
std::string to_string(LinkHeuristic h);

// Scores of `pairs` (P of them) on `graph`, in pair order. `graph` is the graph the predictor may
// see (the training graph of a link split) and must be symmetric: N(x) is read from row x of its
// incoming CSR (sorted by source), and the two rows of a pair are merged in O(d_u + d_v).
// Parallel over pairs with OpenMP; each pair writes only its own slot, so the result is the same
// for any thread count. GraphError for a pair with an id outside [0, N) or with u == v (a
// node's link to itself is not a link-prediction question).
// Cost: O(Σ_pairs (d_u + d_v)) time; Adamic–Adar adds one O(N + E) pass for the degrees.
std::vector<double> heuristic_scores(const Graph& graph, const std::vector<std::pair<NodeId, NodeId>>& pairs,
                                     LinkHeuristic h);

}  // namespace gatkit
