// In-memory data sets produced by the loaders.
#pragma once

#include "gatkit/core/types.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/io/load_report.hpp"

#include <string>
#include <vector>

namespace gatkit {

// One large graph whose nodes carry features and (optionally) a class label: citation graphs.
struct NodeDataset {
    std::string name;                      // e.g. "cora"
    Graph graph;                           // undirected, no self-loops, no duplicates
    Matrix features;                       // N×F
    std::vector<int> labels;               // N class ids (index into class_names)
    std::vector<std::string> class_names;  // sorted class strings
    std::vector<std::string> node_ids;     // the user's ids, in row order
    LoadReport report;

    NodeId num_nodes() const { return graph.num_nodes(); }
    int num_classes() const { return static_cast<int>(class_names.size()); }
};

// One small graph of a graph-level data set (a molecule, a TU graph).
struct GraphSample {
    Graph graph;      // edges in both directions for undirected graphs (bonds), no self-loops
    Matrix x;         // N×F node (atom) features
    Matrix edge_attr; // E×D edge (bond) features, row e = edge id e of `graph`; 0 columns if none
    Matrix u;         // 1×U graph-level (molecule) features, chem/mol_features.hpp; 0 columns if none
};

// Many small graphs with graph-level targets (molecules, TU data sets).
struct GraphDataset {
    std::string name;
    std::vector<GraphSample> graphs;
    Matrix targets;                        // B×T; NaN marks a missing label
    std::vector<std::string> target_names; // T names (CSV columns, SD properties, "label")
    std::vector<std::string> class_names;  // multi-class data (TU): target value k means class_names[k]
    std::vector<std::size_t> source_rows;  // for each graph, its 1-based data row in the input file
    std::vector<std::string> smiles;       // for molecules: the input SMILES of each graph (else empty)
    std::vector<std::string> names;        // optional per-graph names/ids (else empty)
    // Columns of every GraphSample::x holding continuous values (TU node attributes), which graph
    // models standardise with the training graphs' statistics (ModelInfo::node_feature_*).
    std::vector<int> continuous_node_columns;
    // TU data (io/tu.hpp): {node label columns, node attribute columns, edge label columns, edge
    // attribute columns}, kept by the model so other folders are read with the same columns.
    // Empty for molecules.
    std::vector<int> tu_layout;
    LoadReport report;                     // rows that did not become graphs, and why

    std::size_t size() const { return graphs.size(); }
};

// Divides each feature row by its sum (rows summing to 0 stay 0), as PyG's NormalizeFeatures
// and the GAT paper.
void row_normalize(Matrix& features);

// Class ids for string labels, as every loader numbers them: `names` becomes the distinct
// non-empty labels in sorted order, and label k gets the index of its name (-1 when empty).
std::vector<int> number_labels(const std::vector<std::string>& labels, std::vector<std::string>& names);

}  // namespace gatkit
