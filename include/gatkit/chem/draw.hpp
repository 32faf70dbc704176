// Pictures of molecules shaded by attention (what `gatkit explain --smiles` writes).
//
// The picture is one SVG, top to bottom: the title (e.g. the prediction), the molecule as RDKit
// draws it (MolDraw2DSVG on 2D coordinates from RDDepict::compute2DCoords, on a copy), and a
// legend (an optional caption line, then one colour bar for atoms and one for bonds). Atoms and bonds are highlighted with
// a white → red map, each kind normalised to its own maximum: t = score / max, colour =
// (1 − t)·white + t·red; a score of 0 is white (invisible), the maximum full red. The bars are
// the same map as SVG gradients, labelled 0 and the maximum.
#pragma once

#include "gatkit/core/types.hpp"

#include <string>
#include <vector>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

struct SvgOptions {
    int width = 440;                                         // px, the whole picture
    int mol_height = 320;                                    // px, the molecule panel
    std::string caption{};                                   // a line above the legend (e.g. which layer and head); "" for none
    std::string atom_label = "atoms: attention received";    // legend text of the atom bar
    std::string bond_label = "bonds: mean attention";        // legend text of the bond bar
    bool atom_indices = false;                               // write each atom's index beside it
};

// The highlight colour of score / max (t clamped to [0, 1]) as "#RRGGBB".
std::string attention_colour(double t);

// For every bond of `mol`, in bond-index order: (begin atom, end atom). Atom index = node id of
// featurize_molecule's graph, so these are the pairs to score a molecule's bonds by.
std::vector<NodePair> bond_atom_pairs(const RDKit::ROMol& mol);

// The picture described above. atom_score has one entry per atom, bond_score one per bond
// (bond-index order), every one finite and >= 0; otherwise ShapeError (sizes) or ConfigError
// (values) naming the entry. `title` is plain text (escaped here). RDKit's log output is
// captured, never printed.
std::string attention_svg(const RDKit::ROMol& mol, const std::vector<double>& atom_score, const std::vector<double>& bond_score,
                          const std::string& title, const SvgOptions& options = {});

}  // namespace gatkit::chem
