#include "gatkit/chem/scaffold.hpp"

#include <GraphMol/ChemTransforms/ChemTransforms.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/RWMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <memory>

namespace gatkit::chem {

std::string murcko_scaffold(const RDKit::ROMol& mol, bool include_chirality) {
    std::unique_ptr<RDKit::ROMol> decomposed(RDKit::MurckoDecompose(mol));
    if (!decomposed || decomposed->getNumAtoms() == 0) return "";
    // MurckoDecompose returns its result unsanitised. RDKit Python's GetScaffoldForMol only
    // recomputes the property cache and the rings; a full sanitizeMol would re-perceive
    // aromaticity and can change the string (or fail on fragments RDKit cannot kekulise), so
    // the same three steps as Python are done here.
    RDKit::RWMol scaffold(*decomposed);
    scaffold.clearComputedProps();
    scaffold.updatePropertyCache(true);
    RDKit::MolOps::symmetrizeSSSR(scaffold);
    return RDKit::MolToSmiles(scaffold, include_chirality);
}

}  // namespace gatkit::chem
