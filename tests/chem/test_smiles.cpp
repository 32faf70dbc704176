// SMILES parsing through RDKit: RDKit's failures become gatkit::ParseError with its reason.
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"

#include "gatkit/io/csv.hpp"

#include <GraphMol/ROMol.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>
#include <catch2/catch.hpp>

using namespace gatkit;

TEST_CASE("parse_smiles: valid molecules", "[chem]") {
    const auto phenol = chem::parse_smiles("c1ccccc1O");
    REQUIRE(phenol);
    CHECK(chem::atom_count(*phenol) == 7);
    CHECK(phenol->getNumBonds() == 7);  // 6 ring bonds + C–O

    const auto ethanol = chem::parse_smiles("CCO");
    CHECK(chem::atom_count(*ethanol) == 3);  // hydrogens are implicit, not counted

    const auto salt = chem::parse_smiles("[Na+].[Cl-]");
    CHECK(chem::atom_count(*salt) == 2);
}

TEST_CASE("parse_smiles: syntax error names the SMILES and RDKit's reason", "[chem]") {
    CHECK_THROWS_AS(chem::parse_smiles("C1CC"), ParseError);
    CHECK_THROWS_WITH(chem::parse_smiles("C1CC"), Catch::Contains("SMILES 'C1CC' rejected by RDKit: ") &&
                                                      Catch::Contains("ring", Catch::CaseSensitive::No));
    // unbalanced parenthesis
    CHECK_THROWS_WITH(chem::parse_smiles("CC(C"), Catch::Contains("SMILES 'CC(C' rejected by RDKit: "));
    // RDKit logs several lines for some errors; the reason is free of their "[HH:MM:SS] " prefix
    for (const std::string bad : {"C1CC((", "CC)C", "X"}) {
        INFO(bad);
        const std::string head = "SMILES '" + bad + "' rejected by RDKit: ";
        try {
            chem::parse_smiles(bad);
            FAIL("no ParseError");
        } catch (const ParseError& e) {
            const std::string what = e.what();
            REQUIRE(what.rfind(head, 0) == 0);
            CHECK(what.size() > head.size() + 5);
            CHECK(what[head.size()] != '[');
        }
    }
    // a parse after a failure still works (the log capture is restored)
    CHECK(chem::atom_count(*chem::parse_smiles("C")) == 1);
}

TEST_CASE("parse_smiles: valence error mentions valence", "[chem]") {
    CHECK_THROWS_AS(chem::parse_smiles("[NH5]"), ParseError);
    CHECK_THROWS_WITH(chem::parse_smiles("[NH5]"), Catch::Contains("[NH5]") && Catch::Contains("valence", Catch::CaseSensitive::No));
    CHECK_THROWS_WITH(chem::parse_smiles("C(C)(C)(C)(C)C"), Catch::Contains("valence", Catch::CaseSensitive::No));
}

TEST_CASE("parse_smiles: empty input", "[chem]") {
    CHECK_THROWS_AS(chem::parse_smiles(""), ParseError);
    CHECK_THROWS_WITH(chem::parse_smiles(""), Catch::Contains("SMILES ''"));
}

TEST_CASE("parse_smiles: a SMILES longer than kMaxSmilesLength is refused by its length, messages are clipped",
          "[chem][edge-cases]") {
    // 10 MB of carbons: RDKit would take hours (its CIP ranking is steeply superlinear on chains)
    const std::string huge(10 * 1024 * 1024, 'C');
    try {
        chem::parse_smiles(huge);
        FAIL("no ParseError");
    } catch (const ParseError& e) {
        const std::string what = e.what();
        CHECK_THAT(what, Catch::Contains("10485760 characters long, more than the 100000 gatkit reads"));
        CHECK(what.size() < 300);
    }
    // just under the cap, and invalid: RDKit's reason with the SMILES clipped to 200 characters
    const std::string invalid = std::string(chem::kMaxSmilesLength - 1, 'C') + "(";
    REQUIRE(invalid.size() == chem::kMaxSmilesLength);
    try {
        chem::parse_smiles(invalid);
        FAIL("no ParseError");
    } catch (const ParseError& e) {
        const std::string what = e.what();
        CHECK_THAT(what, Catch::StartsWith("SMILES 'CCCC") && Catch::Contains("...' rejected by RDKit: "));
        CHECK(what.size() < 1000);
    }
}

// ---- parse_smiles_for_features: the features of parse_smiles, faster -----------------------

