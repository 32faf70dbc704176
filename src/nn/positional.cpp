#include "gatkit/nn/positional.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/graph/algorithms.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Spectra/SymEigsSolver.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace gatkit {

namespace {

// The graph as a simple undirected graph: neighbours of i = sources of its incoming edges and
// destinations of its outgoing ones, sorted, without duplicates and without i itself.
struct SimpleAdjacency {
    std::vector<EdgeId> offsets;  // N+1
    std::vector<NodeId> neighbours;

    NodeId num_nodes() const { return static_cast<NodeId>(offsets.size() - 1); }
    EdgeId degree(NodeId i) const { return offsets[i + 1] - offsets[i]; }
};

SimpleAdjacency simple_adjacency(const Graph& graph) {
    const NodeId n = graph.num_nodes();
    SimpleAdjacency adj;
    adj.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
    adj.neighbours.reserve(static_cast<std::size_t>(graph.num_edges()));
    std::vector<NodeId> row;
    for (NodeId i = 0; i < n; ++i) {
        row.clear();
        for (EdgeId e = graph.in_offsets()[i]; e < graph.in_offsets()[i + 1]; ++e) row.push_back(graph.in_src()[e]);
        for (EdgeId e = graph.out_offsets()[i]; e < graph.out_offsets()[i + 1]; ++e) row.push_back(graph.out_dst()[e]);
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        for (NodeId j : row)
            if (j != i) adj.neighbours.push_back(j);
        adj.offsets[i + 1] = static_cast<EdgeId>(adj.neighbours.size());
    }
    return adj;
}

void check_k(const char* who, int k) {
    if (k < 1) throw ConfigError(std::string(who) + ": k must be at least 1, got " + std::to_string(k));
}

// --- Laplacian eigenvectors -------------------------------------------------------------------

// Shift of the shift-invert Lanczos: slightly below the spectrum [0, 2] of L, so L - sigma I is
// positive definite (an LDLᵀ without pivoting is stable) and the eigenvalues nearest 0 become the
// largest of (L - sigma I)^-1, well separated from the rest even when the spectral gap is small.
constexpr double kShift = -1e-3;
// Entries within this relative distance of a column's largest magnitude count as tied for the
// sign convention, so a sign does not hang on rounding (mirror-symmetric graphs have entries
// +x and -x whose computed magnitudes differ only in the last bits).
constexpr double kSignTieRel = 1e-6;

// One component: its nodes in increasing id order (local index = position here).
struct Component {
    std::vector<NodeId> nodes;
};

// Eigenpairs of one component's L with the smallest non-zero eigenvalues: values (m), vectors
// (n_c × m) in the component's local order, m = min(k, n_c - 1).
struct Eigenpairs {
    Eigen::VectorXd values;
    Eigen::MatrixXd vectors;
};

Eigenpairs solve_dense(const SimpleAdjacency& adj, const std::vector<NodeId>& nodes, const std::vector<NodeId>& local,
                       const std::vector<double>& inv_sqrt_degree, int k) {
    const Eigen::Index n = static_cast<Eigen::Index>(nodes.size());
    Eigen::MatrixXd laplacian = Eigen::MatrixXd::Identity(n, n);
    for (Eigen::Index a = 0; a < n; ++a) {
        const NodeId i = nodes[a];
        for (EdgeId e = adj.offsets[i]; e < adj.offsets[i + 1]; ++e) {
            const NodeId j = adj.neighbours[e];
            laplacian(a, local[j]) = -inv_sqrt_degree[i] * inv_sqrt_degree[j];
        }
    }
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(laplacian, Eigen::ComputeEigenvectors);
    if (solver.info() != Eigen::Success)
        throw Error("laplacian_pe: dense eigensolver failed on a component of " + std::to_string(n) + " nodes");
    // Eigenvalues come in increasing order; index 0 is the component's trivial eigenvalue 0.
    const Eigen::Index m = std::min<Eigen::Index>(k, n - 1);
    return {solver.eigenvalues().segment(1, m), solver.eigenvectors().middleCols(1, m)};
}

// Sparse path: shift-invert Lanczos (Spectra) with explicit deflation.
//
// The operator is T = P (L - sigma I)^-1 P, P = I - V Vᵀ projecting out the columns of V: the
// trivial eigenvector D^1/2 1 / |D^1/2 1| (exact, so it never has to be found and dropped) and
// the eigenvectors kept so far. An eigenpair (lambda, v) of L orthogonal to V is one of T with
// nu = 1 / (lambda - sigma); V's directions get nu = 0 and are never selected.
//
// Why more than one run: a Krylov space grown from one start vector holds one direction per
// distinct eigenvalue, so single-vector Lanczos returns one copy of a repeated eigenvalue and the
// next eigenvalue up in place of the other copies (it happens: identical pendant paths on one
// hub). Each further run deflates what was kept and looks again; it stops when a run finds
// nothing below the k-th kept eigenvalue, which is then the true k-th smallest.
class DeflatedShiftInvertOp {
public:
    using Scalar = double;

