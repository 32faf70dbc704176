// SMILES parsing: the one place that turns RDKit's failures into gatkit errors.
// RDKit reports syntax errors by returning null (and logging), sanitisation failures by
// throwing MolSanitizeException; both become a ParseError whose message is RDKit's reason.
#pragma once

#include <memory>
#include <string>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

// Parses and sanitises; throws ParseError("SMILES 'X' rejected by RDKit: <reason>").
std::unique_ptr<RDKit::ROMol> parse_smiles(const std::string& smiles);

// Heavy-atom count of a parsed molecule.
int atom_count(const RDKit::ROMol& mol);

}  // namespace gatkit::chem
