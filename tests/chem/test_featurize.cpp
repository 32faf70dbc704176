// Atom and bond featurisation: layout derived from the spec tables, one-hot invariants,
// edge_attr aligned with edge ids, and docs/features.md in step with the code.
#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"

#include <GraphMol/ROMol.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

using namespace gatkit;
using chem::FeatureBlock;
using chem::FeatureKind;

namespace {

const FeatureBlock& block(const std::vector<FeatureBlock>& layout, const std::string& name) {
    for (const auto& b : layout)
        if (b.name == name) return b;
    FAIL("no feature block named " << name);
    throw std::logic_error("unreachable");
}

// The column within `b` that is 1 in row `r` (one-hot blocks); -1 if none or several.
int hot(const Matrix& m, Eigen::Index r, const FeatureBlock& b) {
    int found = -1;
    for (int c = 0; c < b.width; ++c) {
        if (m(r, b.offset + c) == 1.0f) {
            if (found >= 0) return -1;
            found = c;
        } else {
            REQUIRE(m(r, b.offset + c) == 0.0f);
        }
    }
    return found;
}

// The listed choice that row r holds in block b, or "other".
std::string choice(const Matrix& m, Eigen::Index r, const FeatureBlock& b) {
    const int c = hot(m, r, b);
    REQUIRE(c >= 0);
    return c == static_cast<int>(b.choices.size()) ? std::string("other") : b.choices[c];
}

float value(const Matrix& m, Eigen::Index r, const FeatureBlock& b) { return m(r, b.offset); }

GraphSample featurize(const std::string& smiles) { return chem::featurize_molecule(*chem::parse_smiles(smiles)); }

const auto& atoms() { return chem::atom_feature_layout(); }
const auto& bonds() { return chem::bond_feature_layout(); }

// Every one-hot block has exactly one 1 per row, flags are 0/1, and the graph holds each
// bond in both directions, sorted by (destination, source).
void check_invariants(const std::string& smiles) {
    INFO(smiles);
    const auto mol = chem::parse_smiles(smiles);
    const GraphSample s = chem::featurize_molecule(*mol);
    REQUIRE(s.x.rows() == static_cast<Eigen::Index>(mol->getNumAtoms()));
    REQUIRE(s.x.cols() == chem::atom_feature_width());
    REQUIRE(s.graph.num_nodes() == static_cast<NodeId>(mol->getNumAtoms()));
    REQUIRE(s.graph.num_edges() == 2 * static_cast<EdgeId>(mol->getNumBonds()));
    REQUIRE(s.edge_attr.rows() == s.graph.num_edges());
    REQUIRE(s.edge_attr.cols() == chem::bond_feature_width());
    for (const auto* layout : {&atoms(), &bonds()}) {
        const Matrix& m = layout == &atoms() ? s.x : s.edge_attr;
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (const auto& b : *layout) {
                if (b.kind == FeatureKind::one_hot) CHECK(m.row(r).segment(b.offset, b.width).sum() == 1.0f);
                if (b.kind == FeatureKind::flag) CHECK((value(m, r, b) == 0.0f || value(m, r, b) == 1.0f));
            }
    }
    const auto& off = s.graph.in_offsets();
    const auto& src = s.graph.in_src();
    for (NodeId dst = 0; dst < s.graph.num_nodes(); ++dst)
        for (EdgeId e = off[dst]; e < off[dst + 1]; ++e) {
            if (e > off[dst]) CHECK(src[e - 1] < src[e]);
            CHECK(s.graph.has_edge(dst, src[e]));  // the reverse direction is there too
            CHECK(mol->getBondBetweenAtoms(src[e], dst) != nullptr);
        }
}

}  // namespace

