// What a model is: the options that rebuild it, stored in its model file.
#pragma once

#include "gatkit/nn/activation.hpp"

#include <map>
#include <string>
#include <vector>

namespace gatkit {

struct ModelConfig {
    std::string task = "node";      // node (graph, link, edge come with later layers of the library)
    std::string conv = "gat";       // attention layer kind
    int in_features = 0;            // F
    int num_classes = 0;            // K, the width of the output
    int layers = 2;                 // attention layers; the last one produces the K outputs
    int heads = 8;                  // heads of every hidden layer
    int hidden = 8;                 // channels per head of every hidden layer
    int out_heads = 1;              // heads of the output layer (averaged)
    double dropout = 0.6;           // on every layer's input features
    double attn_dropout = 0.6;      // on attention coefficients
    double negative_slope = 0.2;    // LeakyReLU slope inside the attention score
    bool residual = false;
    bool add_self_loops = true;
    Activation activation = Activation::elu;  // between layers

    // Throws ConfigError naming the bad value.
    void validate() const;
};

// What the model file keeps besides the config and weights.
struct ModelInfo {
    std::vector<std::string> class_names;                // output k is class_names[k]
    std::string feature_normalization = "row";           // how input features were scaled: row | none
    std::string data_name;                               // the data set it was trained on
    std::map<std::string, double> metrics;               // training metrics (val_accuracy, …)
};

}  // namespace gatkit
