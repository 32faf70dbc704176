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
// Kinds combine with a comma, as Chemprop's generators do: "rdkit2d,morgan" is the rdkit2d
// columns, then the morgan ones.
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

// Throws ConfigError for a spec that is not none or a comma-separated list of distinct kinds
// among rdkit2d and morgan.
void check_molecule_features(const std::string& spec);
// The column names of a spec, in column order ("none": no names).
const std::vector<std::string>& molecule_feature_names(const std::string& spec);
// Per column: whether it is standardised before the head (rdkit2d: yes; morgan bits: no).
std::vector<bool> molecule_feature_standardised(const std::string& spec);
// The columns of one molecule (molecule_feature_names(spec).size() values). `mol` must be
// sanitised, as parse_smiles returns it. A descriptor RDKit cannot compute (NaN, ±inf) becomes 0.
std::vector<float> molecule_features(const RDKit::ROMol& mol, const std::string& spec);

}  // namespace gatkit::chem
