#include "support/fixtures.hpp"

#include "gatkit/graph/build.hpp"

#include <zlib.h>

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

void write_gz(const std::string& path, const std::string& text) {
    gzFile f = gzopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error("gzopen failed for " + path);
    const int n = gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    if (n != static_cast<int>(text.size())) throw std::runtime_error("gzwrite failed for " + path);
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
