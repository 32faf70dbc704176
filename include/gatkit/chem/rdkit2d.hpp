// The rdkit2d molecule-level features (chem/mol_features.hpp): RDKit's registered descriptors
// (Descriptors::Properties, in its order) followed by its 42 MQN counts, as floats; a value RDKit
// cannot compute (NaN, ±inf) is 0.
//
// Computed as RDKit computes them, value for value, but faster: about half of a molecule's time
// in RDKit went to re-enumerating bond paths, a third to Crippen's atom typing and most of the
// rest to copying a query molecule for each rotatable-bond count. Cost ~250 us a molecule and
// thread (RDKit's own functions: ~650 us).
#pragma once

#include <string>
#include <vector>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

// The column names: RDKit's registered descriptor names, then MQN1 … MQN42.
std::vector<std::string> rdkit2d_names();

// Appends the rdkit2d_names().size() values of one sanitised molecule to `out`.
void append_rdkit2d(const RDKit::ROMol& mol, std::vector<float>& out);

// The rdkit2d columns gatkit computes itself rather than with RDKit's function, for speed:
// chi2v..chi4n, kappa2, kappa3 and Phi from one walk over the molecule's bond paths,
// NumRotatableBonds with its SMARTS compiled once, CrippenClogP and CrippenMR with RDKit's atom
// typing pruned of searches that cannot type an atom, and the 42 MQN counts (whose rotatable-bond
// count is most of RDKit's time for them); together about 75 % of RDKit's time. Each is kept only
// where it equals RDKit's value on a set of probe molecules, so the values are RDKit's floats;
// the other columns, and any that differ, come from RDKit.
std::vector<std::string> rdkit2d_own_columns();

}  // namespace gatkit::chem
