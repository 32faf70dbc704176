#include "gatkit/model/model.hpp"

#include <algorithm>
#include <cstdio>

#include "gatkit/core/error.hpp"
#include "gatkit/nn/attention.hpp"
#include "gatkit/model/link_model.hpp"

namespace gatkit {

void ModelConfig::validate() const {
    auto fail = [](const std::string& what) { throw ConfigError("model config: " + what); };
    if (task != "node" && task != "graph" && task != "link" && task != "edge")
        fail("task '" + task + "' is not supported by this version (supported: node, graph, link, edge)");
    check_conv_name(conv);
    parse_mask(mask);
    if (block != "plain" && block != "transformer") fail("block '" + block + "' is not one of plain, transformer");
    if (max_full_nodes < 1) fail("max_full_nodes must be at least 1, got " + std::to_string(max_full_nodes));
    if (pe_mode != "concat" && pe_mode != "add") fail("pe_mode '" + pe_mode + "' is not one of concat, add");
    if (pe_dim() > in_features) fail("pe " + pe + " needs at least " + std::to_string(pe_dim()) + " input columns");
    if (pe_dim() > 0 && pe_mode == "add" && pe_dim() >= in_features)
        fail("pe_mode add needs feature columns besides the " + std::to_string(pe_dim()) + " PE columns");
    if (in_features <= 0) fail("in_features must be positive, got " + std::to_string(in_features));
    if ((task == "node" || task == "edge") && num_classes < 2) fail("need at least 2 classes, got " + std::to_string(num_classes));
    if (task == "graph" && num_classes < 1) fail("need at least 1 output, got " + std::to_string(num_classes));
    if (layers < 1) fail("layers must be at least 1, got " + std::to_string(layers));
    if (heads < 1) fail("heads must be at least 1, got " + std::to_string(heads));
    if (hidden < 1) fail("hidden must be at least 1, got " + std::to_string(hidden));
    if (out_heads < 1) fail("out_heads must be at least 1, got " + std::to_string(out_heads));
    if (!(dropout >= 0 && dropout < 1)) fail("dropout must be in [0, 1), got " + std::to_string(dropout));
    if (!(attn_dropout >= 0 && attn_dropout < 1)) fail("attn_dropout must be in [0, 1), got " + std::to_string(attn_dropout));
    if (!(mlp_dropout >= 0 && mlp_dropout < 1)) fail("mlp_dropout must be in [0, 1), got " + std::to_string(mlp_dropout));
    if (!(negative_slope >= 0) || !std::isfinite(negative_slope)) fail("negative_slope must be finite and >= 0, got " + std::to_string(negative_slope));
    if (edge_dim < 0) fail("edge_dim must be >= 0, got " + std::to_string(edge_dim));
    if (graph_dim < 0) fail("graph_dim must be >= 0, got " + std::to_string(graph_dim));
    if (graph_dim > 0 && task != "graph") fail("graph_dim (molecule-level features) is for graph models, not " + task);
    if (num_nodes < 0) fail("num_nodes must be >= 0, got " + std::to_string(num_nodes));
    if (mlp_hidden < 0) fail("mlp_hidden must be >= 0, got " + std::to_string(mlp_hidden));
    if (num_classes < 0) fail("num_classes must be >= 0, got " + std::to_string(num_classes));
    if (const double bound = parameter_bound(); bound > kMaxParameterBound) {
        char text[160];
        std::snprintf(text, sizeof text, "layers of this size would have up to %.3g parameters (the limit is %.3g); use smaller --hidden, --heads, --layers or --mlp-hidden",
                      bound, kMaxParameterBound);
        fail(text);
    }
    if (task == "link" || task == "edge") {
        parse_node_input(node_input);
        if (task == "link") parse_link_decoder(decoder);
        if (out_channels < 1) fail("out_channels must be at least 1, got " + std::to_string(out_channels));
        if (mlp_hidden < 1) fail("mlp_hidden must be at least 1, got " + std::to_string(mlp_hidden));
    }
    if (task == "graph") {
        parse_readouts(readout);
        if (mlp_hidden < 1) fail("mlp_hidden must be at least 1, got " + std::to_string(mlp_hidden));
        if (target_type != "binary" && target_type != "multiclass" && target_type != "regression")
            fail("target_type '" + target_type + "' (expected binary, multiclass or regression)");
    }
}

double ModelConfig::parameter_bound() const {
    const bool pairs = task == "link" || task == "edge";  // their last layer has out_channels per head
    const double width = std::max({static_cast<double>(heads) * hidden, static_cast<double>(out_heads) * num_classes,
                                   pairs ? static_cast<double>(heads) * out_channels : 1.0, 1.0});
    const double edge = edge_dim, in = in_features, deeper = std::max(layers - 1, 0);
    double total = 16 * (in + edge + width + 1) * (width + 1);          // first attention layer
    total += deeper * 16 * (2 * width + edge + 1) * (width + 1);        // the others
    // Readout gate and MLP head (graph; a joined readout such as mean+max widens the head's input
    // once per kind), pair decoders (link, edge).
    const double readouts = task == "graph" ? 1.0 + static_cast<double>(std::count(readout.begin(), readout.end(), '+')) : 1.0;
    if (task != "node")
        total += (1 + readouts) * (width + 1) * (mlp_hidden + 1) + (mlp_hidden + 1) * (num_classes + 1) + static_cast<double>(graph_dim) * (mlp_hidden + 1);
    total += static_cast<double>(num_nodes) * in;                       // embedding table
    if (pe != "none") total += in * in;                                 // positional-encoding projection (K × (F - K))
    return total;
}

int ModelConfig::pe_dim() const {
    if (pe == "none") return 0;
    const auto colon = pe.find(':');
    const std::string kind = pe.substr(0, colon);
    if (colon == std::string::npos || (kind != "lap" && kind != "rw"))
        throw ConfigError("model config: pe '" + pe + "' is not one of none, lap:K, rw:K");
    try {
        std::size_t used = 0;
        const int k = std::stoi(pe.substr(colon + 1), &used);
        if (used == pe.size() - colon - 1 && k >= 1) return k;
    } catch (const std::exception&) {
    }
    throw ConfigError("model config: pe '" + pe + "' needs a positive integer K");
}

Model::Model(const ModelConfig& config, std::uint64_t seed) : config_(config) {
    config_.validate();
    if (config_.task != "node" && config_.task != "graph")
        throw ConfigError("model: a " + config_.task + " model is a LinkModel (link_model.hpp), not a Model");
    Rng rng(seed);
    const bool graph_task = config_.task == "graph";
    const int K = config_.pe_dim();
    Eigen::Index in = config_.in_features;
    if (K > 0 && config_.pe_mode == "add") {
        in = config_.in_features - K;
        pe_proj_ = std::make_unique<Linear>(LinearOptions{.in = K, .out = in, .bias = false}, rng, "pe_proj");
    }
    for (int l = 0; l < config_.layers; ++l) {
        const bool output_layer = !graph_task && l + 1 == config_.layers;
        // The output layer of a node model stays a plain attention layer (its width is the classes).
        AttentionOptions o = layer_options(config_, in, output_layer ? config_.num_classes : config_.hidden,
                                           output_layer ? config_.out_heads : config_.heads, output_layer, graph_task ? config_.edge_dim : 0);
        // A batch of molecules repeats most atom vectors after the first layer (the same bits:
        // core/distinct_rows.hpp); a node task's graph has few repeats, so it skips the hashing.
        o.distinct_rows = graph_task;
        layers_.push_back(make_attention_layer(o, rng, "layers." + std::to_string(l)));
        in = layers_.back()->out_width();
    }
    pre_activation_.resize(layers_.size());
    if (graph_task) {
        pool_ = std::make_unique<GraphPoolT<float>>(parse_readouts(config_.readout), in, rng, "pool");
        head_ = std::make_unique<MlpT<float>>(MlpOptions{.in = pool_->out_width() + config_.graph_dim, .hidden = config_.mlp_hidden, .out = config_.num_classes,
                                                         .dropout = config_.mlp_dropout},
                                              rng, "head");
    }
}

Model::Model(const Model& o)
    : config_(o.config_),
      info_(o.info_),
      pe_proj_(o.pe_proj_ ? std::make_unique<Linear>(*o.pe_proj_) : nullptr),
      pre_activation_(o.pre_activation_.size()),
      pool_(o.pool_ ? std::make_unique<GraphPoolT<float>>(*o.pool_) : nullptr),
      head_(o.head_ ? std::make_unique<MlpT<float>>(*o.head_) : nullptr),
      sparse_input_(o.sparse_input_) {
    for (const auto& l : o.layers_) layers_.push_back(l->clone());
}

void Model::check_columns(Eigen::Index cols) const {
    if (cols != config_.in_features)
        throw ShapeError("model: input has " + std::to_string(cols) + " columns, the model expects " + std::to_string(config_.in_features));
}

namespace {

// (v − mean) / std clipped to ±Model::kFeatureClip, in float as the layers see it: molecule-level
// features and continuous node attributes.
Matrix standardised(const Eigen::Ref<const Matrix>& column, double mean, double std) {
    const auto m = static_cast<float>(mean);
    const auto inv_std = static_cast<float>(1.0 / std);
    return ((column.array() - m) * inv_std).cwiseMax(-Model::kFeatureClip).cwiseMin(Model::kFeatureClip).matrix();
}

}  // namespace

Matrix Model::input(const Matrix& x) {
    check_columns(x.cols());
    if (!pe_proj_) return x;
    const Eigen::Index F = x.cols() - config_.pe_dim();
    Matrix out = x.leftCols(F);
    out += pe_proj_->forward(x.rightCols(config_.pe_dim()), pe_cache_);
    return out;
}

Matrix Model::standardised_node_features(const Matrix& x) const {
    const std::size_t n = info_.node_feature_columns.size();
    if (info_.node_feature_mean.size() != n || info_.node_feature_std.size() != n)
        throw ConfigError("model: the continuous node attributes have no scaling yet (ModelInfo::node_feature_mean/std; training sets it)");
    Matrix out = x;
    for (std::size_t k = 0; k < n; ++k) {
        const int c = info_.node_feature_columns[k];
        if (c < 0 || c >= x.cols())
            throw ShapeError("model: node attribute column " + std::to_string(c) + " is outside the input's " + std::to_string(x.cols()) + " columns");
        out.col(c) = standardised(x.col(c), info_.node_feature_mean[k], info_.node_feature_std[k]);
    }
    return out;
}

void Model::input_backward(const Matrix& dx) {
    if (pe_proj_) pe_proj_->backward(dx, pe_cache_, /*need_dx=*/false);
}

const Graph& Model::attend(const Graph& graph, const std::vector<NodeId>& offsets) {
    const MaskSpec spec = parse_mask(config_.mask);
    if (spec.kind == MaskKind::edges) return graph;
    const auto id = graph.identity();
    if (!mask_of_ || mask_of_ != id) {
        mask_ = build_mask(graph, spec, offsets, config_.max_full_nodes);
        mask_of_ = id;
    }
    return mask_.graph;
}

AttentionOptions layer_options(const ModelConfig& c, Eigen::Index in, Eigen::Index out, Eigen::Index heads, bool plain_output,
                               Eigen::Index edge_dim) {
    return {.conv = c.conv,
            .in = in,
            .out = out,
            .heads = heads,
            .concat = !plain_output,
            .negative_slope = c.negative_slope,
            .dropout = c.attn_dropout,
            .input_dropout = c.dropout,
            .add_self_loops = c.add_self_loops,
            .bias = true,
            .residual = c.residual,
            .edge_dim = edge_dim,
            .root_weight = c.root_weight,
            .beta = c.beta,
            .block = plain_output ? std::string("plain") : c.block};
}

Matrix Model::forward(const Graph& graph, const Matrix& x, bool training, Rng* rng) {
    return node_forward(graph, &x, nullptr, training, rng);
}

Matrix Model::forward(const Graph& graph, const SparseRows& x, bool training, Rng* rng) {
    if (pe_proj_) return forward(graph, x.to_dense(), training, rng);  // the projection adds to dense features
    return node_forward(graph, nullptr, &x, training, rng);
}

Matrix Model::node_forward(const Graph& graph, const Matrix* x, const SparseRows* x_sparse, bool training, Rng* rng) {
    if (config_.task != "node") throw ConfigError("model: a " + config_.task + " model needs a batch of graphs, not one node graph");
    if (x_sparse) check_columns(x_sparse->cols);
    last_was_graph_ = false;
    inferred_ = false;
    const Graph& g = attend(graph, {});
    Matrix h = x_sparse ? Matrix() : input(*x);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        Matrix z = l == 0 && x_sparse ? layers_[l]->forward(g, *x_sparse, training, rng, nullptr) : layers_[l]->forward(g, h, training, rng, nullptr);
        if (l + 1 == layers_.size()) {
            node_vectors_ = l == 0 && x_sparse ? x_sparse->to_dense() : std::move(h);
            return z;
        }
        h = activation_forward(config_.activation, z);
        pre_activation_[l] = std::move(z);
    }
    return h;
}