namespace {

// Everything featurize_molecule reads, atom by atom and bond by bond (and the ring flags it
// derives), as text, so that a difference names itself.
std::string feature_view(const RDKit::ROMol& m) {
    std::string out;
    for (const RDKit::Atom* a : m.atoms())
        out += "a" + std::to_string(a->getAtomicNum()) + "," + std::to_string(static_cast<int>(a->getChiralTag())) + "," +
               std::to_string(a->getDegree()) + "," + std::to_string(a->getFormalCharge()) + "," + std::to_string(a->getTotalNumHs()) + "," +
               std::to_string(a->getNumRadicalElectrons()) + "," + std::to_string(static_cast<int>(a->getHybridization())) + "," +
               std::to_string(a->getIsAromatic()) + "," + std::to_string(m.getRingInfo()->numAtomRings(a->getIdx()) > 0) + "," +
               std::to_string(a->getMass()) + ";";
    for (const RDKit::Bond* b : m.bonds())
        out += "b" + std::to_string(b->getBeginAtomIdx()) + "-" + std::to_string(b->getEndAtomIdx()) + "," +
               std::to_string(static_cast<int>(b->getBondType())) + "," + std::to_string(b->getIsConjugated()) + "," +
               std::to_string(m.getRingInfo()->numBondRings(b->getIdx()) > 0) + "," + std::to_string(static_cast<int>(b->getStereo())) + ";";
    return out;
}

std::string parse_outcome(std::unique_ptr<RDKit::ROMol> (*parse)(const std::string&), const std::string& smiles) {
    try {
        return feature_view(*parse(smiles));
    } catch (const gatkit::ParseError& e) {
        return std::string("error: ") + e.what();
    }
}

}  // namespace

TEST_CASE("parse_smiles_for_features: the same features and errors as parse_smiles", "[chem]") {
    // stereocentres (real, cleaned away, implicit-H, ring, S/P), E/Z bonds (real, cleaned away,
    // in rings), explicit and isotopic hydrogens, charges, radicals, aromatic heterocycles, salts,
    // dummy atoms, and invalid input (syntax, valence, aromaticity, an empty ring, nothing)
    const std::vector<std::string> smiles = {
        "C[C@H](N)C(=O)O", "C[C@@H](F)Cl", "C[C@H](C)C", "F[C@](Cl)(Br)I", "C[C@@]1(O)CCCCC1", "C[S@](=O)CC", "C[P@](=O)(O)CC",
        "C/C=C/C", "C/C=C\\C", "C/C=C(/C)C", "F/C=C/C=C/F", "C1=CCCCCCC/C=C\\1", "C1CC/C=C/CCC1", "[H]C([H])([H])O", "C[C@]([H])(F)Cl",
        "[2H]C([2H])O", "[H][H]", "[NH4+].[Cl-]", "[O-]C(=O)c1ccccc1", "[CH3]", "C[N+](C)(C)C", "c1ccncc1", "c1cc[nH]c1", "O=c1cc[nH]cc1",
        "CC(C)(C)c1ccc(O)cc1", "[Na+].[O-]C(=O)C", "*CC*", "C1CC", "C[N](C)(C)(C)C", "c1cccc1", "", "C(", "N[C@@H](C)C(=O)N[C@@H](Cc1ccccc1)C(=O)O",
        "C\\C=C/[C@H](O)/C=C/C", "OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O", "C=C=C", "CC(=O)Oc1ccccc1C(=O)O",
    };
    for (const std::string& s : smiles) {
        INFO("SMILES '" << s << "'");
        CHECK(parse_outcome(gatkit::chem::parse_smiles_for_features, s) == parse_outcome(gatkit::chem::parse_smiles, s));
    }
    // a stereo mark RDKit cleans away leaves no tag in either parse; a real one stays
    CHECK(gatkit::chem::parse_smiles_for_features("C[C@H](C)C")->getAtomWithIdx(1)->getChiralTag() == RDKit::Atom::CHI_UNSPECIFIED);
    CHECK(gatkit::chem::parse_smiles_for_features("C[C@H](N)C(=O)O")->getAtomWithIdx(1)->getChiralTag() != RDKit::Atom::CHI_UNSPECIFIED);
    CHECK(gatkit::chem::parse_smiles_for_features("C/C=C/C")->getBondWithIdx(1)->getStereo() != RDKit::Bond::STEREONONE);
}

TEST_CASE("parse_smiles_for_features: the same features and errors on every MoleculeNet file and NCI first_5K",
          "[chem][shared-data]") {
    const std::string dir = std::string(GATKIT_SHARED_DATA) + "/moleculenet/";
    const std::vector<std::string> files = {dir + "BBBP.csv",   dir + "clintox.csv", dir + "delaney-processed.csv", dir + "Lipophilicity.csv",
                                            dir + "tox21.csv",  dir + "HIV.csv",     "/usr/share/RDKit/Data/NCI/first_5K.smi"};
    for (const std::string& path : files) {
        if (!std::filesystem::exists(path)) {
            std::cout << "SKIPPED: " << path << " not found\n";
            WARN("SKIPPED: " << path << " not found");
            continue;
        }
        std::vector<std::string> smiles;
        if (path.ends_with(".csv")) {
            gatkit::CsvReader csv(path);
            const std::size_t col = csv.column("smiles");
            std::vector<std::string> fields;
            while (csv.next(fields)) smiles.push_back(fields[col]);
        } else {
            std::ifstream in(path);
            std::string line;
            while (std::getline(in, line))
                if (const auto end = line.find_first_of(" \t"); !line.empty()) smiles.push_back(line.substr(0, end));
        }
        std::size_t differ = 0;
        for (const std::string& s : smiles)
            if (parse_outcome(gatkit::chem::parse_smiles_for_features, s) != parse_outcome(gatkit::chem::parse_smiles, s)) {
                if (++differ <= 3) UNSCOPED_INFO("differs: " << s);
            }
        INFO(path << ": " << smiles.size() << " SMILES");
        CHECK(smiles.size() > 1000);
        CHECK(differ == 0);
    }
}
