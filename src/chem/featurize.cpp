#include "gatkit/chem/featurize.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"

#include <GraphMol/MolOps.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/RingInfo.h>

#include <algorithm>
#include <tuple>

namespace gatkit::chem {

namespace {

// One row of a spec table. `read` returns the raw value: the category for one_hot (an int
// stored in a double), 0/1 for a flag, the number itself for a scalar.
template <class Item>
struct Spec {
    const char* name;
    FeatureKind kind;
    const char* description;
    std::vector<std::pair<int, std::string>> choices;  // one_hot: value and its printable name
    double (*read)(const Item& item, const RDKit::ROMol& mol);
};

std::vector<std::pair<int, std::string>> int_range(int first, int last) {
    std::vector<std::pair<int, std::string>> out;
    for (int v = first; v <= last; ++v) out.emplace_back(v, std::to_string(v));
    return out;
}

using AtomSpec = Spec<RDKit::Atom>;
using BondSpec = Spec<RDKit::Bond>;
using RDKit::Atom;
using RDKit::Bond;
using RDKit::ROMol;

// OGB's atom features (ogb.utils.features.allowable_features) in OGB's order, each with an
// "other" column, plus the atomic mass. Atomic numbers 1–118 are all listed, so "other" holds
// only the dummy atom '*' (0); OGB's extra hybridisations (S, SP2D, unspecified) and chiral
// classes beyond tetrahedral fall into "other".
const std::vector<AtomSpec>& atom_specs() {
    static const std::vector<AtomSpec> specs = {
        {"atomic_num", FeatureKind::one_hot, "atomic number (H = 1 ... Og = 118)", int_range(1, 118),
         [](const Atom& a, const ROMol&) { return double(a.getAtomicNum()); }},
        {"chirality", FeatureKind::one_hot, "chiral tag",
         {{Atom::CHI_UNSPECIFIED, "CHI_UNSPECIFIED"},
          {Atom::CHI_TETRAHEDRAL_CW, "CHI_TETRAHEDRAL_CW"},
          {Atom::CHI_TETRAHEDRAL_CCW, "CHI_TETRAHEDRAL_CCW"},
          {Atom::CHI_OTHER, "CHI_OTHER"}},
         [](const Atom& a, const ROMol&) { return double(a.getChiralTag()); }},
        {"degree", FeatureKind::one_hot, "number of bonded neighbours (explicit atoms)", int_range(0, 10),
         [](const Atom& a, const ROMol&) { return double(a.getDegree()); }},
        {"formal_charge", FeatureKind::one_hot, "formal charge", int_range(-5, 5),
         [](const Atom& a, const ROMol&) { return double(a.getFormalCharge()); }},
        {"num_hs", FeatureKind::one_hot, "total number of hydrogens (implicit + explicit)", int_range(0, 8),
         [](const Atom& a, const ROMol&) { return double(a.getTotalNumHs()); }},
        {"radical_electrons", FeatureKind::one_hot, "number of radical electrons", int_range(0, 4),
         [](const Atom& a, const ROMol&) { return double(a.getNumRadicalElectrons()); }},
        {"hybridization", FeatureKind::one_hot, "hybridisation",
         {{Atom::SP, "SP"}, {Atom::SP2, "SP2"}, {Atom::SP3, "SP3"}, {Atom::SP3D, "SP3D"}, {Atom::SP3D2, "SP3D2"}},
         [](const Atom& a, const ROMol&) { return double(a.getHybridization()); }},
        {"is_aromatic", FeatureKind::flag, "1 if the atom is aromatic", {},
         [](const Atom& a, const ROMol&) { return a.getIsAromatic() ? 1.0 : 0.0; }},
        {"is_in_ring", FeatureKind::flag, "1 if the atom is in a ring", {},
         [](const Atom& a, const ROMol& m) { return m.getRingInfo()->numAtomRings(a.getIdx()) > 0 ? 1.0 : 0.0; }},
        {"mass", FeatureKind::scalar, "atomic mass / 100 (carbon: 0.12011)", {},
         [](const Atom& a, const ROMol&) { return a.getMass() / 100.0; }},
    };
    return specs;
}

// OGB's bond type and stereo, plus conjugation and ring membership.
const std::vector<BondSpec>& bond_specs() {
    static const std::vector<BondSpec> specs = {
        {"bond_type", FeatureKind::one_hot, "bond type",
         {{Bond::SINGLE, "SINGLE"}, {Bond::DOUBLE, "DOUBLE"}, {Bond::TRIPLE, "TRIPLE"}, {Bond::AROMATIC, "AROMATIC"}},
         [](const Bond& b, const ROMol&) { return double(b.getBondType()); }},
        {"is_conjugated", FeatureKind::flag, "1 if the bond is conjugated", {},
         [](const Bond& b, const ROMol&) { return b.getIsConjugated() ? 1.0 : 0.0; }},
        {"is_in_ring", FeatureKind::flag, "1 if the bond is in a ring", {},
         [](const Bond& b, const ROMol& m) { return m.getRingInfo()->numBondRings(b.getIdx()) > 0 ? 1.0 : 0.0; }},
        {"stereo", FeatureKind::one_hot, "double-bond stereo",
         {{Bond::STEREONONE, "STEREONONE"},
          {Bond::STEREOZ, "STEREOZ"},
          {Bond::STEREOE, "STEREOE"},
          {Bond::STEREOCIS, "STEREOCIS"},
          {Bond::STEREOTRANS, "STEREOTRANS"},
          {Bond::STEREOANY, "STEREOANY"}},
         [](const Bond& b, const ROMol&) { return double(b.getStereo()); }},
    };
    return specs;
}

template <class Item>
std::vector<FeatureBlock> layout_of(const std::vector<Spec<Item>>& specs) {
    std::vector<FeatureBlock> layout;
    int offset = 0;
    for (const auto& spec : specs) {
        FeatureBlock block;
        block.name = spec.name;
        block.kind = spec.kind;
        block.description = spec.description;
        for (const auto& choice : spec.choices) block.choices.push_back(choice.second);
        block.offset = offset;
        block.width = spec.kind == FeatureKind::one_hot ? static_cast<int>(spec.choices.size()) + 1 : 1;
        offset += block.width;
        layout.push_back(std::move(block));
    }
    return layout;
}

int width_of(const std::vector<FeatureBlock>& layout) {
    return layout.empty() ? 0 : layout.back().offset + layout.back().width;
}

// Writes the features of `item` into `row` (already zero), block by block.
template <class Item>
void write_features(const std::vector<Spec<Item>>& specs, const std::vector<FeatureBlock>& layout, const Item& item,
                    const ROMol& mol, float* row) {
    for (std::size_t k = 0; k < specs.size(); ++k) {
        const Spec<Item>& spec = specs[k];
        const FeatureBlock& block = layout[k];
        const double value = spec.read(item, mol);
        switch (spec.kind) {
            case FeatureKind::one_hot: {
                int column = block.width - 1;  // "other" unless the value is listed
                for (std::size_t c = 0; c < spec.choices.size(); ++c)
                    if (spec.choices[c].first == static_cast<int>(value)) {
                        column = static_cast<int>(c);
                        break;
                    }
                row[block.offset + column] = 1.0f;
                break;
            }
            case FeatureKind::flag:
                row[block.offset] = value != 0.0 ? 1.0f : 0.0f;
                break;
            case FeatureKind::scalar:
                row[block.offset] = static_cast<float>(value);
                break;
        }
    }
}

}  // namespace

const std::vector<FeatureBlock>& atom_feature_layout() {
    static const std::vector<FeatureBlock> layout = layout_of(atom_specs());
    return layout;
}

const std::vector<FeatureBlock>& bond_feature_layout() {
    static const std::vector<FeatureBlock> layout = layout_of(bond_specs());
    return layout;
}

int atom_feature_width() { return width_of(atom_feature_layout()); }
int bond_feature_width() { return width_of(bond_feature_layout()); }

const std::string& featurizer_id() {
    static const std::string id = "gatkit-atom-bond-v1";
    return id;
}

const std::string& featurizer_spec() {
    static const std::string spec = [] {
        auto blocks = [](const std::vector<FeatureBlock>& layout) {
            std::string out;
            for (const FeatureBlock& b : layout) {
                const char* kind = b.kind == FeatureKind::one_hot ? "one_hot" : b.kind == FeatureKind::flag ? "flag" : "scalar";
                out += (out.empty() ? "" : ",") + b.name + "/" + kind + "/" + std::to_string(b.width);
            }
            return out;
        };
        return "atom:" + blocks(atom_feature_layout()) + ";bond:" + blocks(bond_feature_layout());
    }();
    return spec;
}

GraphSample featurize_molecule(const ROMol& mol) {
    const auto N = static_cast<NodeId>(mol.getNumAtoms());
    if (N == 0) throw GraphError("featurize_molecule: the molecule has no atoms");
    // Ring membership needs ring perception; sanitised molecules have it already.
    if (!mol.getRingInfo()->isInitialized()) RDKit::MolOps::fastFindRings(mol);

    GraphSample sample;
    const auto& atoms = atom_specs();
    const auto& atom_layout = atom_feature_layout();
    sample.x = Matrix::Zero(N, atom_feature_width());
    for (const Atom* atom : mol.atoms()) write_features(atoms, atom_layout, *atom, mol, sample.x.row(atom->getIdx()).data());

    const auto& bonds = bond_specs();
    const auto& bond_layout = bond_feature_layout();
    const auto n_bonds = static_cast<Eigen::Index>(mol.getNumBonds());
    Matrix bond_rows = Matrix::Zero(n_bonds, bond_feature_width());
    // each bond u–v as the directed edges u→v and v→u, in (destination, source) order
    std::vector<std::tuple<NodeId, NodeId, unsigned>> directed;  // (dst, src, bond index)
    directed.reserve(2 * static_cast<std::size_t>(n_bonds));
    for (const Bond* bond : mol.bonds()) {
        write_features(bonds, bond_layout, *bond, mol, bond_rows.row(bond->getIdx()).data());
        const auto u = static_cast<NodeId>(bond->getBeginAtomIdx()), v = static_cast<NodeId>(bond->getEndAtomIdx());
        directed.emplace_back(v, u, bond->getIdx());
        directed.emplace_back(u, v, bond->getIdx());
    }
    std::sort(directed.begin(), directed.end());

    std::vector<std::pair<NodeId, NodeId>> edges(directed.size());  // (src, dst)
    sample.edge_attr.resize(static_cast<Eigen::Index>(directed.size()), bond_feature_width());
    for (std::size_t e = 0; e < directed.size(); ++e) {
        const auto [dst, src, bond] = directed[e];
        edges[e] = {src, dst};
        sample.edge_attr.row(static_cast<Eigen::Index>(e)) = bond_rows.row(bond);
    }
    sample.graph = build_from_sorted(N, std::move(edges));
    return sample;
}

}  // namespace gatkit::chem
