// gatkit info — what a model file holds.
#include "common.hpp"

#include "gatkit/model/model_file.hpp"

#include <iostream>
#include <memory>

namespace gatkit::cli {

void add_info_command(CLI::App& app, Action& action) {
    auto path = std::make_shared<std::string>();
    CLI::App* c = app.add_subcommand("info", "Show a model's configuration, size and training metrics");
    c->add_option("--model", *path, "Model file")->required();
    c->callback([&action, path] {
        action = [path] {
            if (model_kind(*path) == "fingerprint") {  // (read twice: cheap, and keeps each branch whole)
                const LoadedFingerprintModel fp = load_fingerprint_model(*path);
                std::cout << "model:      " << *path << "\n"
                          << "type:       fingerprint baseline (Morgan radius " << fp.model.options().radius << ", "
                          << fp.model.options().n_bits << " bits), " << fp.target_type << "\n"
                          << "targets:    ";
                for (std::size_t i = 0; i < fp.info.target_names.size(); ++i) std::cout << (i ? ", " : "") << fp.info.target_names[i];
                std::cout << "\ntrained on: " << fp.info.data_name << "\n";
                for (const auto& [name, value] : fp.info.metrics) std::cout << "metric:     " << name << " = " << value << "\n";
                return 0;
            }
            const std::string kind = model_kind(*path);
            if (kind == "heuristic") {
                const HeuristicLinkModel h = load_heuristic_model(*path);
                std::cout << "model:      " << *path << "\n"
                          << "type:       link heuristic " << to_string(h.heuristic) << " (nothing learned)\n"
                          << "network:    " << h.info.node_ids.size() << " nodes, " << h.edges.size()
                          << (h.info.directed ? " directed" : " undirected") << " edges\n"
                          << "trained on: " << h.info.data_name << "\n";
                for (const auto& [name, value] : h.info.metrics) std::cout << "metric:     " << name << " = " << value << "\n";
                return 0;
            }
            if (kind == "link" || kind == "edge") {
                LinkModel model = load_link_model(*path);
                const ModelConfig& k = model.config();
                const ModelInfo& info = model.info();
                std::cout << "model:      " << *path << "\n"
                          << "task:       " << k.task << "\n"
                          << "conv:       " << k.conv << ", " << k.layers << " layers, " << k.heads << " heads x " << k.hidden
                          << " hidden, activation " << to_string(k.activation) << ", output " << k.out_channels << " channels\n"
                          << "decoder:    " << (k.task == "edge" ? "MLP on [z_u, z_v, z_u*z_v], " + std::to_string(k.mlp_hidden) + " hidden"
                                                                 : k.decoder) << "\n"
                          << "dropout:    " << k.dropout << " (inputs), " << k.attn_dropout << " (attention)\n"
                          << "inputs:     " << k.node_input << " (" << k.in_features << " wide)\n"
                          << "network:    " << info.node_ids.size() << " nodes, " << model.known_edges.size()
                          << (info.directed ? " directed" : " undirected") << " edges\n";
                if (k.task == "edge") {
                    std::cout << "classes:    " << info.class_names.size() << " (";
                    for (std::size_t i = 0; i < info.class_names.size(); ++i) std::cout << (i ? ", " : "") << info.class_names[i];
                    std::cout << ")\n";
                }
                std::cout << "parameters: " << model.parameter_count() << "\n"
                          << "trained on: " << info.data_name << "\n";
                for (const auto& [name, value] : info.metrics) std::cout << "metric:     " << name << " = " << value << "\n";
                return 0;
            }
            std::vector<Model> members = load_model_ensemble(*path);
            Model& model = members.front();
            const ModelConfig& k = model.config();
            const ModelInfo& info = model.info();
            std::cout << "model:      " << *path << "\n"
                      << "task:       " << k.task << (k.task == "graph" ? ", " + k.target_type : "") << "\n"
                      << "conv:       " << k.conv << ", " << k.layers << " layers, " << k.heads << " heads x " << k.hidden
                      << " hidden, activation " << to_string(k.activation);
            if (k.task == "node") std::cout << ", " << k.out_heads << " output heads";
            if (k.task == "graph")
                std::cout << ", edge features " << k.edge_dim << ", readout " << k.readout << ", MLP head " << k.mlp_hidden << " hidden";
            std::cout << "\n"
                      << "dropout:    " << k.dropout << " (inputs), " << k.attn_dropout << " (attention)\n"
                      << "inputs:     " << k.in_features << " columns (" << (k.task == "node" ? k.node_input : "featurizer " + info.featurizer)
                      << (k.pe != "none" ? ", pe " + k.pe + " " + k.pe_mode : "") << ")"
                      << (k.graph_dim > 0 ? "; molecule features " + info.graph_features + " (" + std::to_string(k.graph_dim) + " columns) into the head" : "")
                      << (info.node_feature_columns.empty() ? "" : "; " + std::to_string(info.node_feature_columns.size()) + " continuous node attribute columns standardised")
                      << (info.tu_layout.size() == 4 ? "; TU columns: " + std::to_string(info.tu_layout[0]) + " node label, " + std::to_string(info.tu_layout[1]) +
                                                           " node attribute, " + std::to_string(info.tu_layout[2]) + " edge label, " +
                                                           std::to_string(info.tu_layout[3]) + " edge attribute"
                                                     : "")
                      << (k.task == "node" ? ", normalisation " + info.feature_normalization : "") << "\n"
                      << "attention:  conv " << k.conv << ", mask " << k.mask << ", block " << k.block << "\n";
            const auto& names = k.task == "graph" && k.target_type != "multiclass" ? info.target_names : info.class_names;
            std::cout << (k.task == "graph" && k.target_type != "multiclass" ? "targets:    " : "classes:    ") << names.size() << " (";
            for (std::size_t i = 0; i < names.size(); ++i) std::cout << (i ? ", " : "") << names[i];
            std::cout << ")";
            if (k.task == "graph" && k.target_type == "binary" && info.class_names.size() == 2)
                std::cout << "; classes " << info.class_names[0] << " (0), " << info.class_names[1] << " (1)";
            std::cout << "\n";
            if (members.size() > 1)
                std::cout << "ensemble:   " << members.size() << " members, predictions averaged\n"
                          << "parameters: " << model.parameter_count() << " per member, " << model.parameter_count() * members.size() << " in all\n";
            else
                std::cout << "parameters: " << model.parameter_count() << "\n";
            std::cout << "trained on: " << info.data_name << "\n";
            for (const auto& [name, value] : info.metrics) std::cout << "metric:     " << name << " = " << value << "\n";
            return 0;
        };
    });
}

}  // namespace gatkit::cli
