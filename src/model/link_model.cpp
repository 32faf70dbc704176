#include "gatkit/model/link_model.hpp"

#include "gatkit/model/model.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/nn/activation.hpp"

#include <charconv>

namespace gatkit {

NodeInputSpec parse_node_input(const std::string& text) {
    const auto bad = [&] {
        return ConfigError("node input '" + text + "' is not one of features, degree, lap:K, embedding:D (K, D positive integers)");
    };
    if (text == "features" || text == "degree") return {text, 0};
    const auto colon = text.find(':');
    if (colon == std::string::npos) throw bad();
    const std::string kind = text.substr(0, colon), number = text.substr(colon + 1);
    if (kind != "lap" && kind != "embedding") throw bad();
    int size = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), size);
    if (ec != std::errc() || end != number.data() + number.size() || size < 1) throw bad();
    return {kind, size};
}

LinkModel::LinkModel(const ModelConfig& config, std::uint64_t seed) : config_(config) {
    config_.validate();
    Rng rng(seed);
    const NodeInputSpec input = parse_node_input(config_.node_input);
    if (input.kind == "embedding") {
        if (config_.num_nodes < 1) throw ConfigError("model config: an embedding input needs num_nodes >= 1");
        if (config_.in_features != input.size)
            throw ConfigError("model config: in_features " + std::to_string(config_.in_features) + " differs from the embedding width " +
                              std::to_string(input.size));
        // torch.nn.Embedding's initialisation: N(0, 1).
        embedding_.emplace("embedding.weight", config_.num_nodes, input.size);
        for (Eigen::Index k = 0; k < embedding_->value.size(); ++k) embedding_->value.data()[k] = static_cast<float>(rng.normal());
    }
    Eigen::Index in = config_.in_features;
    for (int l = 0; l < config_.layers; ++l) {
        const bool last = l + 1 == config_.layers;
        const AttentionOptions o = layer_options(config_, in, last ? config_.out_channels : config_.hidden,
                                                 last ? config_.out_heads : config_.heads, last, 0);
        layers_.push_back(make_attention_layer(o, rng, "layers." + std::to_string(l)));
        in = layers_.back()->out_width();
    }
    pre_activation_.resize(layers_.size());
    const bool edge = config_.task == "edge";
    decoder_.emplace(PairDecoderOptions{.kind = edge ? PairDecoderKind::edge_classes : parse_link_decoder(config_.decoder),
                                        .dim = config_.out_channels,
                                        .mlp_hidden = config_.mlp_hidden,
                                        .out = edge ? config_.num_classes : 1,
                                        .dropout = config_.mlp_dropout},
                     rng, "decoder");
}

const Matrix& LinkModel::encode(const Graph& graph, const Matrix& x, bool training, Rng* rng) {
    const Matrix& input = embedding_ ? embedding_->value : x;
    if (input.rows() != graph.num_nodes())
        throw ShapeError("link model: " + std::to_string(input.rows()) + " input rows for a graph of " +
                         std::to_string(graph.num_nodes()) + " nodes");
    const Graph* g = &graph;
    const MaskSpec spec = parse_mask(config_.mask);
    if (spec.kind != MaskKind::edges) {
        if (mask_of_ != graph.identity()) {
            mask_ = build_mask(graph, spec, {}, config_.max_full_nodes);
            mask_of_ = graph.identity();
        }
        g = &mask_.graph;
    }
    Matrix h = input;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        Matrix z = layers_[l]->forward(*g, h, training, rng, nullptr);
        if (l + 1 == layers_.size()) {
            z_ = std::move(z);
            break;
        }
        h = activation_forward(config_.activation, z);
        pre_activation_[l] = std::move(z);
    }
    return z_;
}

Matrix LinkModel::decode(const std::vector<NodePair>& pairs, bool training, Rng* rng) {
    return decoder_->forward(z_, pairs, decoder_cache_, training, rng);
}

Matrix LinkModel::decode_with(const Matrix& z, const std::vector<NodePair>& pairs) const {
    PairDecoderCache<float> cache;
    return decoder_->forward(z, pairs, cache, /*training=*/false);
}

void LinkModel::backward(const Matrix& dlogits) {
    Matrix d = Matrix::Zero(z_.rows(), z_.cols());
    decoder_->backward(dlogits, z_, decoder_cache_, d);
    for (std::size_t l = layers_.size(); l-- > 0;) {
        if (l + 1 < layers_.size()) d = activation_backward(config_.activation, pre_activation_[l], d);
        // The first layer's input is data unless it is the embedding table.
        const bool need_dx = l > 0 || embedding_.has_value();
        d = layers_[l]->backward(d, need_dx);
    }
    if (embedding_) embedding_->grad += d;
}

ParameterList<float> LinkModel::parameters() {
    ParameterList<float> out;
    if (embedding_) out.push_back(&*embedding_);
    for (auto& layer : layers_) layer->parameters(out);
    decoder_->parameters(out);
    return out;
}

std::size_t LinkModel::parameter_count() { return count_values(parameters()); }

}  // namespace gatkit
