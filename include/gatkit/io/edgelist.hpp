// Edge lists: one large graph (social or citation network) read from its edges, with the user's
// node ids kept, plus optional node feature and node label files.
//
// Edge files (either may be gzip-compressed, CRLF or LF):
//   SNAP  `src dst [weight]` per line, separated by any run of spaces/tabs; lines starting with
//         '#' or '%' are comments, blank lines are skipped. Every edge line has the column count
//         of the first one (2, or 3 with a weight).
//   CSV   RFC 4180 with a header naming `src` (or `source`) and `dst` (or `target`), and
//         optionally `label` and `weight` (names compared without regard to case).
//   LINQS tab links (`linqs-tab`): the *.DIRECTED.*.tab links file of LINQS's tab layout
//         (PubMed-Diabetes; io/linqs.hpp), read alone: `<type>:` prefixes are taken off the ids.
// Format `auto` picks CSV for a name ending in .csv or .csv.gz, LINQS tab links for a
// *.DIRECTED.*.tab or *.UNDIRECTED.*.tab name (.gz accepted), SNAP otherwise.
//
// Ids are any strings, kept verbatim; rows are numbered in order of first appearance (edge file,
// then feature file, then label file). A node named only on a self-loop line is kept (isolated).
// Self-loops are dropped and duplicates merged (undirected: (v,u) after (u,v) is a duplicate),
// each counted in a report note; the first copy's weight and label win, and a duplicate whose
// label differs is recorded in report.skipped.
//
// Feature file: CSV `id,<F columns>`; every node needs exactly one row. Label file: CSV with a
// two-column header (`id,label`), or whitespace-separated `id label` lines with '#' comments
// (CSV when the name ends in .csv/.csv.gz or the first non-comment line holds a comma). Ids absent
// from the edge file become isolated nodes (a note says how many). Unlabelled nodes get -1.
//
// Errors, one line with file:line and the value: IoError for a missing file; ParseError for a
// malformed line, a non-finite number, a bad header, a repeated id in a feature/label file, nodes
// without features; GraphError "FILE: no edges" when nothing is left after dropping self-loops.
#pragma once

#include "gatkit/core/types.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/io/dataset.hpp"
#include "gatkit/io/load_report.hpp"

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gatkit {

struct NetworkOptions {
    bool directed = false;        // else undirected (default)
    std::string format = "auto";  // auto | snap | csv | linqs-tab (see above)
};

// One large graph read from an edge list (social/citation networks), with the user's ids kept.
struct NetworkDataset {
    std::string name;                               // file stem, e.g. "facebook_combined"
    bool directed = false;
    std::vector<std::string> node_ids;              // row i <-> node_ids[i], in order of first appearance
    std::unordered_map<std::string, NodeId> index;  // node id -> row
    std::vector<std::pair<NodeId, NodeId>> edges;   // unique edges; undirected: (min,max) by row; directed: (src,dst); file order
    std::vector<float> edge_weights;                // empty if the file has no weight column; else one per edge
    std::vector<int> edge_labels;                   // empty if no label column; else one per edge, index into edge_class_names
    std::vector<std::string> edge_class_names;      // sorted distinct label strings
    Matrix features;                                // N×F; 0 columns when no feature file
    std::vector<int> node_labels;                   // empty when no label file; else N entries, -1 = unlabelled
    std::vector<std::string> node_class_names;      // sorted distinct label strings
    LoadReport report;

    NodeId num_nodes() const { return static_cast<NodeId>(node_ids.size()); }
    std::optional<NodeId> find(const std::string& id) const;
    // Message-passing graph over all edges: undirected -> both directions; no self-loops; no
    // duplicates (build_graph). Built on each call.
    Graph graph() const;
};

NetworkDataset load_network(const std::string& edges_path, const NetworkOptions& options = {},
                            const std::string& features_path = "", const std::string& labels_path = "");

// Reads a feature file (header id,f1,...; one row per node) into ds.features, as load_network
// does: ids not yet in ds are added as isolated nodes (noted in ds.report), every node needs a
// row, values must be finite; ParseError naming file:line:value otherwise.
void read_node_features(const std::string& path, NetworkDataset& ds);

// A LINQS/node data set (e.g. Cora) seen as a network: same ids, features, node labels,
// undirected unique edges (in the graph's edge-id order).
NetworkDataset network_from_nodes(const NodeDataset& data);

// Writes the edges, atomically (gzip-compressed when the name ends in .gz), in the format
// load_network's `auto` reads back: CSV with header src,dst[,label][,weight] when the name ends in
// .csv or .csv.gz; otherwise SNAP: a "# gatkit edge list: N nodes, M edges" comment, then
// "src dst[ weight]" lines. Isolated nodes are not written (an edge list cannot hold them).
// ConfigError when the data does not fit SNAP: edge labels, or an id that is empty, holds
// whitespace or starts with '#'/'%' (name the file .csv instead).
void write_edge_list(const std::string& path, const NetworkDataset& data);

// Companions of write_edge_list, read back by load_network's features_path / labels_path.
// CSV `id,f0,f1,...` (one row per node, shortest exact float representation).
void write_node_features(const std::string& path, const NetworkDataset& data);
// CSV `id,label`, one row per labelled node (unlabelled nodes are left out).
void write_node_labels(const std::string& path, const NetworkDataset& data);

}  // namespace gatkit