    explicit DeflatedShiftInvertOp(const Eigen::SparseMatrix<double>& laplacian) {
        Eigen::SparseMatrix<double> shifted = laplacian;
        for (Eigen::Index a = 0; a < shifted.rows(); ++a) shifted.coeffRef(a, a) -= kShift;
        ldlt_.compute(shifted);
        if (ldlt_.info() != Eigen::Success)
            throw Error("laplacian_pe: sparse LDLT of L - sigma I failed (sigma = " + std::to_string(kShift) + ", " +
                        std::to_string(laplacian.rows()) + " nodes)");
    }

    Eigen::Index rows() const { return ldlt_.rows(); }
    Eigen::Index cols() const { return ldlt_.cols(); }

    // Orthonormal columns to project out.
    void set_deflation(Eigen::MatrixXd basis) { basis_ = std::move(basis); }
    void project(Eigen::Ref<Eigen::VectorXd> x) const { x.noalias() -= basis_ * (basis_.transpose() * x); }

    // y = P (L - sigma I)^-1 P x
    void perform_op(const double* x_in, double* y_out) const {
        Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(x_in, rows());
        project(x);
        Eigen::Map<Eigen::VectorXd> y(y_out, rows());
        y.noalias() = ldlt_.solve(x);
        project(y);
    }

private:
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
    Eigen::MatrixXd basis_;
};

// Krylov width of a run for nev wanted eigenvalues: wide enough to converge in few restarts.
Eigen::Index krylov_width(int nev) { return std::max<Eigen::Index>(2 * nev + 1, 20); }

// Smallest component size the sparse path takes: room for k + 1 deflated directions and a Krylov
// space of twice the usual width (the retry) beside them. Smaller ones are cheap dense.
NodeId sparse_min_nodes(int k) { return static_cast<NodeId>(k + 1 + 2 * krylov_width(k)); }

// Relative gap below the k-th kept eigenvalue that a later run's eigenvalue must clear to count as
// missed (a value equal to it within rounding is an equally valid k-th, not a missed one).
constexpr double kMissedRel = 1e-8;

Eigenpairs solve_sparse(const SimpleAdjacency& adj, const std::vector<NodeId>& nodes, const std::vector<NodeId>& local,
                        const std::vector<double>& inv_sqrt_degree, int k) {
    const Eigen::Index n = static_cast<Eigen::Index>(nodes.size());
    std::vector<Eigen::Triplet<double>> entries;
    Eigen::VectorXd trivial(n);  // D^1/2 1, the eigenvector of eigenvalue 0
    for (Eigen::Index a = 0; a < n; ++a) {
        const NodeId i = nodes[a];
        trivial[a] = std::sqrt(static_cast<double>(adj.degree(i)));
        entries.emplace_back(a, a, 1.0);
        for (EdgeId e = adj.offsets[i]; e < adj.offsets[i + 1]; ++e) {
            const NodeId j = adj.neighbours[e];
            entries.emplace_back(a, local[j], -inv_sqrt_degree[i] * inv_sqrt_degree[j]);
        }
    }
    trivial.normalize();
    Eigen::SparseMatrix<double> laplacian(n, n);
    laplacian.setFromTriplets(entries.begin(), entries.end());
    DeflatedShiftInvertOp op(laplacian);

    // A fixed pseudo-random start vector, projected into the search space.
    Rng start_rng(0x5eed);
    Eigen::VectorXd start(n);
    for (Eigen::Index a = 0; a < n; ++a) start[a] = start_rng.uniform(-1.0, 1.0);

    std::vector<std::pair<double, Eigen::VectorXd>> kept;  // ascending eigenvalue, at most k
    for (int run = 0; run <= k; ++run) {  // each accepting run adds a missed eigenpair: at most k + 1 runs
        Eigen::MatrixXd basis(n, 1 + static_cast<Eigen::Index>(kept.size()));
        basis.col(0) = trivial;
        for (std::size_t c = 0; c < kept.size(); ++c) basis.col(1 + static_cast<Eigen::Index>(c)) = kept[c].second;
        op.set_deflation(std::move(basis));
        Eigen::VectorXd v0 = start;
        op.project(v0);

        Eigen::VectorXd nu;
        Eigen::MatrixXd found;
        for (Eigen::Index ncv = std::min<Eigen::Index>(krylov_width(k), n);; ncv = std::min<Eigen::Index>(2 * ncv, n)) {
            Spectra::SymEigsSolver<DeflatedShiftInvertOp> solver(op, k, ncv);
            solver.init(v0.data());
            solver.compute(Spectra::SortRule::LargestAlge, 1000, 1e-10, Spectra::SortRule::LargestAlge);
            if (solver.info() == Spectra::CompInfo::Successful) {
                nu = solver.eigenvalues();
                found = solver.eigenvectors();
                break;
            }
            if (ncv >= krylov_width(k) * 2 || ncv == n)
                throw Error("laplacian_pe: Spectra did not converge on a component of " + std::to_string(n) +
                            " nodes (k = " + std::to_string(k) + ", ncv = " + std::to_string(ncv) +
                            "); raise dense_max_nodes to use the dense solver");
        }
        // nu descending ⇒ lambda = sigma + 1/nu ascending.
        // The first run fills `kept`; a later one must beat the k-th kept eigenvalue.
        const double cut = kept.empty() ? std::numeric_limits<double>::infinity()
                                        : kept.back().first - kMissedRel * std::max(1.0, kept.back().first);
        bool missed = false;
        for (Eigen::Index j = 0; j < nu.size(); ++j) {
            const double lambda = kShift + 1.0 / nu[j];
            if (lambda < cut) {
                kept.emplace_back(lambda, found.col(j));
                missed = true;
            }
        }
        if (!missed) break;
        std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        if (kept.size() > static_cast<std::size_t>(k)) kept.resize(static_cast<std::size_t>(k));
    }
    Eigenpairs pairs{Eigen::VectorXd(k), Eigen::MatrixXd(n, k)};
    for (int j = 0; j < k; ++j) {
        pairs.values[j] = kept[j].first;
        pairs.vectors.col(j) = kept[j].second;
    }
    return pairs;
}

// Flips v so that its entry of largest magnitude is positive (ties: the lowest index).
void fix_sign(Eigen::Ref<Eigen::VectorXd> v) {
    const double largest = v.cwiseAbs().maxCoeff();
    for (Eigen::Index a = 0; a < v.size(); ++a) {
        if (std::abs(v[a]) >= largest * (1.0 - kSignTieRel)) {
            if (v[a] < 0) v = -v;
            return;
        }
    }
}

}  // namespace

