// The TU reader (io/tu.hpp). The input is the data set's files in this order, separated by 0x1E:
// A, graph_indicator, graph_labels, node_labels, node_attributes, edge_labels, edge_attributes.
// An optional file is written only when its part is not empty. Each input is read twice: with the
// folder's own layout, and with a model's (TuReadOptions).
#include "fuzz_target.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/tu.hpp"

#include <array>
#include <cstddef>
#include <string>

GATKIT_FUZZ_TARGET(tu) {
    static constexpr std::array<const char*, 7> kFiles = {"A", "graph_indicator", "graph_labels", "node_labels",
                                                          "node_attributes", "edge_labels", "edge_attributes"};
    const auto parts = gatkit::fuzz::split_parts(input, kFiles.size());
    for (std::size_t i = 0; i < kFiles.size(); ++i)
        if (i < 3 || !parts[i].empty()) gatkit::fuzz::write(std::string("DS_") + kFiles[i] + ".txt", parts[i]);
    const std::string path = gatkit::fuzz::scratch_dir() + "/DS";
    // As training reads a folder, then as predict reads one for a model with a fixed layout and
    // classes (labels may be missing): both must load or throw a gatkit::Error.
    try {
        gatkit::load_tu(path);
    } catch (const gatkit::Error&) {
    }
    gatkit::load_tu(path, {.layout = {3, 1, 2, 0}, .class_names = {"-1", "1", "2.5"}, .require_graph_labels = false});
}