Matrix Model::forward(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, bool training, Rng* rng, const Matrix* graph_attr) {
    return graph_forward(batch, x, edge_attr, training ? Pass::train : Pass::evaluate, rng, graph_attr);
}

Matrix Model::predict(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, const Matrix* graph_attr) {
    return graph_forward(batch, x, edge_attr, Pass::infer, nullptr, graph_attr);
}

Matrix Model::predict(const GraphBatch& batch, SparseRows x, const Matrix* edge_attr, const Matrix* graph_attr) {
    if (!takes_sparse_input() || !info_.node_feature_columns.empty() || x.density() > kSparseInputDensity)
        return predict(batch, x.to_dense(), edge_attr, graph_attr);
    return graph_forward(batch, Matrix(), edge_attr, Pass::infer, nullptr, graph_attr, &x);
}

Matrix Model::graph_forward(const GraphBatch& batch, const Matrix& x, const Matrix* edge_attr, Pass pass, Rng* rng, const Matrix* graph_attr,
                            SparseRows* x_sparse) {
    const bool training = pass == Pass::train;
    if (config_.task != "graph") throw ConfigError("model: a " + config_.task + " model predicts nodes, not graphs");
    const Eigen::Index U = config_.graph_dim;
    if (U > 0) {
        if (!graph_attr || graph_attr->rows() != batch.num_graphs() || graph_attr->cols() != U)
            throw ShapeError("model: the MLP head takes " + std::to_string(U) + " molecule-level features per graph (" + info_.graph_features +
                             "), got " + (graph_attr ? std::to_string(graph_attr->rows()) + "×" + std::to_string(graph_attr->cols()) : std::string("none")) +
                             " for " + std::to_string(batch.num_graphs()) + " graphs");
        if (info_.graph_feature_mean.size() != static_cast<std::size_t>(U) || info_.graph_feature_std.size() != static_cast<std::size_t>(U))
            throw ConfigError("model: the molecule-level features have no scaling yet (ModelInfo::graph_feature_mean/std; training sets it)");
    }
    last_was_graph_ = true;
    const Graph& g = attend(batch.graph, batch.graph_offsets);
    const Matrix* attr = config_.edge_dim > 0 ? edge_attr : nullptr;
    Matrix mask_attr;  // the layers keep their own copy of what backward needs
    if (attr && &g != &batch.graph) {
        mask_attr = gather_edge_attr(mask_, *attr);
        attr = &mask_attr;
    }
    // One-hot atom features are mostly zeros (about 10 of ~150 per atom): the first GAT layer
    // then runs on the stored entries (core/sparse.hpp), as an embedding lookup would.
    check_columns(x_sparse ? x_sparse->cols : x.cols());
    Matrix scaled;
    const Matrix& x_in = x_sparse || info_.node_feature_columns.empty() ? x : (scaled = standardised_node_features(x));
    bool sparse = false;
    if (x_sparse) {  // predict(batch, SparseRows, …) checked that the first layer reads it as it is
        batch_sparse_ = std::move(*x_sparse);
        sparse = true;
    } else if (takes_sparse_input() && pass == Pass::infer) {
        // One scan: the rows of the sparse form (no column index: inference has no backward),
        // and the density from its count (the same decision as the scan below).
        batch_sparse_ = SparseRows::from_dense(x_in, /*with_columns=*/false);
        sparse = batch_sparse_.density() <= kSparseInputDensity;
    } else if (takes_sparse_input()) {
        sparse = density(x_in) <= kSparseInputDensity;
        if (sparse) batch_sparse_ = SparseRows::from_dense(x_in);
    }
    Matrix h = sparse ? Matrix() : input(x_in);
    inferred_ = pass == Pass::infer;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        if (inferred_) {  // the activation inside the layer's last pass; nothing kept for backward
            h = l == 0 && sparse ? layers_[l]->infer(g, batch_sparse_, attr, config_.activation) : layers_[l]->infer(g, h, attr, config_.activation);
            pre_activation_[l] = Matrix();
            continue;
        }
        Matrix z = l == 0 && sparse ? layers_[l]->forward(g, batch_sparse_, training, rng, attr) : layers_[l]->forward(g, h, training, rng, attr);
        h = activation_forward(config_.activation, z);
        pre_activation_[l] = std::move(z);
    }
    pooled_ = pool_->forward(batch.graph_offsets, h, pool_cache_);
    node_vectors_ = std::move(h);
    if (U == 0) return head_->forward(pooled_, head_cache_, training, rng);
    Matrix head_in(pooled_.rows(), pooled_.cols() + U);
    head_in.leftCols(pooled_.cols()) = pooled_;
    for (Eigen::Index k = 0; k < U; ++k)
        head_in.col(pooled_.cols() + k) =
            standardised(graph_attr->col(k), info_.graph_feature_mean[static_cast<std::size_t>(k)], info_.graph_feature_std[static_cast<std::size_t>(k)]);
    return head_->forward(head_in, head_cache_, training, rng);
}

