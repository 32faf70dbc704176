// Atom and bond features for molecular graphs, from spec tables.
//
// Each feature is a block of columns described by one row of a table in featurize.cpp; the
// offsets and widths below are computed from those tables (never typed by hand), and
// docs/features.md lists them. The blocks follow OGB's atom/bond features
// (ogb.utils.features), one-hot encoded with an "other" column for values outside the list:
//
//   atom: atomic_num, chirality, degree, formal_charge, num_hs, radical_electrons,
//         hybridization (one-hot), is_aromatic, is_in_ring (0/1 flags), mass (atomic mass / 100)
//   bond: bond_type (one-hot), is_conjugated, is_in_ring (0/1 flags), stereo (one-hot)
//
// The layout is versioned by featurizer_id(): a model trained on one layout must be fed the
// same layout, so any change to the tables needs a new id.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <string>
#include <vector>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

enum class FeatureKind {
    one_hot,  // one column per listed choice, then one "other" column; exactly one is 1
    flag,     // one column, 0 or 1
    scalar,   // one column, a real value
};

struct FeatureBlock {
    std::string name{};                // e.g. "atomic_num"
    FeatureKind kind = FeatureKind::one_hot;
    std::string description{};         // what is measured, for docs and error messages
    std::vector<std::string> choices{};  // one_hot: the listed values, in column order ("other" not included)
    int offset = 0;                    // first column of the block
    int width = 0;                     // one_hot: choices + 1; flag, scalar: 1
};

// The blocks in column order; offsets are running sums of the widths.
const std::vector<FeatureBlock>& atom_feature_layout();
const std::vector<FeatureBlock>& bond_feature_layout();
// Sums of the layout widths.
int atom_feature_width();
int bond_feature_width();
// Names this layout, e.g. for model files: "gatkit-atom-bond-v1".
const std::string& featurizer_id();
// The layout itself as text, "atom:atomic_num/one_hot/120,...;bond:bond_type/one_hot/5,...":
// model files keep it beside the id, and loading compares it, so a layout changed without a new
// id is still caught.
const std::string& featurizer_spec();

// One molecule as a graph: x (N×atom_feature_width()), every bond as two directed edges
// (u→v and v→u, sorted by (destination, source) so edge id = position), and edge_attr
// (E×bond_feature_width()) whose row e describes the bond of edge e. A single atom gives
// N = 1, E = 0; disconnected fragments (salts) stay one graph. Hydrogens are those of the
// molecule as given (implicit ones count in num_hs only). `mol` must be sanitised, as
// parse_smiles and the molecule loaders return it.
GraphSample featurize_molecule(const RDKit::ROMol& mol);

}  // namespace gatkit::chem
