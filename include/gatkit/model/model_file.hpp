// Model files: one file per model in the safetensors layout
// (https://github.com/huggingface/safetensors):
//
//   8 bytes   little-endian u64 n: the header length
//   n bytes   JSON header: {"<tensor name>": {"dtype": "F32", "shape": [r, c], "data_offsets": [b, e]}, …,
//             "__metadata__": {"format": "gatkit", "format_version": "1", "model_type": "gat" | "fingerprint",
//                              "config": "<JSON>", "info": "<JSON>"}}
//             An ensemble of graph models (gatkit train --ensemble-size N) is format_version "2"
//             with "ensemble_size": "N" and each member's tensors named "member.<k>.<name>"
//             (k = 0..N-1); its members share one config and one info. A gatkit that reads
//             only version 1 refuses it instead of reading one member as the whole model.
//             padded with spaces to a multiple of 8
//   rest      the raw little-endian tensors, at the offsets the header names
//
// Files are written atomically: to a temporary file beside the target, flushed, fsync'ed and
// renamed over it, so a crash never leaves a truncated model under the final name.
// Loading checks everything before use; a truncated, corrupt, foreign or newer file is an
// IoError/ParseError that says which.
#pragma once

#include "gatkit/model/fingerprint_model.hpp"
#include "gatkit/graph/link_heuristics.hpp"
#include "gatkit/model/link_model.hpp"
#include "gatkit/model/model.hpp"

#include <string>

namespace gatkit {

inline constexpr int kModelFormatVersion = 1;     // one model
inline constexpr int kEnsembleFormatVersion = 2;  // an ensemble of graph models
inline constexpr std::size_t kMaxEnsembleSize = 100;

void save_model(const std::string& path, Model& model);
// A single model (ParseError for an ensemble file: read it with load_model_ensemble).
Model load_model(const std::string& path);
// Ensembles: members trained on the same data with their own seeds, whose predictions are
// averaged (Chemprop's --ensemble_size). One member writes a plain version-1 file; several
// must share one config (ConfigError otherwise) and are written with the first one's info.
void save_model_ensemble(const std::string& path, const std::vector<Model*>& members);
// Every member of a model file: one for a single model's file.
std::vector<Model> load_model_ensemble(const std::string& path);

// Link and edge models: the parameters, plus "node_vectors" (N×C, F32) and "graph.edges" (M×2, I32:
// the network's known edges); the node ids and directedness are in the info metadata.
void save_link_model(const std::string& path, LinkModel& model);
LinkModel load_link_model(const std::string& path);
// A link heuristic "model" (Adamic–Adar etc.): nothing learned, only the graph it scores on.
struct HeuristicLinkModel {
    LinkHeuristic heuristic = LinkHeuristic::adamic_adar;
    ModelInfo info;               // node_ids, directed, metrics
    std::vector<NodePair> edges;  // known edges (undirected: once)
};
void save_heuristic_model(const std::string& path, const HeuristicLinkModel& model);
HeuristicLinkModel load_heuristic_model(const std::string& path);
// "node", "graph", "link" or "edge" for attention models, "fingerprint" for the fingerprint
// baseline, "heuristic" for a link heuristic.
std::string model_kind(const std::string& path);

struct LoadedFingerprintModel {
    FingerprintModel model;
    ModelInfo info;
    std::string target_type;  // binary | regression
};
void save_fingerprint_model(const std::string& path, const FingerprintModel& model, const ModelInfo& info, const std::string& target_type);
LoadedFingerprintModel load_fingerprint_model(const std::string& path);

}  // namespace gatkit
