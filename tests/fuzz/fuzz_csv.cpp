// The RFC 4180 CSV reader (io/csv.hpp) on arbitrary bytes: header, every record, a column lookup.
#include "fuzz_target.hpp"

#include "gatkit/io/csv.hpp"

GATKIT_FUZZ_TARGET(csv) {
    const std::string path = gatkit::fuzz::write("input.csv", input);
    gatkit::CsvReader reader(path);
    std::vector<std::string> fields;
    while (reader.next(fields)) {
    }
    reader.column("smiles");
}