Matrix degree_features(const Graph& graph) {
    const SimpleAdjacency adj = simple_adjacency(graph);
    const NodeId n = adj.num_nodes();
    Matrix out = Matrix::Zero(n, kDegreeFeatureWidth);
    EdgeId max_degree = 0;
    for (NodeId i = 0; i < n; ++i) max_degree = std::max(max_degree, adj.degree(i));
    const double log_max = std::log1p(static_cast<double>(max_degree));
    for (NodeId i = 0; i < n; ++i) {
        const EdgeId d = adj.degree(i);
        // floor(log2(1 + d)) exactly, from the bit width of 1 + d.
        const int bucket = std::min(static_cast<int>(std::bit_width(static_cast<std::uint64_t>(d) + 1)) - 1,
                                    kDegreeBuckets - 1);
        out(i, bucket) = 1.0f;
        out(i, kDegreeBuckets) = max_degree == 0 ? 0.0f : static_cast<float>(std::log1p(static_cast<double>(d)) / log_max);
    }
    return out;
}

LaplacianPe laplacian_pe(const Graph& graph, const LaplacianPeOptions& options) {
    check_k("laplacian_pe", options.k);
    if (options.dense_max_nodes < 0)
        throw ConfigError("laplacian_pe: dense_max_nodes must be >= 0, got " + std::to_string(options.dense_max_nodes));
    const int k = options.k;
    const SimpleAdjacency adj = simple_adjacency(graph);
    const NodeId n = adj.num_nodes();

    std::vector<double> inv_sqrt_degree(static_cast<std::size_t>(n), 0.0);
    for (NodeId i = 0; i < n; ++i)
        if (adj.degree(i) > 0) inv_sqrt_degree[i] = 1.0 / std::sqrt(static_cast<double>(adj.degree(i)));

    NodeId count = 0;
    const std::vector<NodeId> component_of = connected_components(graph, &count);
    std::vector<Component> components(static_cast<std::size_t>(count));
    std::vector<NodeId> local(static_cast<std::size_t>(n));
    for (NodeId i = 0; i < n; ++i) {
        auto& nodes = components[component_of[i]].nodes;
        local[i] = static_cast<NodeId>(nodes.size());
        nodes.push_back(i);
    }
    // Largest first, so the long solves start at once and small ones fill the other threads.
    std::vector<NodeId> order(static_cast<std::size_t>(count));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](NodeId a, NodeId b) { return components[a].nodes.size() > components[b].nodes.size(); });

    MatrixT<double> vectors = MatrixT<double>::Zero(n, k);
    MatrixT<double> values = MatrixT<double>::Zero(n, k);
    // Each component is solved on one thread and writes only its own rows: the same bits for
    // any thread count (Eigen itself runs single-threaded, EIGEN_DONT_PARALLELIZE). A failure is
    // reported for the first failing component in this order, whatever the threads.
    for_each_item(static_cast<std::ptrdiff_t>(count), [&](std::ptrdiff_t o) {
        const NodeId c = order[static_cast<std::size_t>(o)];
        const auto& nodes = components[c].nodes;
        const auto size = static_cast<NodeId>(nodes.size());
        if (size < 2) return;  // an isolated node has no non-zero eigenvalue: zeros
        const bool dense = size <= options.dense_max_nodes || size < sparse_min_nodes(k);
        Eigenpairs pairs = dense ? solve_dense(adj, nodes, local, inv_sqrt_degree, k) : solve_sparse(adj, nodes, local, inv_sqrt_degree, k);
        for (Eigen::Index j = 0; j < pairs.values.size(); ++j) {
            fix_sign(pairs.vectors.col(j));
            for (NodeId a = 0; a < size; ++a) {
                vectors(nodes[a], j) = pairs.vectors(a, j);
                values(nodes[a], j) = pairs.values[j];
            }
        }
    });
    return {vectors.cast<float>(), values.cast<float>()};
}

