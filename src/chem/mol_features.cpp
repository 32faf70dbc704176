#include "gatkit/chem/mol_features.hpp"

#include "gatkit/chem/fingerprint.hpp"
#include "gatkit/chem/rdkit2d.hpp"
#include "gatkit/core/error.hpp"

#include <GraphMol/ROMol.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace gatkit::chem {

namespace {

constexpr int kMorganBits = 2048;

// The kinds of a spec, in order ("none": none). Throws ConfigError for anything else.
std::vector<std::string> kinds_of(const std::string& spec) {
    if (spec == "none") return {};
    std::vector<std::string> kinds;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = spec.find(',', start);
        const std::string kind = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (kind != "rdkit2d" && kind != "morgan")
            throw ConfigError("molecule features '" + spec + "': '" + kind + "' is not one of rdkit2d, morgan (or none; combine with a comma, e.g. rdkit2d,morgan)");
        if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end())
            throw ConfigError("molecule features '" + spec + "' name " + kind + " twice");
        kinds.push_back(kind);
        if (comma == std::string::npos) return kinds;
        start = comma + 1;
    }
}

std::vector<std::string> names_of_kind(const std::string& kind) {
    std::vector<std::string> names;
    if (kind == "rdkit2d") {
        names = rdkit2d_names();
    } else {
        for (int k = 0; k < kMorganBits; ++k) names.push_back("morgan" + std::to_string(k));
    }
    return names;
}

}  // namespace

void check_molecule_features(const std::string& spec) { kinds_of(spec); }

const std::vector<std::string>& molecule_feature_names(const std::string& spec) {
    const std::vector<std::string> kinds = kinds_of(spec);
    static std::mutex mutex;
    static std::map<std::string, std::vector<std::string>> cache;  // nodes never move: references stay valid
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(spec);
    if (it == cache.end()) {
        std::vector<std::string> names;
        for (const auto& kind : kinds) {
            const std::vector<std::string> part = names_of_kind(kind);
            names.insert(names.end(), part.begin(), part.end());
        }
        it = cache.emplace(spec, std::move(names)).first;
    }
    return it->second;
}

std::vector<bool> molecule_feature_standardised(const std::string& spec) {
    std::vector<bool> out;
    for (const auto& kind : kinds_of(spec)) out.insert(out.end(), names_of_kind(kind).size(), kind == "rdkit2d");
    return out;
}

std::vector<float> molecule_features(const RDKit::ROMol& mol, const std::string& spec) {
    std::vector<float> out;
    for (const auto& kind : kinds_of(spec)) {
        if (kind == "rdkit2d") {
            const std::size_t first = out.size();
            append_rdkit2d(mol, out);
            static const std::size_t expected = rdkit2d_names().size();
            if (out.size() - first != expected)
                throw Error("rdkit2d features: RDKit returned " + std::to_string(out.size() - first) + " values for " + std::to_string(expected) + " names");
        } else {
            const std::size_t first = out.size();
            out.resize(first + kMorganBits, 0.0f);
            for (const std::uint32_t bit : morgan_bits(mol, 2, kMorganBits)) out[first + bit] = 1.0f;
        }
    }
    return out;
}

}  // namespace gatkit::chem
