// Bemis–Murcko scaffolds (Bemis & Murcko, J. Med. Chem. 1996): the ring systems of a molecule
// plus the linkers between them, with every side chain removed. Scaffold splits group molecules
// by this string so that no scaffold appears in two of train / val / test.
#pragma once

#include <string>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

// Canonical SMILES of the Bemis–Murcko scaffold, the same string as RDKit Python's
// `MurckoScaffold.MurckoScaffoldSmiles(mol=m, includeChirality=include_chirality)`:
// RDKit's MurckoDecompose, property cache and symmetrised SSSR recomputed (not re-sanitised, so
// aromaticity stays as perceived on the whole molecule), then MolToSmiles.
// Returns "" for a molecule without rings (all acyclic molecules share that scaffold).
std::string murcko_scaffold(const RDKit::ROMol& mol, bool include_chirality = false);

}  // namespace gatkit::chem
