// The molecule loader (io/molecules.hpp) on an SDF: mol blocks through RDKit, the SD property "y"
// as the label.
#include "fuzz_target.hpp"

#include "gatkit/io/molecules.hpp"

GATKIT_FUZZ_TARGET(sdf) {
    const std::string path = gatkit::fuzz::write("input.sdf", input);
    gatkit::load_molecules(path, {.format = "sdf", .target_columns = {"y"}});
}
