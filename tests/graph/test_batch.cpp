// Block-diagonal batches of small graphs.
#include "gatkit/graph/batch.hpp"
#include "gatkit/graph/build.hpp"

#include <catch2/catch.hpp>

using namespace gatkit;

TEST_CASE("make_batch of three graphs", "[graph][batch]") {
    const Graph a = build_graph(3, {{0, 1}, {1, 2}, {2, 0}});
    const Graph b = build_graph(2, {{1, 0}, {0, 0}});
    const Graph c = build_graph(4, {{3, 2}, {0, 3}, {2, 3}, {1, 0}});
    const GraphBatch batch = make_batch({&a, &b, &c});

    CHECK(batch.num_graphs() == 3);
    CHECK(batch.graph_offsets == std::vector<NodeId>{0, 3, 5, 9});
    CHECK(batch.graph.num_nodes() == 9);
    CHECK(batch.graph.num_edges() == a.num_edges() + b.num_edges() + c.num_edges());
    CHECK(batch.node_graph() == std::vector<NodeId>{0, 0, 0, 1, 1, 2, 2, 2, 2});

    // every edge of graph k appears shifted by its offset
    const Graph* parts[] = {&a, &b, &c};
    for (int k = 0; k < 3; ++k)
        for (const auto& [u, v] : parts[k]->edge_list())
            CHECK(batch.graph.has_edge(u + batch.graph_offsets[k], v + batch.graph_offsets[k]));
    // and no edge crosses graphs
    const auto owner = batch.node_graph();
    for (const auto& [u, v] : batch.graph.edge_list()) CHECK(owner[u] == owner[v]);

    // the CSR invariants hold: rows sorted, transpose consistent
    const Graph& g = batch.graph;
    for (NodeId i = 0; i < g.num_nodes(); ++i)
        for (EdgeId e = g.in_offsets()[i] + 1; e < g.in_offsets()[i + 1]; ++e) CHECK(g.in_src()[e - 1] <= g.in_src()[e]);
    for (NodeId j = 0; j < g.num_nodes(); ++j)
        for (EdgeId k = g.out_offsets()[j]; k < g.out_offsets()[j + 1]; ++k) {
            const EdgeId e = g.out_edge()[k];
            CHECK(g.in_src()[e] == j);
            CHECK(e >= g.in_offsets()[g.out_dst()[k]]);
            CHECK(e < g.in_offsets()[g.out_dst()[k] + 1]);
        }
}

TEST_CASE("batched graph with self-loops", "[graph][batch]") {
    const Graph a = build_graph(2, {{0, 1}, {1, 1}});
    const Graph b = build_graph(3, {{2, 0}});
    const GraphBatch batch = make_batch({&a, &b});
    const Graph& s = batch.graph.with_self_loops();
    CHECK(s.num_nodes() == 5);
    CHECK(s.num_self_loops() == 5);
    CHECK(s.num_edges() == 2 + 5);  // (0,1) and (4,2) plus one loop per node
    CHECK(s.has_edge(0, 1));
    CHECK(s.has_edge(4, 2));
    const auto owner = batch.node_graph();
    for (const auto& [u, v] : s.edge_list()) CHECK(owner[u] == owner[v]);
}

TEST_CASE("empty graphs inside a batch", "[graph][batch]") {
    const Graph a = build_graph(2, {{0, 1}});
    const Graph empty = build_graph(0, {});
    const Graph edgeless = build_graph(2, {});
    const Graph c = build_graph(2, {{1, 0}});
    const GraphBatch batch = make_batch({&a, &empty, &edgeless, &c});
    CHECK(batch.num_graphs() == 4);
    CHECK(batch.graph_offsets == std::vector<NodeId>{0, 2, 2, 4, 6});
    CHECK(batch.node_graph() == std::vector<NodeId>{0, 0, 2, 2, 3, 3});
    CHECK(batch.graph.edge_list() == std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {5, 4}});
    CHECK(batch.graph.with_self_loops().num_self_loops() == 6);

    const GraphBatch none = make_batch({});
    CHECK(none.num_graphs() == 0);
    CHECK(none.graph.num_nodes() == 0);
    CHECK(none.node_graph().empty());
}
