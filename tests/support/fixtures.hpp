// Small graphs and data for tests, made here (tests never need ../shared).
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/graph/graph.hpp"
#include "gatkit/io/dataset.hpp"
#include "gatkit/train/fit.hpp"

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace gatkit::test {

// A random directed graph on n nodes: each ordered pair is an edge with probability p
// (self-loops included when allow_self_loops), built with build_graph.
Graph random_graph(NodeId n, double p, Rng& rng, bool allow_self_loops = false);

// Random matrix with entries uniform in [-1, 1].
template <class T>
MatrixT<T> random_matrix(Eigen::Index rows, Eigen::Index cols, Rng& rng) {
    MatrixT<T> m(rows, cols);
    for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = static_cast<T>(rng.uniform(-1.0, 1.0));
    return m;
}

// random_matrix with each entry kept with probability `keep`, else 0, and one all-zero row (rows / 2)
// and column (cols / 3): a sparse input's test matrix.
template <class T>
MatrixT<T> mostly_zero_matrix(Eigen::Index rows, Eigen::Index cols, double keep, Rng& rng) {
    MatrixT<T> m = random_matrix<T>(rows, cols, rng);
    for (Eigen::Index k = 0; k < m.size(); ++k)
        if (rng.uniform() >= keep) m.data()[k] = 0;
    m.row(rows / 2).setZero();
    m.col(cols / 3).setZero();
    return m;
}

// The gradients of the parameters, copied, in list order.
template <class T>
std::vector<MatrixT<T>> gradients(const ParameterList<T>& params) {
    std::vector<MatrixT<T>> out;
    for (const auto* p : params) out.push_back(p->grad);
    return out;
}

// Same shape and the same bits in every element (memcmp: -0 and 0 differ, a NaN equals itself).
inline bool same_bits(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0);
}

// `count` small random graphs (3 to 7 nodes, 4 features, no edge features) whose one binary
// target says whether the graph's features sum above 0.
GraphDataset random_graph_dataset(int count, std::uint64_t seed = 21);
// The positions 0, 1, …, n − 1 (every graph of a data set of n, in order).
std::vector<std::size_t> first_graphs(std::size_t n);
// A small graph model for random_graph_dataset: 2 layers × 2 heads × 4, an 8-wide MLP head, no
// edge features.
GraphFitOptions tiny_graph_fit();

// 24 small molecules and a CSV of them ("smiles,has_n": whether the molecule has a nitrogen).
extern const std::vector<std::string> kNitrogenSmiles;
std::string nitrogen_molecules_csv();
// Options for training on that CSV in a fraction of a second: target has_n, 1 thread, 2 layers ×
// 2 heads × 8, an 8-wide MLP head, 3 epochs.
MoleculeTrainOptions small_molecule_options();

// Writes `text` gzip-compressed to `path`.
void write_gz(const std::string& path, const std::string& text);

// A fresh empty temporary folder, removed when the object dies.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    // Writes `text` to `name` inside the folder and returns its path.
    std::string write(const std::string& name, const std::string& text) const;

private:
    std::filesystem::path path_;
};

}  // namespace gatkit::test
