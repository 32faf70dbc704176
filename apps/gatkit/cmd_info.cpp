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
            Model model = load_model(*path);
            const ModelConfig& k = model.config();
            std::cout << "model:      " << *path << "\n"
                      << "task:       " << k.task << "\n"
                      << "conv:       " << k.conv << ", " << k.layers << " layers, " << k.heads << " heads x " << k.hidden
                      << " hidden, " << k.out_heads << " output heads, activation " << to_string(k.activation) << "\n"
                      << "dropout:    " << k.dropout << " (inputs), " << k.attn_dropout << " (attention)\n"
                      << "inputs:     " << k.in_features << " features, normalisation " << model.info().feature_normalization << "\n"
                      << "classes:    " << k.num_classes << " (";
            for (std::size_t i = 0; i < model.info().class_names.size(); ++i)
                std::cout << (i ? ", " : "") << model.info().class_names[i];
            std::cout << ")\n"
                      << "parameters: " << model.parameter_count() << "\n"
                      << "trained on: " << model.info().data_name << "\n";
            for (const auto& [name, value] : model.info().metrics) std::cout << "metric:     " << name << " = " << value << "\n";
            return 0;
        };
    });
}

}  // namespace gatkit::cli
