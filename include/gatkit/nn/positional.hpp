// Structural node features and positional encodings, for graphs without node features or to add
// to / concatenate with them (attention alone does not know where a node sits in the graph).
//
// Every function here reads the graph as a simple undirected graph: j is a neighbour of i when
// an edge i → j or j → i exists; self-loops are ignored, and so is edge multiplicity. The degree
// d_i is the number of such neighbours. A is that 0/1 adjacency, D = diag(d).
//
// Results are the same bits for any number of OpenMP threads: the parallel loops run over
// components or nodes and write disjoint rows; every sum runs in a fixed order.
//
// docs/positional.md has the definitions, the sign convention and measured costs.
#pragma once

#include "gatkit/core/random.hpp"
#include "gatkit/core/types.hpp"
#include "gatkit/graph/graph.hpp"

namespace gatkit {

// Degree encoding (an identity-free structural input, as in PyTorch link-prediction references):
//   columns 0..15  one-hot of the bucket min(floor(log2(1 + d_i)), 15)
//   column  16     log(1 + d_i) / max_j log(1 + d_j)   (0 when every degree is 0)
// Shape N × kDegreeFeatureWidth. Cost O(N + E log E) (neighbour lists are sorted to drop duplicates).
inline constexpr int kDegreeBuckets = 16;
inline constexpr int kDegreeFeatureWidth = kDegreeBuckets + 1;
Matrix degree_features(const Graph& graph);

struct LaplacianPeOptions {
    int k = 8;                      // eigenvectors per node (>= 1)
    NodeId dense_max_nodes = 500;   // components up to this size use Eigen's dense solver; larger ones Spectra (>= 0)
};

struct LaplacianPe {
    Matrix vectors;      // N × k
    Matrix eigenvalues;  // N × k: the eigenvalue of each column in the node's component (0 where padded)
};

// Laplacian eigenvector PEs (Dwivedi & Bresson 2020; like PyG's AddLaplacianEigenvectorPE with the
// symmetric normalisation, but per connected component).
//
// For every connected component c (connected_components in graph/algorithms.hpp) with n_c nodes:
//   L_c = I - D^-1/2 A D^-1/2  restricted to c  (symmetric normalised Laplacian, eigenvalues in [0, 2])
// Column j (0-based) of node i in c holds entry i of the unit eigenvector of L_c with the
// (j+1)-th smallest NON-ZERO eigenvalue: the trivial eigenvalue 0 (eigenvector ∝ D^1/2 1) is
// skipped, the rest come in increasing eigenvalue order. L_c has n_c - 1 non-zero eigenvalues,
// so a component with n_c <= k fills columns n_c - 1 .. k-1 with zeros (an isolated node's row is
// all zeros). Within a component the columns are orthonormal.
//
// Sign: each column's entries on a component are flipped so that the entry of largest magnitude
// is positive; entries within a relative 1e-6 of that magnitude count as tied and the lowest
// node index among them decides. Eigenvectors of a repeated eigenvalue (symmetric graphs:
// stars, cycles, complete graphs) are one arbitrary basis of their eigenspace, not unique.
//
// Solver per component, in double, returned as float:
//   n_c <= dense_max_nodes: Eigen's SelfAdjointEigenSolver on the dense L_c, O(n_c^3) time,
//     O(n_c^2) memory (measured: 0.1 s at n_c = 500, 0.8 s at 1000, 2.7 s at 1500, 130 s at 4039).
//   larger: Spectra's Lanczos on (L_c - sigma I)^-1, sigma = -1e-3 (the eigenvalues nearest 0),
//     through a sparse LDLᵀ factorisation, with the trivial eigenvector projected out. A
//     single-vector Krylov method finds one copy of a repeated eigenvalue per run, so it runs
//     again with what it found projected out until a run finds nothing smaller (usually 2 runs).
//     Time and memory are those of the factorisation (graph-dependent fill) plus O(k · nnz(LDLᵀ))
//     per Lanczos step: 0.12 s for ego-Facebook (4039 nodes, k = 16), about 5 s for Email-Enron's
//     33,696-node component. Components of fewer than k + 1 + 2·max(2k + 1, 20) nodes always use
//     the dense solver (cheap, and too small for the Krylov space).
// Components run in parallel (largest first), each on one thread.
// Errors: k < 1 or dense_max_nodes < 0 → ConfigError; a Spectra run that does not converge → Error
// with the component size.
LaplacianPe laplacian_pe(const Graph& graph, const LaplacianPeOptions& options);

// Random sign flips (training-time augmentation for Laplacian PEs, whose signs are arbitrary):
// each column is negated with probability 1/2, one draw per column from rng (column order).
// O(N · k).
void random_sign_flip(Matrix& pe, Rng& rng);

// Random-walk PEs (Dwivedi et al. 2022, "RWPE"; PyG's AddRandomWalkPE):
//   column t-1 (t = 1..k) = (P^t)_ii, P = D^-1 A,
// the probability that a t-step random walk from i is back at i. Column 0 is 0 (no self-loops).
// Isolated nodes: all 0. Shape N × k.
// Exact in double: (P^t)_ii = (S^t)_ii with S = D^-1/2 A D^-1/2 symmetric, so it propagates
// x_a = S^a e_i for a <= ceil(k/2) and reads (S^2a)_ii = x_a·x_a, (S^(2a+1))_ii = x_a·x_(a+1).
// Per component, either one source at a time over its growing a-hop ball (cost: the edges of the
// balls, small for local structure and small k) or 32 sources at once as dense columns over the
// whole component (ceil(k/2) · (2 E_c + N_c) per source, vectorised); the cheaper is estimated
// from 16 sampled sources. Worst case O(N_c · E_c · k) per component, O(N) memory per thread;
// parallel over sources. Measured: ego-Facebook k = 16 in 1.2 s; Email-Enron k = 4 in 0.3 s,
// k = 8 in 21 s (2 threads).
// Errors: k < 1 → ConfigError.
Matrix random_walk_pe(const Graph& graph, int k);

// The encoding a spec names, for a graph: "lap:K" → laplacian_pe(graph, {.k = K}).vectors,
// "rw:K" → random_walk_pe(graph, K). Anything else: ConfigError.
Matrix positional_encoding(const Graph& graph, const std::string& spec);
// x with the encoding `spec` of its graph appended as its last columns ("none": x unchanged).
Matrix with_positional_encoding(const Graph& graph, Matrix x, const std::string& spec);

// Random sign flips of the last k columns only (the Laplacian PE columns appended to features).
void random_sign_flip_last(Matrix& x, Eigen::Index k, Rng& rng);

}  // namespace gatkit