void random_sign_flip(Matrix& pe, Rng& rng) {
    for (Eigen::Index j = 0; j < pe.cols(); ++j)
        if (rng.next_u64() >> 63) pe.col(j) = -pe.col(j);
}

namespace {

// --- Random-walk PEs ----------------------------------------------------------------------------
//
// (P^t)_ii = (D^-1 (A D^-1)^(t-1) A)_ii = (D^-1/2 S^t D^1/2)_ii = (S^t)_ii with S = D^-1/2 A D^-1/2,
// and S is symmetric, so (S^(a+b))_ii = (S^a e_i)·(S^b e_i): with x_a = S^a e_i,
//   (S^2a)_ii = x_a·x_a,   (S^(2a+1))_ii = x_a·x_(a+1),
// and powers up to k need x_a for a <= ceil(k/2) only: half as many propagation steps as powers.
//
// Two ways to propagate, the same numbers up to rounding:
//  * sparse, one source at a time: x_a is non-zero only on the a-hop ball of i, so a step costs
//    the edges of the ball, not of the component (local structure, small k);
//  * blocked: kRwBlock sources at once as dense columns over the whole component,
//    Y = S X row by row: every step costs all the component's edges, but streams through
//    contiguous rows with vector instructions, about 4× faster per edge visit (measured on
//    ego-Facebook), which wins once the balls cover a good part of the component.
// The choice is made per component from the graph alone (see choose_blocked), so the bits do not
// depend on the thread count.

constexpr int kRwBlock = 32;
using RwBlock = Eigen::Matrix<double, Eigen::Dynamic, kRwBlock, Eigen::RowMajor>;
// Blocked propagation's speed per edge visit relative to the sparse one.
constexpr double kBlockedSpeedup = 4.0;
// Sources sampled per component to estimate the sparse cost.
constexpr NodeId kCostSamples = 16;

struct WalkGraph {
    const SimpleAdjacency& adj;
    std::vector<double> weight;  // S's entries in adjacency order: 1 / sqrt(d_i d_j)
    int k = 0;
    int steps = 0;  // ceil(k / 2)
};

// Per-thread work arrays of the sparse propagation.
class SparseWalker {
public:
    explicit SparseWalker(NodeId n)
        : x_(static_cast<std::size_t>(n), 0.0), next_(static_cast<std::size_t>(n), 0.0), seen_(static_cast<std::size_t>(n), 0) {}

