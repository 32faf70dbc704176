// SMILES parsing through RDKit: RDKit's failures become gatkit::ParseError with its reason.
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"

#include <GraphMol/ROMol.h>
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
