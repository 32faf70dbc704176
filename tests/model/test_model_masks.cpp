// Models with masks and positional encodings: what a full mask costs, and PE inputs.
#include "gatkit/core/error.hpp"
#include "gatkit/graph/batch.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/model/model.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

using namespace gatkit;

namespace {

Graph ring(NodeId n) {
    std::vector<NodePair> e;
    for (NodeId i = 0; i < n; ++i) e.emplace_back(i, (i + 1) % n);
    return build_graph(n, e, {.undirected = true});
}

ModelConfig graph_config(const std::string& conv, const std::string& mask) {
    ModelConfig c;
    c.task = "graph";
    c.conv = conv;
    c.mask = mask;
    c.in_features = 3;
    c.num_classes = 1;
    c.layers = 2;
    c.heads = 2;
    c.hidden = 4;
    c.dropout = c.attn_dropout = 0;
    c.mlp_hidden = 4;
    c.target_type = "binary";
    return c;
}

}  // namespace

TEST_CASE("A full mask stores one n×n score block per graph and head, never a batch-wide one", "[model][masks]") {
    const Graph a = ring(5), b = ring(7), c = ring(3);
    const GraphBatch batch = make_batch({&a, &b, &c});
    Rng rng(1);
    const Matrix x = test::random_matrix<float>(15, 3, rng);
    for (const std::string conv : {"gat", "gatv2", "transformer"}) {
        CAPTURE(conv);
        Model model(graph_config(conv, "full"), 3);
        const Matrix y = model.forward(batch, x, nullptr, false);
        CHECK(y.rows() == 3);
        for (std::size_t l = 0; l < model.num_layers(); ++l) {
            // 5² + 7² + 3² = 83 pairs (self-loops included), not 15² = 225.
            CHECK(model.attention(l).rows() == 83);
            CHECK(model.attention(l).cols() == 2);
            CHECK(model.attention_graph(l).num_edges() == 83);
        }
        // Attention never crosses graphs.
        const auto owner = batch.node_graph();
        for (const auto& [j, i] : model.attention_graph(0).edge_list()) CHECK(owner[j] == owner[i]);
    }
}

TEST_CASE("khop masks and PE projections run through a model", "[model][masks]") {
    const Graph a = ring(6);
    const GraphBatch batch = make_batch({&a});
    Rng rng(2);
    ModelConfig c = graph_config("gat", "khop:2");
    c.pe = "lap:2";
    c.pe_mode = "add";
    c.in_features = 5;  // 3 features + 2 PE columns
    c.mlp_hidden = 32;  // enough ReLU units that some are active
    Model model(c, 4);
    const Matrix x = test::random_matrix<float>(6, 5, rng);
    model.forward(batch, x, nullptr, false);
    CHECK(model.attention_graph(0).num_edges() == 6 * 5);  // each node: itself + 4 within 2 hops
    auto params = model.parameters();
    CHECK(params.front()->name == "pe_proj.weight");
    zero_grads(params);
    model.backward(Matrix::Ones(1, 1));
    CHECK(params.back()->grad.cwiseAbs().sum() > 0);   // the head's bias: the gradient flows
    CHECK(params.front()->grad.cwiseAbs().sum() > 0);  // and reaches the PE projection
    CHECK_THROWS_AS(model.forward(batch, test::random_matrix<float>(6, 3, rng), nullptr, false), ShapeError);
}
