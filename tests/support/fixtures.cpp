#include "support/fixtures.hpp"

#include "gatkit/graph/build.hpp"

#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace gatkit::test {

Graph random_graph(NodeId n, double p, Rng& rng, bool allow_self_loops) {
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (NodeId u = 0; u < n; ++u)
        for (NodeId v = 0; v < n; ++v)
            if ((u != v || allow_self_loops) && rng.uniform() < p) edges.emplace_back(u, v);
    return build_graph(n, std::move(edges));
}

TempDir::TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gatkit-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

}  // namespace gatkit::test
