#include "gatkit/chem/mol_features.hpp"

#include "gatkit/chem/fingerprint.hpp"
#include "gatkit/core/error.hpp"

#include <GraphMol/Descriptors/MolDescriptors.h>
#include <GraphMol/Descriptors/Property.h>
#include <GraphMol/ROMol.h>

#include <cmath>

namespace gatkit::chem {

namespace {

constexpr int kMorganBits = 2048;

const RDKit::Descriptors::Properties& rdkit_properties() {
    static const RDKit::Descriptors::Properties properties;  // every descriptor RDKit registers
    return properties;
}

std::vector<std::string> make_names(const std::string& kind) {
    std::vector<std::string> names;
    if (kind == "rdkit2d") {
        names = rdkit_properties().getPropertyNames();
        for (int k = 1; k <= 42; ++k) names.push_back("MQN" + std::to_string(k));
    } else if (kind == "morgan") {
        for (int k = 0; k < kMorganBits; ++k) names.push_back("morgan" + std::to_string(k));
    }
    return names;
}

}  // namespace

void check_molecule_features(const std::string& kind) {
    if (kind != "none" && kind != "rdkit2d" && kind != "morgan")
        throw ConfigError("molecule features '" + kind + "' are not one of none, rdkit2d, morgan");
}

const std::vector<std::string>& molecule_feature_names(const std::string& kind) {
    check_molecule_features(kind);
    static const std::vector<std::string> none, rdkit2d = make_names("rdkit2d"), morgan = make_names("morgan");
    return kind == "rdkit2d" ? rdkit2d : kind == "morgan" ? morgan : none;
}

bool molecule_features_standardised(const std::string& kind) { return kind == "rdkit2d"; }

std::vector<float> molecule_features(const RDKit::ROMol& mol, const std::string& kind) {
    check_molecule_features(kind);
    std::vector<float> out;
    if (kind == "rdkit2d") {
        for (const double v : rdkit_properties().computeProperties(mol)) out.push_back(std::isfinite(v) ? static_cast<float>(v) : 0.0f);
        for (const unsigned v : RDKit::Descriptors::calcMQNs(mol)) out.push_back(static_cast<float>(v));
        if (out.size() != molecule_feature_names(kind).size())
            throw Error("rdkit2d features: RDKit returned " + std::to_string(out.size()) + " values for " +
                        std::to_string(molecule_feature_names(kind).size()) + " names");
    } else if (kind == "morgan") {
        out.assign(kMorganBits, 0.0f);
        for (const std::uint32_t bit : morgan_bits(mol, 2, kMorganBits)) out[bit] = 1.0f;
    }
    return out;
}

}  // namespace gatkit::chem
