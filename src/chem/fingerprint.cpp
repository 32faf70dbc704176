#include "gatkit/chem/fingerprint.hpp"

#include "gatkit/core/error.hpp"

#include <DataStructs/ExplicitBitVect.h>
#include <GraphMol/Fingerprints/MorganFingerprints.h>
#include <GraphMol/ROMol.h>

#include <memory>
#include <string>

namespace gatkit::chem {

std::vector<std::uint32_t> morgan_bits(const RDKit::ROMol& mol, int radius, int n_bits) {
    if (radius < 0) throw ConfigError("morgan_bits: radius = " + std::to_string(radius) + ", expected >= 0");
    if (n_bits < 1) throw ConfigError("morgan_bits: n_bits = " + std::to_string(n_bits) + ", expected >= 1");
    const std::unique_ptr<ExplicitBitVect> fp(RDKit::MorganFingerprints::getFingerprintAsBitVect(
        mol, static_cast<unsigned>(radius), static_cast<unsigned>(n_bits)));
    std::vector<std::uint32_t> on;
    on.reserve(fp->getNumOnBits());
    for (unsigned i = 0; i < fp->getNumBits(); ++i)
        if (fp->getBit(i)) on.push_back(i);
    return on;
}

}  // namespace gatkit::chem
