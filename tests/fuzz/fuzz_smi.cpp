// The molecule loader (io/molecules.hpp) on a .smi file: "SMILES [name]" lines through RDKit.
#include "fuzz_target.hpp"

#include "gatkit/io/molecules.hpp"

GATKIT_FUZZ_TARGET(smi) {
    const std::string path = gatkit::fuzz::write("input.smi", input);
    gatkit::load_molecules(path, {.format = "smi"});
}