TEST_CASE("featurize: widths and offsets are derived from the tables", "[chem][featurize]") {
    for (const auto* layout : {&atoms(), &bonds()}) {
        int offset = 0;
        for (const auto& b : *layout) {
            INFO(b.name);
            CHECK(b.offset == offset);
            CHECK(b.width == (b.kind == FeatureKind::one_hot ? static_cast<int>(b.choices.size()) + 1 : 1));
            CHECK(!b.description.empty());
            offset += b.width;
        }
        CHECK(offset == (layout == &atoms() ? chem::atom_feature_width() : chem::bond_feature_width()));
    }
    // OGB's nine atom features plus the mass; bond type, conjugation, ring, stereo
    CHECK(atoms().size() == 10);
    CHECK(bonds().size() == 4);
    CHECK(block(atoms(), "atomic_num").choices.size() == 118);
    CHECK(block(atoms(), "degree").choices.size() == 11);
    CHECK(block(atoms(), "formal_charge").choices.front() == "-5");
    CHECK(block(atoms(), "formal_charge").choices.back() == "5");
    CHECK(block(atoms(), "num_hs").choices.size() == 9);
    CHECK(block(atoms(), "radical_electrons").choices.size() == 5);
    CHECK(block(atoms(), "hybridization").choices == std::vector<std::string>{"SP", "SP2", "SP3", "SP3D", "SP3D2"});
    CHECK(block(bonds(), "stereo").width == 7);
    CHECK(chem::featurizer_id() == "gatkit-atom-bond-v1");
}

TEST_CASE("featurize: benzene", "[chem][featurize]") {
    const GraphSample s = featurize("c1ccccc1");
    REQUIRE(s.graph.num_nodes() == 6);
    REQUIRE(s.graph.num_edges() == 12);
    for (Eigen::Index i = 0; i < 6; ++i) {
        CHECK(choice(s.x, i, block(atoms(), "atomic_num")) == "6");
        CHECK(choice(s.x, i, block(atoms(), "degree")) == "2");
        CHECK(choice(s.x, i, block(atoms(), "num_hs")) == "1");
        CHECK(choice(s.x, i, block(atoms(), "formal_charge")) == "0");
        CHECK(choice(s.x, i, block(atoms(), "hybridization")) == "SP2");
        CHECK(choice(s.x, i, block(atoms(), "chirality")) == "CHI_UNSPECIFIED");
        CHECK(value(s.x, i, block(atoms(), "is_aromatic")) == 1.0f);
        CHECK(value(s.x, i, block(atoms(), "is_in_ring")) == 1.0f);
        CHECK(value(s.x, i, block(atoms(), "mass")) == Approx(0.12011).epsilon(1e-4));
    }
    for (Eigen::Index e = 0; e < 12; ++e) {
        CHECK(choice(s.edge_attr, e, block(bonds(), "bond_type")) == "AROMATIC");
        CHECK(value(s.edge_attr, e, block(bonds(), "is_in_ring")) == 1.0f);
        CHECK(value(s.edge_attr, e, block(bonds(), "is_conjugated")) == 1.0f);
        CHECK(choice(s.edge_attr, e, block(bonds(), "stereo")) == "STEREONONE");
    }
    check_invariants("c1ccccc1");
}

TEST_CASE("featurize: ethanol", "[chem][featurize]") {
    const GraphSample s = featurize("CCO");
    REQUIRE(s.graph.num_nodes() == 3);
    REQUIRE(s.graph.num_edges() == 4);
    CHECK(s.graph.edge_list() == std::vector<std::pair<NodeId, NodeId>>{{1, 0}, {0, 1}, {2, 1}, {1, 2}});
    CHECK(choice(s.x, 0, block(atoms(), "num_hs")) == "3");
    CHECK(choice(s.x, 1, block(atoms(), "num_hs")) == "2");
    CHECK(choice(s.x, 2, block(atoms(), "atomic_num")) == "8");
    CHECK(choice(s.x, 2, block(atoms(), "num_hs")) == "1");
    CHECK(choice(s.x, 1, block(atoms(), "degree")) == "2");
    CHECK(choice(s.x, 1, block(atoms(), "hybridization")) == "SP3");
    CHECK(value(s.x, 2, block(atoms(), "mass")) == Approx(0.15999).epsilon(1e-3));
    for (Eigen::Index i = 0; i < 3; ++i) {
        CHECK(value(s.x, i, block(atoms(), "is_aromatic")) == 0.0f);
        CHECK(value(s.x, i, block(atoms(), "is_in_ring")) == 0.0f);
    }
    for (Eigen::Index e = 0; e < 4; ++e) {
        CHECK(choice(s.edge_attr, e, block(bonds(), "bond_type")) == "SINGLE");
        CHECK(value(s.edge_attr, e, block(bonds(), "is_in_ring")) == 0.0f);
    }
    check_invariants("CCO");
}