    // Writes row i of the PE (k entries) and returns the number of edge visits it took.
    EdgeId walk(const WalkGraph& wg, NodeId i, double* row) {
        const SimpleAdjacency& adj = wg.adj;
        EdgeId visits = 0;
        // x = x_a, next = x_(a+1) as dense arrays, non-zero only on `reached` (the nodes within
        // a hops, in the order first reached).
        reached_.assign(1, i);
        seen_[i] = 1;
        x_[i] = 1.0;
        for (int a = 0; a < wg.steps; ++a) {
            const std::size_t before = reached_.size();
            for (std::size_t r = 0; r < before; ++r) {  // next = S x, scattered from each reached node
                const NodeId u = reached_[r];
                const double xu = x_[u];
                visits += adj.degree(u);
                for (EdgeId e = adj.offsets[u]; e < adj.offsets[u + 1]; ++e) {
                    const NodeId v = adj.neighbours[e];
                    if (!seen_[v]) {
                        seen_[v] = 1;
                        reached_.push_back(v);
                    }
                    next_[v] += wg.weight[e] * xu;
                }
            }
            double even = 0.0, odd = 0.0;
            for (const NodeId v : reached_) {
                even += x_[v] * x_[v];
                odd += x_[v] * next_[v];
            }
            if (a > 0) row[2 * a - 1] = even;  // t = 2a
            row[2 * a] = odd;                   // t = 2a + 1
            for (const NodeId v : reached_) {
                x_[v] = next_[v];
                next_[v] = 0.0;
            }
        }
        if (wg.k % 2 == 0) {  // t = k = 2·steps
            double even = 0.0;
            for (const NodeId v : reached_) even += x_[v] * x_[v];
            row[wg.k - 1] = even;
        }
        for (const NodeId v : reached_) {
            x_[v] = 0.0;
            seen_[v] = 0;
        }
        return visits;
    }

private:
    std::vector<double> x_, next_;
    std::vector<char> seen_;
    std::vector<NodeId> reached_;
};

// Rows nodes[first .. first+count) of the PE, count <= kRwBlock, by blocked propagation over the
// component `nodes` (local[j] = position of node j in it).
void walk_block(const WalkGraph& wg, const std::vector<NodeId>& nodes, const std::vector<NodeId>& local, NodeId first,
                NodeId count, MatrixT<double>& result) {
    const SimpleAdjacency& adj = wg.adj;
    const auto n = static_cast<Eigen::Index>(nodes.size());
    RwBlock x = RwBlock::Zero(n, kRwBlock), next(n, kRwBlock);
    for (NodeId c = 0; c < count; ++c) x(first + c, c) = 1.0;
    const auto store = [&](int t, NodeId c, double value) { result(nodes[first + c], t - 1) = value; };
    for (int a = 0; a < wg.steps; ++a) {
        for (Eigen::Index v = 0; v < n; ++v) {  // next = S x, gathered row by row
            auto row = next.row(v);
            row.setZero();
            const NodeId i = nodes[v];
            for (EdgeId e = adj.offsets[i]; e < adj.offsets[i + 1]; ++e) row += wg.weight[e] * x.row(local[adj.neighbours[e]]);
        }
        for (NodeId c = 0; c < count; ++c) {
            if (a > 0) store(2 * a, c, x.col(c).squaredNorm());
            store(2 * a + 1, c, x.col(c).dot(next.col(c)));
        }
        x.swap(next);
    }
    if (wg.k % 2 == 0)
        for (NodeId c = 0; c < count; ++c) store(wg.k, c, x.col(c).squaredNorm());
}

// Blocked when the sparse walks, estimated from kCostSamples evenly spaced sources, would visit
// more than 1/kBlockedSpeedup of the edges the blocked steps visit.
bool choose_blocked(const WalkGraph& wg, const std::vector<NodeId>& nodes, SparseWalker& walker) {
    const auto n = static_cast<NodeId>(nodes.size());
    if (n < kRwBlock) return false;  // a block would be mostly empty columns
    EdgeId volume = 0;
    for (const NodeId i : nodes) volume += wg.adj.degree(i);
    const NodeId samples = std::min(n, kCostSamples);
    std::vector<double> row(static_cast<std::size_t>(wg.k));
    double sparse_visits = 0.0;
    for (NodeId s = 0; s < samples; ++s)
        sparse_visits += static_cast<double>(walker.walk(wg, nodes[static_cast<std::size_t>(s) * n / samples], row.data()));
    const double blocked_visits = static_cast<double>(wg.steps) * static_cast<double>(volume + n) * samples;
    return kBlockedSpeedup * sparse_visits > blocked_visits;
}

}  // namespace

