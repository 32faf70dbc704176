// The TU reader (io/tu.hpp). The input is the data set's files in this order, separated by 0x1E:
// A, graph_indicator, graph_labels, node_labels, node_attributes, edge_labels, edge_attributes.
// An optional file is written only when its part is not empty.
#include "fuzz_target.hpp"

#include "gatkit/io/tu.hpp"

#include <array>
#include <cstddef>

GATKIT_FUZZ_TARGET(tu) {
    static constexpr std::array<const char*, 7> kFiles = {"A", "graph_indicator", "graph_labels", "node_labels",
                                                          "node_attributes", "edge_labels", "edge_attributes"};
    const auto parts = gatkit::fuzz::split_parts(input, kFiles.size());
    for (std::size_t i = 0; i < kFiles.size(); ++i)
        if (i < 3 || !parts[i].empty()) gatkit::fuzz::write(std::string("DS_") + kFiles[i] + ".txt", parts[i]);
    gatkit::load_tu(gatkit::fuzz::scratch_dir() + "/DS");
}
