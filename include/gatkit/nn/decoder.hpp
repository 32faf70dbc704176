// Decoders on node pairs: the heads of the link and edge tasks (ARCHITECTURE §5).
//
// Given node vectors z (N×C) from the encoder and P pairs (u_p, v_p):
//
//   dot           s_p = z_u · z_v                                    P×1 logit   (GAE, PyG link_pred.py)
//   hadamard-mlp  s_p = MLP(z_u ⊙ z_v)                               P×1 logit   (the OGB link baselines' "MLP on
//                                                                                 the Hadamard product")
//   edge classes  y_p = MLP([z_u ‖ z_v ‖ z_u ⊙ z_v])                 P×K logits  (labelled edges)
//
// The MLPs are MlpT (Linear → ReLU → dropout → Linear; parameters "<name>.0.*", "<name>.3.*").
// backward takes the gradient of the loss with respect to the outputs and ADDS the gradient with
// respect to z into dz (N×C, sized by the caller), so several decoders or pair sets can share one dz.
// The scatter into dz runs over pairs in order (a pair's two rows may be shared by other pairs),
// which keeps results identical for any thread count. Cost: O(P·C) for dot, O(P·C·hidden) for the
// MLPs; the cache keeps the pairs and the MLP's own cache.
#pragma once

#include "gatkit/core/parameter.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/nn/mlp.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gatkit {

enum class PairDecoderKind { dot, hadamard_mlp, edge_classes };

// "dot" | "hadamard-mlp" (link decoders; "edge-classes" is chosen by the edge task). Anything else: ConfigError.
PairDecoderKind parse_link_decoder(const std::string& name);
std::string to_string(PairDecoderKind kind);

struct PairDecoderOptions {
    PairDecoderKind kind = PairDecoderKind::dot;
    Eigen::Index dim = 0;         // C, the width of z
    Eigen::Index mlp_hidden = 0;  // hidden width of the MLP (hadamard-mlp, edge-classes)
    Eigen::Index out = 1;         // outputs per pair: 1 for links, K classes for edges
    double dropout = 0.0;         // MLP dropout
};

template <class T>
struct PairDecoderCache {
    std::vector<NodePair> pairs;
    MlpCache<T> mlp;
};

template <class T>
class PairDecoderT {
public:
    PairDecoderT(const PairDecoderOptions& options, Rng& rng, const std::string& name = "decoder");
    // z N×C, every pair's ids in [0, N) (GraphError otherwise) ⇒ P×out logits.
    MatrixT<T> forward(const MatrixT<T>& z, const std::vector<NodePair>& pairs, PairDecoderCache<T>& cache, bool training,
                       Rng* rng = nullptr) const;
    // Accumulates the MLP's parameter gradients and adds d(loss)/dz into dz (N×C).
    void backward(const MatrixT<T>& dout, const MatrixT<T>& z, const PairDecoderCache<T>& cache, MatrixT<T>& dz);
    void parameters(ParameterList<T>& out);
    const PairDecoderOptions& options() const { return options_; }

private:
    PairDecoderOptions options_;
    std::unique_ptr<MlpT<T>> mlp_;  // null for dot
};

using PairDecoder = PairDecoderT<float>;

}  // namespace gatkit
