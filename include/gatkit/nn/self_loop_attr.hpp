// Edge attributes on a self-looped graph, shared by the attention layers.
#pragma once

#include "gatkit/graph/graph.hpp"

#include <algorithm>

namespace gatkit {

// Attributes of the edges of g (graph itself, or graph.with_self_loops()): each edge keeps its
// original edge's row; the added loop of node i gets the mean over i's incoming non-loop edges
// (PyG fill_value "mean"), zeros when it has none. Parallel over nodes, disjoint rows.
template <class T>
void self_looped_edge_attr(const Graph& graph, const Graph& g, const MatrixT<T>& edge_attr, MatrixT<T>& out) {
    if (&g == &graph) {
        out = edge_attr;
        return;
    }
    const auto& origin = graph.self_loop_origin();
    const auto& offsets = g.in_offsets();
    const auto& orig_offsets = graph.in_offsets();
    const auto& orig_src = graph.in_src();
    const Eigen::Index D = edge_attr.cols();
    out.resize(g.num_edges(), D);
    // Raw row pointers: Eigen's dynamic-size row expressions cost more than the few (D ≈ 14)
    // values each moves. The same additions in the same order, and one division per value.
    const T* in = edge_attr.data();
    T* base = out.data();
#pragma omp parallel for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < g.num_nodes(); ++i)
        for (EdgeId e = offsets[i]; e < offsets[i + 1]; ++e) {
            T* row = base + static_cast<Eigen::Index>(e) * D;
            if (origin[e] >= 0) {
                std::copy_n(in + static_cast<Eigen::Index>(origin[e]) * D, D, row);
                continue;
            }
            std::fill_n(row, D, T(0));
            EdgeId count = 0;
            for (EdgeId k = orig_offsets[i]; k < orig_offsets[i + 1]; ++k)
                if (orig_src[k] != i) {
                    const T* r = in + static_cast<Eigen::Index>(k) * D;
                    for (Eigen::Index d = 0; d < D; ++d) row[d] += r[d];
                    ++count;
                }
            if (count > 0)
                for (Eigen::Index d = 0; d < D; ++d) row[d] /= static_cast<T>(count);
        }
}

}  // namespace gatkit
