// gatkit generate — synthetic graphs written in the formats gatkit reads.
#include "common.hpp"

#include "gatkit/graph/generators.hpp"
#include "gatkit/io/linqs.hpp"

#include <iostream>
#include <memory>

namespace gatkit::cli {

void add_generate_command(CLI::App& app, Action& action) {
    auto o = std::make_shared<PlantedPartitionOptions>();
    auto out = std::make_shared<std::string>();
    CLI::App* c = app.add_subcommand("generate", "Write a synthetic citation-like graph (planted partition) as LINQS files");
    c->add_option("--out", *out, "Output prefix: writes PREFIX.content and PREFIX.cites")->required();
    c->add_option("--nodes", o->nodes, "Nodes")->capture_default_str();
    c->add_option("--classes", o->classes, "Classes (blocks)")->capture_default_str();
    c->add_option("--avg-degree", o->avg_degree, "Average degree")->capture_default_str();
    c->add_option("--homophily", o->homophily, "Fraction of edges inside a class")->capture_default_str();
    c->add_option("--features", o->features, "Vocabulary size (feature columns)")->capture_default_str();
    c->add_option("--words", o->words_per_node, "Words drawn per node")->capture_default_str();
    c->add_option("--feature-signal", o->feature_signal, "Probability a word comes from the class topic")->capture_default_str();
    c->add_option("--seed", o->seed, "Seed")->capture_default_str();
    c->callback([&action, o, out] {
        action = [o, out] {
            const NodeDataset data = generate_planted_partition(*o);
            write_linqs(*out, data);
            std::cerr << "wrote " << *out << ".content and " << *out << ".cites: " << data.num_nodes() << " nodes, "
                      << data.graph.num_edges() / 2 << " undirected edges, " << data.num_classes() << " classes\n";
            return 0;
        };
    });
}

}  // namespace gatkit::cli
