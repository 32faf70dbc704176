// The one step of attention_svg that needs RDKit's drawing library (MolDraw2D, and through it
// cairo, X11, fontconfig and ~20 more shared libraries): the molecule panel as RDKit's SVG.
//
// The library defines it in draw_rdkit.cpp. The `gatkit` program defines it itself
// (apps/gatkit/draw_loader.cpp): it opens the drawing plugin gatkit_draw.so (draw_rdkit.cpp
// again, with apps/gatkit/plugin/draw_plugin.cpp) on first use, so that the program starts
// without those libraries, which took ~15 ms of every run (a third of `gatkit --version`), and
// only `gatkit explain` loads them. The program's own definition is found first at link time,
// so draw_rdkit.o is never taken from libgatkit.a there; keep that file to this one function.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem::detail {

struct MoleculeDrawing {
    int width = 0, height = 0;           // px
    bool atom_indices = false;           // each atom's index beside it
    double highlight_radius = 0.4;       // RDKit's highlight circle, in its units
    // One highlight colour per atom and per bond (index order), r g b in [0, 1].
    std::vector<std::array<double, 3>> atom_rgb, bond_rgb;
};

// RDKit's SVG document of `mol` (2D coordinates computed on a copy) as `d` asks. Throws what
// RDKit throws, or std::runtime_error (the plugin missing or failing, with its reason).
std::string rdkit_molecule_svg(const RDKit::ROMol& mol, const MoleculeDrawing& d);

}  // namespace gatkit::chem::detail
