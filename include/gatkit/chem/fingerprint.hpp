// Circular (Morgan / ECFP-like) fingerprints, the input of the fingerprint baseline model.
#pragma once

#include <cstdint>
#include <vector>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

// Indices of the set bits, ascending and distinct, of RDKit's Morgan bit vector — the same as
// RDKit Python's `AllChem.GetMorganFingerprintAsBitVect(m, radius, n_bits).GetOnBits()`
// (default atom invariants, bond types on, chirality off). Throws ConfigError for radius < 0
// or n_bits < 1.
std::vector<std::uint32_t> morgan_bits(const RDKit::ROMol& mol, int radius = 2, int n_bits = 2048);

}  // namespace gatkit::chem
