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
//
// GraphDataset::tu_layout records the columns: {node label columns, node attribute columns, edge
// label columns, edge attribute columns}. A model keeps it (ModelInfo::tu_layout), and another
// folder of the same kind (held-out graphs, new ones) is read with TuReadOptions::layout so that
// its columns are the model's: one-hot widths are the model's, not this folder's largest label
// + 1; a label beyond them, an attribute count other than the model's, or a label or attribute
// file the model had and this folder lacks (or the reverse) is an error naming the file.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <string>
#include <vector>

namespace gatkit {

inline constexpr Eigen::Index kTuMaxDegree = 10;

struct TuReadOptions {
    // The model's column layout (ModelInfo::tu_layout, 4 numbers); empty: this folder's own.
    std::vector<int> layout;
    // The model's classes (ModelInfo::class_names): graph labels are mapped to these by numeric
    // value, and a label that is not among them is an error. Empty: this folder's own labels, in
    // increasing numeric order.
    std::vector<std::string> class_names;
    // false: DS_graph_labels.txt may be missing (graphs to predict); targets are then NaN.
    bool require_graph_labels = true;
};

GraphDataset load_tu(const std::string& path, const TuReadOptions& options = {});

}  // namespace gatkit