TEST_CASE("featurize: charged atoms, chirality, stereo, dummy atom", "[chem][featurize]") {
    const GraphSample ammonium = featurize("C[N+](C)(C)C");
    CHECK(choice(ammonium.x, 1, block(atoms(), "formal_charge")) == "1");
    CHECK(choice(ammonium.x, 1, block(atoms(), "degree")) == "4");
    CHECK(choice(ammonium.x, 1, block(atoms(), "num_hs")) == "0");
    CHECK(choice(ammonium.x, 0, block(atoms(), "formal_charge")) == "0");

    const GraphSample acetate = featurize("CC(=O)[O-]");
    CHECK(choice(acetate.x, 3, block(atoms(), "formal_charge")) == "-1");

    const GraphSample alanine = featurize("C[C@@H](N)C(=O)O");
    CHECK(choice(alanine.x, 1, block(atoms(), "chirality")) == "CHI_TETRAHEDRAL_CW");
    const GraphSample alanine2 = featurize("C[C@H](N)C(=O)O");
    CHECK(choice(alanine2.x, 1, block(atoms(), "chirality")) == "CHI_TETRAHEDRAL_CCW");

    const auto butene = chem::parse_smiles("C/C=C/C");
    const GraphSample b = chem::featurize_molecule(*butene);
    for (EdgeId e = 0; e < b.graph.num_edges(); ++e) {
        const auto [src, dst] = b.graph.edge_list()[e];
        const bool is_double = butene->getBondBetweenAtoms(src, dst)->getBondType() == RDKit::Bond::DOUBLE;
        CHECK(choice(b.edge_attr, e, block(bonds(), "stereo")) == (is_double ? "STEREOE" : "STEREONONE"));
    }

    const GraphSample radical = featurize("[CH3]");
    CHECK(choice(radical.x, 0, block(atoms(), "radical_electrons")) == "1");

    // '*' has atomic number 0: not in 1..118, so "other"
    const GraphSample dummy = featurize("*C");
    CHECK(choice(dummy.x, 0, block(atoms(), "atomic_num")) == "other");
    CHECK(choice(dummy.x, 1, block(atoms(), "atomic_num")) == "6");
    for (const char* s : {"C[N+](C)(C)C", "CC(=O)[O-]", "C[C@@H](N)C(=O)O", "C/C=C/C", "[CH3]", "*C", "C#N", "[Cu-3]"})
        check_invariants(s);
}

TEST_CASE("featurize: one atom, no bonds", "[chem][featurize]") {
    for (const char* smiles : {"C", "[Na+]", "O"}) {
        INFO(smiles);
        const GraphSample s = featurize(smiles);
        CHECK(s.graph.num_nodes() == 1);
        CHECK(s.graph.num_edges() == 0);
        CHECK(s.x.rows() == 1);
        CHECK(s.edge_attr.rows() == 0);
        CHECK(s.edge_attr.cols() == chem::bond_feature_width());
        CHECK(choice(s.x, 0, block(atoms(), "degree")) == "0");
    }
    CHECK(choice(featurize("O").x, 0, block(atoms(), "num_hs")) == "2");
}

