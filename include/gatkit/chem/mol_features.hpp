// Molecule-level features: one vector per molecule that enters a graph model's MLP head beside
// the pooled atom vectors (Chemprop's --features_generator; ModelConfig::graph_dim).
//
//   none     no columns
//   rdkit2d  RDKit's registered descriptors (Descriptors::Properties: molecular weights,
//            Lipinski and H-bond counts, rotatable bonds, ring and stereo-centre counts, TPSA,
//            Labute ASA, Crippen logP and MR, chi, kappa, Hall-Kier alpha, Phi) followed by the
//            42 MQN counts (molecular quantum numbers). Raw values; models standardise them with
//            the training set's mean and standard deviation (ModelInfo::graph_feature_*).
//   morgan   the 2048 bits of RDKit's Morgan fingerprint, radius 2 (the fingerprint
//            baseline's input, chem/fingerprint.hpp), as 0/1 columns.
//
// The column names go into model files, and prediction compares them with this gatkit's, so a
// model trained with one RDKit's descriptor set is never fed another's.
#pragma once

#include <string>
#include <vector>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

// Throws ConfigError for a kind that is not none, rdkit2d or morgan.
void check_molecule_features(const std::string& kind);
// The column names of a kind, in column order ("none": no names).
const std::vector<std::string>& molecule_feature_names(const std::string& kind);
// Whether a kind's columns are standardised before the head (rdkit2d: yes; morgan bits: no).
bool molecule_features_standardised(const std::string& kind);
// The columns of one molecule (molecule_feature_names(kind).size() values). `mol` must be
// sanitised, as parse_smiles returns it. A descriptor RDKit cannot compute (NaN, ±inf) becomes 0.
std::vector<float> molecule_features(const RDKit::ROMol& mol, const std::string& kind);

}  // namespace gatkit::chem
