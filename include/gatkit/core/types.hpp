// Core numeric types and shape letters used everywhere in gatkit.
//
// Shape letters: N nodes, E edges, H heads, C channels per head, F input features,
// B graphs in a batch, K classes.
//
// Node matrices are row-major: row i holds node i, so a node's vector is contiguous and
// a parallel loop over rows writes disjoint memory.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <utility>

namespace gatkit {

template <class T>
using MatrixT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using VectorT = Eigen::Matrix<T, Eigen::Dynamic, 1>;

using Matrix = MatrixT<float>;
using Vector = VectorT<float>;

// Node ids inside a graph are 32-bit (graphs up to 2^31 nodes); edge offsets are 64-bit.
using NodeId = std::int32_t;
using EdgeId = std::int64_t;

// A (source, destination) pair of node ids: an edge, a candidate link, a labelled edge.
using NodePair = std::pair<NodeId, NodeId>;

}  // namespace gatkit
