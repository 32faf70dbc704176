#include "gatkit/nn/attention.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/nn/dot_attention.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/nn/gatv2_conv.hpp"
#include "gatkit/nn/linear.hpp"
#include "gatkit/nn/mlp.hpp"
#include "gatkit/nn/norm.hpp"

namespace gatkit {

void check_conv_name(const std::string& conv) {
    if (conv != "gat" && conv != "gatv2" && conv != "transformer")
        throw ConfigError("conv '" + conv + "' is not one of gat, gatv2, transformer");
}

namespace {

// One templated layer with its cache, behind the abstract interface.
template <class Layer, class Cache>
class Adapter final : public AttentionLayer {
public:
    template <class Options>
    Adapter(const Options& options, Rng& rng, const std::string& name) : layer_(options, rng, name) {}
    explicit Adapter(const Layer& layer) : layer_(layer) {}
    Eigen::Index out_width() const override { return layer_.out_width(); }
    Matrix forward(const Graph& graph, const Matrix& x, bool training, Rng* rng, const Matrix* edge_attr) override {
        return layer_.forward(graph, x, cache_, training, rng, edge_attr);
    }
    Matrix forward(const Graph& graph, const SparseRows& x, bool training, Rng* rng, const Matrix* edge_attr) override {
        if constexpr (requires { layer_.forward(graph, x, cache_, training, rng, edge_attr); }) {
            return layer_.forward(graph, x, cache_, training, rng, edge_attr);
        } else {
            return AttentionLayer::forward(graph, x, training, rng, edge_attr);
        }
    }
    Matrix infer(const Graph& graph, const Matrix& x, const Matrix* edge_attr, Activation act) override {
        if constexpr (requires { layer_.infer(graph, x, cache_, act, edge_attr); }) {
            return layer_.infer(graph, x, cache_, act, edge_attr);
        } else {
            return AttentionLayer::infer(graph, x, edge_attr, act);
        }
    }
    Matrix infer(const Graph& graph, const SparseRows& x, const Matrix* edge_attr, Activation act) override {
        if constexpr (requires { layer_.infer(graph, x, cache_, act, edge_attr); }) {
            return layer_.infer(graph, x, cache_, act, edge_attr);
        } else {
            return AttentionLayer::infer(graph, x, edge_attr, act);
        }
    }
    bool takes_sparse() const override {
        return requires(const Layer& l, const Graph& g, const SparseRows& x, Cache& c) { l.forward(g, x, c, false, nullptr, nullptr); };
    }
    Matrix backward(const Matrix& dout, bool need_dx) override { return layer_.backward(dout, cache_, need_dx); }
    void parameters(ParameterList<float>& out) override { layer_.parameters(out); }
    const Matrix& attention() const override { return cache_.alpha; }
    const Graph& attention_graph() const override {
        if (!cache_.graph) throw Error("attention requested before any forward pass");
        return *cache_.graph;
    }
    std::unique_ptr<AttentionLayer> clone() const override { return std::make_unique<Adapter>(layer_); }

private:
    Layer layer_;
    Cache cache_;
};

std::unique_ptr<AttentionLayer> make_conv(const AttentionOptions& o, Rng& rng, const std::string& name) {
    check_conv_name(o.conv);
    if (o.conv == "gat")
        return std::make_unique<Adapter<GatConv, GatConvCache<float>>>(
            GatConvOptions{.in = o.in, .out = o.out, .heads = o.heads, .concat = o.concat, .negative_slope = o.negative_slope,
                           .dropout = o.dropout, .input_dropout = o.input_dropout, .add_self_loops = o.add_self_loops, .bias = o.bias,
                           .residual = o.residual, .edge_dim = o.edge_dim, .distinct_rows = o.distinct_rows},
            rng, name);
    if (o.conv == "gatv2")
        return std::make_unique<Adapter<Gatv2ConvT<float>, Gatv2ConvCache<float>>>(
            Gatv2ConvOptions{.in = o.in, .out = o.out, .heads = o.heads, .concat = o.concat, .negative_slope = o.negative_slope,
                             .dropout = o.dropout, .input_dropout = o.input_dropout, .add_self_loops = o.add_self_loops, .bias = o.bias,
                             .residual = o.residual, .edge_dim = o.edge_dim, .share_weights = o.share_weights},
            rng, name);
    return std::make_unique<Adapter<DotAttentionConvT<float>, DotAttentionCache<float>>>(
        DotAttentionOptions{.in = o.in, .out = o.out, .heads = o.heads, .concat = o.concat, .beta = o.beta, .dropout = o.dropout,
                            .input_dropout = o.input_dropout, .edge_dim = o.edge_dim, .bias = o.bias, .root_weight = o.root_weight,
                            .add_self_loops = o.add_self_loops},
        rng, name);
}

// attention → residual → LayerNorm → feed-forward → residual → LayerNorm.
class TransformerBlock final : public AttentionLayer {
public:
    TransformerBlock(const AttentionOptions& o, Rng& rng, const std::string& name)
        : attn_(make_conv(o, rng, name + ".attn")),
          width_(attn_->out_width()),
          norm1_(width_, name + ".norm1"),
          ffn_({.in = width_, .hidden = 2 * width_, .out = width_, .dropout = o.ffn_dropout}, rng, name + ".ffn"),
          norm2_(width_, name + ".norm2") {
        if (o.in != width_) proj_ = std::make_unique<Linear>(LinearOptions{.in = o.in, .out = width_, .bias = false}, rng, name + ".proj");
    }
    // The parameters copied, the caches fresh.
    TransformerBlock(const TransformerBlock& o)
        : attn_(o.attn_->clone()),
          width_(o.width_),
          proj_(o.proj_ ? std::make_unique<Linear>(*o.proj_) : nullptr),
          norm1_(o.norm1_),
          ffn_(o.ffn_),
          norm2_(o.norm2_) {}
    TransformerBlock& operator=(const TransformerBlock&) = delete;
    Eigen::Index out_width() const override { return width_; }
    using AttentionLayer::forward;  // the sparse input: densified
    Matrix forward(const Graph& graph, const Matrix& x, bool training, Rng* rng, const Matrix* edge_attr) override {
        Matrix h = attn_->forward(graph, x, training, rng, edge_attr);
        h += proj_ ? proj_->forward(x, proj_cache_) : x;
        h = norm1_.forward(h, norm1_cache_);
        Matrix y = ffn_.forward(h, ffn_cache_, training, rng);
        y += h;
        return norm2_.forward(y, norm2_cache_);
    }
    Matrix backward(const Matrix& dout, bool need_dx) override {
        const Matrix dy = norm2_.backward(dout, norm2_cache_);
        Matrix dh = ffn_.backward(dy, ffn_cache_);
        dh += dy;
        const Matrix dh1 = norm1_.backward(dh, norm1_cache_);
        Matrix dx = attn_->backward(dh1, /*need_dx=*/true);
        if (proj_) {
            dx += proj_->backward(dh1, proj_cache_, true);
        } else {
            dx += dh1;
        }
        return need_dx ? dx : Matrix();
    }
    void parameters(ParameterList<float>& out) override {
        attn_->parameters(out);
        if (proj_) proj_->parameters(out);
        norm1_.parameters(out);
        ffn_.parameters(out);
        norm2_.parameters(out);
    }
    const Matrix& attention() const override { return attn_->attention(); }
    const Graph& attention_graph() const override { return attn_->attention_graph(); }
    std::unique_ptr<AttentionLayer> clone() const override { return std::make_unique<TransformerBlock>(*this); }

private:
    std::unique_ptr<AttentionLayer> attn_;
    Eigen::Index width_;
    std::unique_ptr<Linear> proj_;
    LinearCache<float> proj_cache_;
    LayerNorm norm1_;
    LayerNormCache<float> norm1_cache_;
    Mlp ffn_;
    MlpCache<float> ffn_cache_;
    LayerNorm norm2_;
    LayerNormCache<float> norm2_cache_;
};

}  // namespace

std::unique_ptr<AttentionLayer> make_attention_layer(const AttentionOptions& options, Rng& rng, const std::string& name) {
    if (options.block == "plain") return make_conv(options, rng, name);
    if (options.block == "transformer") return std::make_unique<TransformerBlock>(options, rng, name);
    throw ConfigError("block '" + options.block + "' is not one of plain, transformer");
}

}  // namespace gatkit
