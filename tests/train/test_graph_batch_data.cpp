// make_batch_data (train/graph_trainer.hpp): the node and edge rows of a batch are the chosen
// graphs' rows in the order asked for, copied in parallel, the same for 1 and 2 threads.
#include "gatkit/core/parallel.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace gatkit;

TEST_CASE("make_batch_data stacks the chosen graphs' node and edge rows in order, with 1 and 2 threads", "[train][graph][threads]") {
    GraphDataset data = test::random_graph_dataset(40, 5);
    Rng rng(8);
    for (auto& s : data.graphs) s.edge_attr = test::random_matrix<float>(static_cast<Eigen::Index>(s.graph.num_edges()), 3, rng);
    // Out of order, with a repeat: more graphs than one parallel chunk of 8.
    const std::vector<std::size_t> chosen = {7, 3, 39, 0, 12, 12, 25, 1, 30, 18, 2, 33, 9, 21, 5, 16, 27, 38, 11};
    std::vector<GraphBatchData> runs;
    for (const int threads : {1, 2}) {
        const ThreadScope scope(threads);
        runs.push_back(make_batch_data(data, chosen));
    }
    for (const GraphBatchData& b : runs) {
        Eigen::Index row = 0, edge = 0;
        REQUIRE(b.batch.num_graphs() == static_cast<NodeId>(chosen.size()));
        for (std::size_t k = 0; k < chosen.size(); ++k) {
            const GraphSample& s = data.graphs[chosen[k]];
            CHECK(b.batch.graph_offsets[k] == row);
            CHECK(b.x.middleRows(row, s.x.rows()) == s.x);
            CHECK(b.edge_attr.middleRows(edge, s.edge_attr.rows()) == s.edge_attr);
            row += s.x.rows();
            edge += s.edge_attr.rows();
        }
        CHECK(b.x.rows() == row);
        CHECK(b.edge_attr.rows() == edge);
        CHECK(b.batch.graph.num_edges() == edge);
    }
    CHECK(runs[0].x == runs[1].x);
    CHECK(runs[0].edge_attr == runs[1].edge_attr);

    SECTION("graphs without edge features give an empty edge matrix") {
        for (auto& s : data.graphs) s.edge_attr.resize(0, 0);
        const GraphBatchData b = make_batch_data(data, chosen);
        CHECK(b.edge_attr.size() == 0);
        CHECK(b.x.rows() == runs[0].x.rows());
        CHECK(b.x == runs[0].x);
    }
}
