// LINQS's tab layout (io/linqs.hpp, PubMed-Diabetes): the input is
// "<X.NODE.paper.tab bytes> 0x1E <X.DIRECTED.cites.tab bytes>". The pair is read as a node data
// set, and the links file alone as an edge list (load_network, as link tasks read it).
#include "fuzz_target.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/edgelist.hpp"
#include "gatkit/io/linqs.hpp"

GATKIT_FUZZ_TARGET(linqs_tab) {
    const auto parts = gatkit::fuzz::split_parts(input, 2);
    gatkit::fuzz::write("x.NODE.paper.tab", parts[0]);
    const std::string links = gatkit::fuzz::write("x.DIRECTED.cites.tab", parts[1]);
    try {
        gatkit::load_linqs(gatkit::fuzz::scratch_dir() + "/x");
    } catch (const gatkit::Error&) {
        // refused: expected for bad input; the links are read alone next
    }
    gatkit::load_network(links).graph();
}
