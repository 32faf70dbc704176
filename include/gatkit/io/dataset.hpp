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

// Divides each feature row by its sum (rows summing to 0 stay 0), as PyG's NormalizeFeatures
// and the GAT paper.
void row_normalize(Matrix& features);

}  // namespace gatkit
