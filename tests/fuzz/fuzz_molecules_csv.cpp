// The molecule loader (io/molecules.hpp) on a CSV: SMILES column found by name, RDKit parsing and
// featurisation of every row, labels from a column "y" when the header has one.
#include "fuzz_target.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/molecules.hpp"

GATKIT_FUZZ_TARGET(molecules_csv) {
    const std::string path = gatkit::fuzz::write("input.csv", input);
    gatkit::load_molecules(path, {.format = "csv"});
    gatkit::load_molecules(path, {.format = "csv", .target_columns = {"y"}});
}