Matrix random_walk_pe(const Graph& graph, int k) {
    check_k("random_walk_pe", k);
    const SimpleAdjacency adj = simple_adjacency(graph);
    const NodeId n = adj.num_nodes();
    WalkGraph wg{adj, std::vector<double>(adj.neighbours.size()), k, (k + 1) / 2};
    for (NodeId i = 0; i < n; ++i)
        for (EdgeId e = adj.offsets[i]; e < adj.offsets[i + 1]; ++e)
            wg.weight[e] = 1.0 / std::sqrt(static_cast<double>(adj.degree(i)) * static_cast<double>(adj.degree(adj.neighbours[e])));

    NodeId count = 0;
    const std::vector<NodeId> component_of = connected_components(graph, &count);
    std::vector<std::vector<NodeId>> components(static_cast<std::size_t>(count));
    std::vector<NodeId> local(static_cast<std::size_t>(n));
    for (NodeId i = 0; i < n; ++i) {
        local[i] = static_cast<NodeId>(components[component_of[i]].size());
        components[component_of[i]].push_back(i);
    }
    // Work items: single sources for sparse components, blocks of sources for blocked ones.
    struct Block {
        NodeId component, first, count;
    };
    std::vector<NodeId> sparse_sources;
    std::vector<Block> blocks;
    {
        SparseWalker walker(n);
        for (NodeId c = 0; c < count; ++c) {
            const auto& nodes = components[c];
            const auto size = static_cast<NodeId>(nodes.size());
            if (size < 2) continue;  // isolated: no walk, all zeros
            if (choose_blocked(wg, nodes, walker)) {
                for (NodeId first = 0; first < size; first += kRwBlock)
                    blocks.push_back({c, first, std::min<NodeId>(kRwBlock, size - first)});
            } else {
                sparse_sources.insert(sparse_sources.end(), nodes.begin(), nodes.end());
            }
        }
    }

    MatrixT<double> result = MatrixT<double>::Zero(n, k);
    // Every work item writes only its own rows, and each row's sums run in a fixed order.
#pragma omp parallel
    {
        SparseWalker walker(sparse_sources.empty() ? 0 : n);
#pragma omp for schedule(dynamic, 16) nowait
        for (std::size_t s = 0; s < sparse_sources.size(); ++s) walker.walk(wg, sparse_sources[s], &result(sparse_sources[s], 0));
#pragma omp for schedule(dynamic, 1)
        for (std::size_t b = 0; b < blocks.size(); ++b)
            walk_block(wg, components[blocks[b].component], local, blocks[b].first, blocks[b].count, result);
    }
    return result.cast<float>();
}

Matrix positional_encoding(const Graph& graph, const std::string& spec) {
    const auto colon = spec.find(':');
    const std::string kind = spec.substr(0, colon == std::string::npos ? spec.size() : colon);
    int k = 0;
    if (colon != std::string::npos) {
        try {
            std::size_t used = 0;
            k = std::stoi(spec.substr(colon + 1), &used);
            if (used != spec.size() - colon - 1) k = 0;
        } catch (const std::exception&) {
            k = 0;
        }
    }
    if (k < 1 || (kind != "lap" && kind != "rw"))
        throw ConfigError("positional encoding '" + spec + "' is not one of lap:K, rw:K (K a positive integer)");
    return kind == "lap" ? laplacian_pe(graph, {.k = k}).vectors : random_walk_pe(graph, k);
}

Matrix with_positional_encoding(const Graph& graph, Matrix x, const std::string& spec) {
    if (spec == "none") return x;
    const Matrix enc = positional_encoding(graph, spec);
    if (enc.rows() != x.rows())
        throw ShapeError("positional encoding: " + std::to_string(x.rows()) + " input rows for a graph of " + std::to_string(enc.rows()) + " nodes");
    Matrix out(x.rows(), x.cols() + enc.cols());
    out << x, enc;
    return out;
}

void random_sign_flip_last(Matrix& x, Eigen::Index k, Rng& rng) {
    for (Eigen::Index c = x.cols() - k; c < x.cols(); ++c)
        if (rng.next_u64() & 1) x.col(c) = -x.col(c);
}

}  // namespace gatkit
