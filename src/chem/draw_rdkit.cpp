// RDKit's drawing of one molecule (draw_backend.hpp): the only file of the library that uses
// MolDraw2D. Keep it to this one function (draw_backend.hpp says why).
#include "draw_backend.hpp"

#include <GraphMol/Depictor/RDDepictor.h>
#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/RWMol.h>

#include <map>

namespace gatkit::chem::detail {

std::string rdkit_molecule_svg(const RDKit::ROMol& mol, const MoleculeDrawing& d) {
    // Every atom and bond highlighted, each in its colour.
    const auto highlight = [](const std::vector<std::array<double, 3>>& rgb, std::vector<int>& which,
                              std::map<int, RDKit::DrawColour>& colour) {
        for (std::size_t i = 0; i < rgb.size(); ++i) {
            which.push_back(static_cast<int>(i));
            colour[static_cast<int>(i)] = RDKit::DrawColour(rgb[i][0], rgb[i][1], rgb[i][2]);
        }
    };
    std::vector<int> atoms, bonds;
    std::map<int, RDKit::DrawColour> atom_colour, bond_colour;
    highlight(d.atom_rgb, atoms, atom_colour);
    highlight(d.bond_rgb, bonds, bond_colour);
    RDKit::RWMol copy(mol);
    RDDepict::compute2DCoords(copy);
    RDKit::MolDraw2DSVG drawer(d.width, d.height);
    drawer.drawOptions().addAtomIndices = d.atom_indices;
    drawer.drawOptions().highlightRadius = d.highlight_radius;
    drawer.drawMolecule(copy, &atoms, &bonds, &atom_colour, &bond_colour);
    drawer.finishDrawing();
    return drawer.getDrawingText();
}

}  // namespace gatkit::chem::detail
