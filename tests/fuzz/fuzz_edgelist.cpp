// The edge-list reader (io/edgelist.hpp): the input is "<edges> 0x1E <features CSV> 0x1E <labels>".
// The edges are read as SNAP and as CSV, directed and undirected; the feature and label files
// are passed when their part is not empty, and the loaded network's graph is built.
#include "fuzz_target.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/edgelist.hpp"

namespace {

void load(const std::string& edges, const gatkit::NetworkOptions& options, const std::string& features, const std::string& labels) {
    try {
        gatkit::NetworkDataset data = gatkit::load_network(edges, options, features, labels);
        data.graph();
    } catch (const gatkit::Error&) {
        // Refused with a gatkit::Error: as expected for bad input; try the next reading.
    }
}

}  // namespace

GATKIT_FUZZ_TARGET(edgelist) {
    const auto parts = gatkit::fuzz::split_parts(input, 3);
    const std::string snap = gatkit::fuzz::write("edges.txt", parts[0]);
    const std::string csv = gatkit::fuzz::write("edges.csv", parts[0]);
    const std::string features = parts[1].empty() ? "" : gatkit::fuzz::write("features.csv", parts[1]);
    const std::string labels = parts[2].empty() ? "" : gatkit::fuzz::write("labels.txt", parts[2]);
    load(snap, {.directed = false}, features, labels);
    load(snap, {.directed = true}, "", "");
    load(csv, {.directed = false}, features, labels);
}
