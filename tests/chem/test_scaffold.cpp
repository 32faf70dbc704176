// Bemis–Murcko scaffolds against RDKit Python (2022.09.3):
//   MurckoScaffold.MurckoScaffoldSmiles(mol=Chem.MolFromSmiles(s), includeChirality=c)
#include "gatkit/chem/scaffold.hpp"
#include "gatkit/chem/smiles.hpp"

#include <GraphMol/ROMol.h>
#include <catch2/catch.hpp>

using namespace gatkit;

namespace {

struct Case {
    const char* smiles;
    const char* scaffold;
    const char* scaffold_with_chirality;
};

const Case cases[] = {
    {"Cc1cc(Oc2nccc(CCC)c2)ccc1", "c1ccc(Oc2ccccn2)cc1", "c1ccc(Oc2ccccn2)cc1"},  // RDKit's docstring example
    {"CCO", "", ""},                                                              // acyclic
    {"CC1CCCC1=O", "O=C1CCCC1", "O=C1CCCC1"},                                     // exocyclic =O is kept
    {"Cn1cccc1", "c1cc[nH]c1", "c1cc[nH]c1"},                                     // N loses its methyl, gains an H
    {"CC(=O)Oc1ccccc1C(=O)O", "c1ccccc1", "c1ccccc1"},                            // aspirin
    {"O=C1NC(=O)c2ccccc21", "O=C1NC(=O)c2ccccc21", "O=C1NC(=O)c2ccccc21"},        // phthalimide: all ring
    {"C[C@H]1C[C@@H](c2ccccc2)OC1", "c1ccc(C2CCCO2)cc1", "c1ccc([C@@H]2CCCO2)cc1"},
    {"CCN(CC)C(=O)[C@H]1CN(C)[C@@H]2Cc3c[nH]c4cccc(c34)C2=C1",  // LSD
     "C1=C2c3cccc4[nH]cc(c34)CC2NCC1", "C1=C2c3cccc4[nH]cc(c34)C[C@H]2NCC1"},
};

}  // namespace

TEST_CASE("murcko_scaffold equals RDKit Python MurckoScaffoldSmiles", "[chem][scaffold]") {
    for (const Case& c : cases) {
        INFO(c.smiles);
        const auto mol = chem::parse_smiles(c.smiles);
        CHECK(chem::murcko_scaffold(*mol) == c.scaffold);
        CHECK(chem::murcko_scaffold(*mol, true) == c.scaffold_with_chirality);
    }
}

TEST_CASE("murcko_scaffold: same scaffold for different side chains", "[chem][scaffold]") {
    CHECK(chem::murcko_scaffold(*chem::parse_smiles("Cc1ccccc1")) ==
          chem::murcko_scaffold(*chem::parse_smiles("OCCc1ccccc1")));
}
