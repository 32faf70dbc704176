// RDKit's drawing of one molecule (draw_backend.hpp): the only file of the library that uses
// MolDraw2D. Keep it to this one function (draw_backend.hpp says why).
#include "draw_backend.hpp"

#include <GraphMol/Depictor/RDDepictor.h>
#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/RWMol.h>

namespace gatkit::chem::detail {

std::string rdkit_molecule_svg(const RDKit::ROMol& mol, const MoleculeDrawing& d) {
    const auto colours = [](const std::map<int, std::vector<double>>& rgb) {
        std::map<int, RDKit::DrawColour> out;
        for (const auto& [index, c] : rgb) out[index] = RDKit::DrawColour(c.at(0), c.at(1), c.at(2));
        return out;
    };
    std::map<int, RDKit::DrawColour> atom_colour = colours(d.atom_rgb), bond_colour = colours(d.bond_rgb);
    RDKit::RWMol copy(mol);
    RDDepict::compute2DCoords(copy);
    RDKit::MolDraw2DSVG drawer(d.width, d.height);
    drawer.drawOptions().addAtomIndices = d.atom_indices;
    drawer.drawOptions().highlightRadius = d.highlight_radius;
    drawer.drawMolecule(copy, &d.atoms, &d.bonds, &atom_colour, &bond_colour);
    drawer.finishDrawing();
    return drawer.getDrawingText();
}

}  // namespace gatkit::chem::detail
