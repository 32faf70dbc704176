#include "support/fixtures.hpp"

#include "gatkit/graph/build.hpp"

#include <zlib.h>

#include <fstream>
#include <numeric>
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

GraphDataset random_graph_dataset(int count, std::uint64_t seed) {
    GraphDataset d;
    d.name = "random-graphs";
    Rng rng(seed);
    d.targets.resize(count, 1);
    for (int g = 0; g < count; ++g) {
        GraphSample s;
        const NodeId n = 3 + static_cast<NodeId>(rng.below(5));
        s.graph = random_graph(n, 0.5, rng);
        s.x = random_matrix<float>(n, 4, rng);
        s.edge_attr.resize(0, 0);
        d.targets(g, 0) = s.x.sum() > 0 ? 1.0f : 0.0f;
        d.graphs.push_back(std::move(s));
    }
    d.target_names = {"positive"};
    return d;
}

std::vector<std::size_t> first_graphs(std::size_t n) {
    std::vector<std::size_t> out(n);
    std::iota(out.begin(), out.end(), std::size_t{0});
    return out;
}

GraphFitOptions tiny_graph_fit() {
    GraphFitOptions fit;
    fit.edge_features = false;
    fit.model.layers = 2;
    fit.model.heads = 2;
    fit.model.hidden = 4;
    fit.model.mlp_hidden = 8;
    return fit;
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

const std::vector<std::string> kNitrogenSmiles = {"CCO",  "CCN",  "c1ccccc1", "c1ccncc1", "CC(=O)O",     "CC(=O)N",     "CCCC",   "CCCN",
                                                  "OCCO", "NCCN", "c1ccc(O)cc1", "c1ccc(N)cc1", "CC(C)C", "CC(C)N", "C1CCCCC1", "C1CCNCC1",
                                                  "CCOC", "CCNC", "O=CC=O",   "N#CC#N",   "CCCCO",       "CCCCN",       "COC",    "CNC"};

std::string nitrogen_molecules_csv() {
    std::string csv = "smiles,has_n\n";
    for (const auto& s : kNitrogenSmiles) csv += s + "," + (s.find_first_of("Nn") != std::string::npos ? "1" : "0") + "\n";
    return csv;
}

MoleculeTrainOptions small_molecule_options() {
    MoleculeTrainOptions o;
    o.target_columns = {"has_n"};
    o.threads = 1;
    o.fit.model.layers = 2;
    o.fit.model.heads = 2;
    o.fit.model.hidden = 8;
    o.fit.model.mlp_hidden = 8;
    o.fit.train.epochs = 3;
    return o;
}

}  // namespace gatkit::test
