// Edge attributes on a self-looped graph, shared by the attention layers.
#pragma once

#include "gatkit/graph/graph.hpp"

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
    out.resize(g.num_edges(), edge_attr.cols());
#pragma omp parallel for schedule(dynamic, 64)
    for (Eigen::Index i = 0; i < g.num_nodes(); ++i)
        for (EdgeId e = offsets[i]; e < offsets[i + 1]; ++e) {
            auto row = out.row(e);
            if (origin[e] >= 0) {
                row = edge_attr.row(origin[e]);
                continue;
            }
            row.setZero();
            EdgeId count = 0;
            for (EdgeId k = orig_offsets[i]; k < orig_offsets[i + 1]; ++k)
                if (orig_src[k] != i) {
                    row += edge_attr.row(k);
                    ++count;
                }
            if (count > 0) row /= static_cast<T>(count);
        }
}

}  // namespace gatkit
