// The LINQS reader (io/linqs.hpp): the input is "<.content bytes> 0x1E <.cites bytes>".
#include "fuzz_target.hpp"

#include "gatkit/io/linqs.hpp"

GATKIT_FUZZ_TARGET(linqs) {
    const auto parts = gatkit::fuzz::split_parts(input, 2);
    gatkit::fuzz::write("x.content", parts[0]);
    gatkit::fuzz::write("x.cites", parts[1]);
    gatkit::load_linqs(gatkit::fuzz::scratch_dir() + "/x");
}
