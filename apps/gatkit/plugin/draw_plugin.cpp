// gatkit_draw.so, the drawing plugin of the `gatkit` program (src/chem/draw_backend.hpp): RDKit's
// drawing behind one C entry point, which apps/gatkit/draw_loader.cpp looks up with dlsym. Built
// with hidden visibility: only the entry point is exported, and the plugin's calls bind to its
// own copy of rdkit_molecule_svg, not to the program's loader of the same name.
#include "draw_backend.hpp"

#include <exception>
#include <string>

// The interface's version: the loader refuses a plugin of another one.
extern "C" __attribute__((visibility("default"))) int gatkit_draw_plugin_version() noexcept { return 1; }

// Draws as rdkit_molecule_svg does: 0 and the SVG in *svg, or 1 and the reason in *error.
// Nothing is thrown across the C boundary.
extern "C" __attribute__((visibility("default"))) int gatkit_draw_molecule_svg(const RDKit::ROMol* mol,
                                                                              const gatkit::chem::detail::MoleculeDrawing* drawing,
                                                                              std::string* svg, std::string* error) noexcept {
    try {
        *svg = gatkit::chem::detail::rdkit_molecule_svg(*mol, *drawing);
        return 0;
    } catch (const std::exception& e) {
        *error = e.what();
    } catch (...) {
        *error = "an exception that is not a std::exception";
    }
    return 1;
}
