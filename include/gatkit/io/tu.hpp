// TU Dortmund graph-classification data sets (TUDataset text format).
//
// `path` is a folder holding DS_A.txt etc. (DS = the folder's name), or the prefix "folder/DS".
// Files (each may also be DS_*.txt.gz):
//   DS_A.txt                 "i, j" per line: an edge i → j between 1-based global node ids
//                            (undirected graphs list both directions)
//   DS_graph_indicator.txt   line i: the 1-based graph id of node i
//   DS_graph_labels.txt      line g: the label of graph g
//   DS_node_labels.txt       optional; line i: an integer label 0..9999 → one-hot, width = max + 1
//   DS_node_attributes.txt   optional; line i: comma-separated floats, appended after the labels
//   DS_edge_labels.txt       optional; line k: the label (0..9999) of edge k of DS_A.txt → one-hot edge_attr
//   DS_edge_attributes.txt   optional; line k: comma-separated floats, appended after the labels
// Nodes without labels or attributes get one constant feature 1. Every node then gets its degree
// (incoming edges after self-loops are dropped) one-hot over 0 .. kTuMaxDegree, the last column
// meaning that many or more: a GAT normalises attention over the neighbours, so it cannot count
// them otherwise (the SMILES featuriser has the same feature). Each graph's edges are sorted
// by (destination, source) with their edge rows moved along. Graph labels must be numbers; they
// are mapped to classes 0..K-1 in increasing numeric order (MUTAG: -1 → 0, 1 → 1), class_names
// keeps their text, targets is B×1 with the class index, target_names {"label"}, source_rows
// the graph ids. Self-loops in DS_A.txt are dropped (with a note in the report). A line repeated
// in DS_A.txt stays a parallel edge (each line keeps its own edge label, so attention counts it
// twice), with a note in the report.
//
// Errors name the file, line and value: a missing required file, a non-numeric value, an integer
// beyond 64 bits, a node id out of range, an edge between two graphs, a node or edge label
// above 9999, files whose line counts disagree, a graph without nodes.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <string>

namespace gatkit {

inline constexpr Eigen::Index kTuMaxDegree = 10;

GraphDataset load_tu(const std::string& path);

}  // namespace gatkit
