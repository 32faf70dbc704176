// What a model is: the options that rebuild it, stored in its model file.
#pragma once

#include "gatkit/nn/activation.hpp"

#include <map>
#include <string>
#include <vector>

namespace gatkit {

struct ModelConfig {
    std::string task = "node";      // node | graph | link | edge
    std::string conv = "gat";       // attention layer kind: gat | gatv2 | transformer
    std::string mask = "edges";     // who attends to whom: edges | khop:K | full
    std::string block = "plain";    // plain | transformer (attention → residual → LayerNorm → FFN → residual → LayerNorm)
    int max_full_nodes = 512;       // --mask full: largest graph allowed
    std::string pe = "none";        // positional encoding appended to the inputs: none | lap:K | rw:K
    std::string pe_mode = "concat"; // concat: PE columns are extra inputs; add: a learned projection of them is added to the features
    int in_features = 0;            // F: input columns, the K positional-encoding columns (last) included
    int num_classes = 0;            // outputs: K classes (node, multiclass) or T targets (graph)
    int layers = 2;                 // attention layers
    int heads = 8;                  // heads of every hidden layer
    int hidden = 8;                 // channels per head of every hidden layer
    int out_heads = 1;              // node task: heads of the output layer (averaged)
    double dropout = 0.6;           // on every attention layer's input features
    double attn_dropout = 0.6;      // on attention coefficients
    double negative_slope = 0.2;    // LeakyReLU slope inside the attention score
    bool residual = false;
    bool add_self_loops = true;
    Activation activation = Activation::elu;  // after each hidden attention layer
    bool root_weight = true;        // conv transformer: the skip W_r x_i added to the attention output (PyG root_weight)
    bool beta = false;              // conv transformer: a learned gate between the skip and the attention output (PyG beta)

    // Graph task: attention layers (all hidden, heads concatenated) → readout → MLP head.
    int edge_dim = 0;               // bond/edge feature width entering the attention score
    int graph_dim = 0;              // molecule-level feature columns entering the MLP head beside the readout (ModelInfo::graph_features)
    std::string readout = "mean";   // mean | sum | max | attention, or several joined by + (mean+max)
    int mlp_hidden = 256;           // hidden width of the MLP head
    double mlp_dropout = 0.0;
    std::string target_type;        // binary | multiclass | regression
    // Link and edge tasks: attention layers (the last one averaged to out_channels) → pair decoder.
    std::string node_input = "features";  // features | degree | lap:K | embedding:D (a learned N×D table)
    int num_nodes = 0;              // rows of the embedding table (embedding input only)
    int out_channels = 64;          // width of the node vectors the decoder sees
    std::string decoder = "dot";    // link: dot | hadamard-mlp; edge: edge-classes

    // Throws ConfigError naming the bad value, also when the sizes ask for more than
    // kMaxParameterBound (parameter_bound) — a typo such as --hidden 80000 is an error, not an
    // allocation that takes the machine down.
    void validate() const;
    // An upper bound on the number of parameters this config builds, computed without building
    // it (in double, so absurd sizes cannot overflow). Generous: every attention layer is counted
    // as if it had q, k, v, skip and edge projections and a transformer block; real models have
    // 2-32 times fewer. Model-file loaders compare it with the values the file holds before
    // allocating anything (model_file.hpp).
    double parameter_bound() const;
    static constexpr double kMaxParameterBound = 4.0e9;
    // K, the positional-encoding columns at the end of the input (0 for pe = none).
    int pe_dim() const;
};

// What the model file keeps besides the config and weights.
struct ModelInfo {
    std::vector<std::string> class_names;                // node/multiclass: output k is class_names[k]
    std::vector<std::string> target_names;               // graph: the target columns
    std::vector<double> target_mean, target_std;         // regression: targets were standardised with these
    std::string feature_normalization = "row";           // node inputs: row | none
    std::string featurizer;                              // graph inputs: the featurizer id (molecules) or "tu"
    // Graph models with molecule-level features (config.graph_dim > 0; chem/mol_features.hpp):
    // their spec (rdkit2d, morgan or both, comma-separated), column names, and the training
    // set's mean and standard deviation of each column (the model standardises with them; mean
    // 0, std 1 for columns used as they are).
    std::string graph_features = "none";
    std::vector<std::string> graph_feature_names;
    std::vector<double> graph_feature_mean, graph_feature_std;
    // Graph models on continuous node attributes (TU node_attributes, GraphDataset::
    // continuous_node_columns): those columns of x, and the training graphs' mean and standard
    // deviation of each; the model standardises them (clipped to ±Model::kFeatureClip) before
    // the first layer. Empty: x is used as it is.
    std::vector<int> node_feature_columns;
    std::vector<double> node_feature_mean, node_feature_std;
    // TU models: the feature layout of the data trained on (GraphDataset::tu_layout), so predict
    // and evaluate read another folder with the same columns. Empty for other models, and for TU
    // models written before it was kept (they cannot read new folders).
    std::vector<int> tu_layout;
    std::string smiles_column;                           // molecules: the SMILES column it was trained with
    std::string data_name;                               // the data set it was trained on
    std::map<std::string, double> metrics;               // training metrics (val_accuracy, …)
    // Link and edge tasks on one network (transductive): the user's node ids, row order.
    std::vector<std::string> node_ids;
    bool directed = false;
};

}  // namespace gatkit