Eigen::Index Model::graph_embedding_width() const { return pool_ ? pool_->out_width() : 0; }

void Model::backward(const Matrix& dout) {
    if (inferred_) throw ConfigError("model: backward after predict, which keeps nothing for it; run forward");
    Matrix d = dout;
    if (last_was_graph_) {
        d = head_->backward(d, head_cache_);
        if (config_.graph_dim > 0) d = Matrix(d.leftCols(pooled_.cols()));  // the molecule-level columns are data
        d = pool_->backward(d, pool_cache_);
    }
    for (std::size_t l = layers_.size(); l-- > 0;) {
        if (last_was_graph_ || l + 1 < layers_.size()) d = activation_backward(config_.activation, pre_activation_[l], d);
        // The first layer's input is data, not a parameter, unless a PE projection feeds it.
        d = layers_[l]->backward(d, /*need_dx=*/l > 0 || pe_proj_ != nullptr);
    }
    input_backward(d);
}

ParameterList<float> Model::parameters() {
    ParameterList<float> out;
    if (pe_proj_) pe_proj_->parameters(out);
    for (auto& layer : layers_) layer->parameters(out);
    if (pool_) pool_->parameters(out);
    if (head_) head_->parameters(out);
    return out;
}

std::size_t Model::parameter_count() { return count_values(parameters()); }

}  // namespace gatkit