TEST_CASE("featurize: salts stay one graph", "[chem][featurize]") {
    const GraphSample nacl = featurize("[Na+].[Cl-]");
    CHECK(nacl.graph.num_nodes() == 2);
    CHECK(nacl.graph.num_edges() == 0);
    CHECK(choice(nacl.x, 0, block(atoms(), "formal_charge")) == "1");
    CHECK(choice(nacl.x, 1, block(atoms(), "formal_charge")) == "-1");
    CHECK(choice(nacl.x, 1, block(atoms(), "atomic_num")) == "17");

    const GraphSample sodium_acetate = featurize("CC(=O)[O-].[Na+]");
    CHECK(sodium_acetate.graph.num_nodes() == 5);
    CHECK(sodium_acetate.graph.num_edges() == 6);
    CHECK(sodium_acetate.graph.in_degree(4) == 0);
    check_invariants("CC(=O)[O-].[Na+]");
}

TEST_CASE("featurize: edge_attr row e describes the bond of edge e", "[chem][featurize]") {
    const std::map<RDKit::Bond::BondType, std::string> names = {{RDKit::Bond::SINGLE, "SINGLE"},
                                                                {RDKit::Bond::DOUBLE, "DOUBLE"},
                                                                {RDKit::Bond::TRIPLE, "TRIPLE"},
                                                                {RDKit::Bond::AROMATIC, "AROMATIC"}};
    for (const char* smiles : {"C#CC=CC(=O)c1ccccc1N", "O=C1CCC(=O)N1C#N", "N#CC1=CC=CC=C1.OC=O"}) {
        INFO(smiles);
        const auto mol = chem::parse_smiles(smiles);
        const GraphSample s = chem::featurize_molecule(*mol);
        const auto& off = s.graph.in_offsets();
        for (NodeId dst = 0; dst < s.graph.num_nodes(); ++dst)
            for (EdgeId e = off[dst]; e < off[dst + 1]; ++e) {
                const NodeId src = s.graph.in_src()[e];
                const RDKit::Bond* bond = mol->getBondBetweenAtoms(src, dst);
                REQUIRE(bond);
                CHECK(choice(s.edge_attr, e, block(bonds(), "bond_type")) == names.at(bond->getBondType()));
                CHECK(value(s.edge_attr, e, block(bonds(), "is_in_ring")) == (mol->getRingInfo()->numBondRings(bond->getIdx()) > 0 ? 1.0f : 0.0f));
            }
        check_invariants(smiles);
    }
}

TEST_CASE("featurize: docs/features.md lists every block with its offset and width", "[chem][featurize]") {
    std::ifstream in(std::string(GATKIT_SOURCE_DIR) + "/docs/features.md");
    REQUIRE(in);
    // rows "| `name` | kind | choices | offset | width |", per section
    std::map<std::string, std::map<std::string, std::vector<std::string>>> rows;  // section → name → cells
    std::string section, line;
    while (std::getline(in, line)) {
        if (line.rfind("## ", 0) == 0) section = line.find("Atom") != std::string::npos ? "atom" : line.find("Bond") != std::string::npos ? "bond" : "";
        if (section.empty() || line.rfind("| `", 0) != 0) continue;
        std::vector<std::string> cells;
        std::stringstream ss(line.substr(1));
        std::string cell;
        while (std::getline(ss, cell, '|')) {
            const auto a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
            cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
        }
        REQUIRE(cells.size() >= 5);
        rows[section][cells[0].substr(1, cells[0].size() - 2)] = cells;
    }
    const std::map<FeatureKind, std::string> kinds = {{FeatureKind::one_hot, "one-hot"}, {FeatureKind::flag, "flag"}, {FeatureKind::scalar, "scalar"}};
    for (const auto& [section, layout] : {std::pair{std::string("atom"), &atoms()}, std::pair{std::string("bond"), &bonds()}}) {
        CHECK(rows[section].size() == layout->size());
        for (const auto& b : *layout) {
            INFO(section << " block " << b.name);
            REQUIRE(rows[section].count(b.name) == 1);
            const auto& cells = rows[section][b.name];
            CHECK(cells[1] == kinds.at(b.kind));
            CHECK(cells[3] == std::to_string(b.offset));
            CHECK(cells[4] == std::to_string(b.width));
        }
    }
}
