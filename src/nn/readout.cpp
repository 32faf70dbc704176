#include "gatkit/nn/readout.hpp"

#include "gatkit/core/error.hpp"

#include <cmath>
#include <limits>

namespace gatkit {

Readout parse_readout(const std::string& name) {
    if (name == "mean") return Readout::mean;
    if (name == "sum") return Readout::sum;
    if (name == "max") return Readout::max;
    if (name == "attention") return Readout::attention;
    throw ConfigError("unknown readout '" + name + "' (expected mean, sum, max or attention)");
}

std::string to_string(Readout r) {
    switch (r) {
        case Readout::mean: return "mean";
        case Readout::sum: return "sum";
        case Readout::max: return "max";
        case Readout::attention: return "attention";
    }
    return "mean";
}

std::vector<Readout> parse_readouts(const std::string& names) {
    std::vector<Readout> kinds;
    std::size_t start = 0;
    while (true) {
        const std::size_t plus = names.find('+', start);
        const std::string part = names.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        if (part.empty()) throw ConfigError("readout '" + names + "' has an empty part (expected kinds joined by '+', e.g. mean+max)");
        const Readout kind = parse_readout(part);
        for (const Readout seen : kinds)
            if (seen == kind) throw ConfigError("readout '" + names + "' names '" + part + "' twice");
        kinds.push_back(kind);
        if (plus == std::string::npos) return kinds;
        start = plus + 1;
    }
}

std::string to_string(const std::vector<Readout>& kinds) {
    std::string out;
    for (const Readout kind : kinds) out += (out.empty() ? "" : "+") + to_string(kind);
    return out;
}

template <class T>
GraphPoolT<T>::GraphPoolT(Readout kind, Eigen::Index channels, Rng& rng, const std::string& name)
    : GraphPoolT(std::vector<Readout>{kind}, channels, rng, name) {}

template <class T>
GraphPoolT<T>::GraphPoolT(std::vector<Readout> kinds, Eigen::Index channels, Rng& rng, const std::string& name)
    : kinds_(std::move(kinds)), channels_(channels), name_(name) {
    if (channels <= 0) throw ConfigError(name + ": channels must be positive, got " + std::to_string(channels));
    if (kinds_.empty()) throw ConfigError(name + ": no readout kind given");
    for (std::size_t k = 0; k < kinds_.size(); ++k)
        for (std::size_t j = 0; j < k; ++j)
            if (kinds_[j] == kinds_[k]) throw ConfigError(name + ": readout '" + to_string(kinds_[k]) + "' given twice");
    for (const Readout kind : kinds_)
        if (kind == Readout::attention) gate_nn_.emplace(LinearOptions{.in = channels, .out = 1}, rng, name + ".gate_nn");
}

template <class T>
LinearT<T>& GraphPoolT<T>::gate_nn() {
    if (!gate_nn_) throw ConfigError(name_ + ": readout '" + to_string(kinds_) + "' has no gate_nn");
    return *gate_nn_;
}

template <class T>
MatrixT<T> GraphPoolT<T>::forward(const std::vector<NodeId>& graph_offsets, const MatrixT<T>& h, GraphPoolCache<T>& cache) const {
    const Eigen::Index N = h.rows(), C = channels_;
    if (h.cols() != C)
        throw ShapeError(name_ + ": h has " + std::to_string(h.cols()) + " columns, expected channels = " + std::to_string(C));
    if (graph_offsets.empty() || graph_offsets.front() != 0 || graph_offsets.back() != N)
        throw ShapeError(name_ + ": graph_offsets must run from 0 to N = " + std::to_string(N) + ", got " +
                         (graph_offsets.empty() ? std::string("none")
                                                : std::to_string(graph_offsets.front()) + " .. " + std::to_string(graph_offsets.back())));
    for (std::size_t b = 0; b + 1 < graph_offsets.size(); ++b)
        if (graph_offsets[b + 1] < graph_offsets[b])
            throw ShapeError(name_ + ": graph_offsets decrease at graph " + std::to_string(b) + " (" + std::to_string(graph_offsets[b]) +
                             " then " + std::to_string(graph_offsets[b + 1]) + ")");
    cache.graph_offsets = graph_offsets;
    cache.num_nodes = N;
    if (kinds_.size() == 1) return pool_one(kinds_.front(), h, cache);
    const Eigen::Index B = static_cast<Eigen::Index>(graph_offsets.size()) - 1;
    MatrixT<T> out(B, out_width());
    for (std::size_t k = 0; k < kinds_.size(); ++k) out.middleCols(static_cast<Eigen::Index>(k) * C, C) = pool_one(kinds_[k], h, cache);
    return out;
}

template <class T>
MatrixT<T> GraphPoolT<T>::pool_one(Readout kind, const MatrixT<T>& h, GraphPoolCache<T>& cache) const {
    const auto& off = cache.graph_offsets;
    const Eigen::Index B = static_cast<Eigen::Index>(off.size()) - 1, C = channels_, N = h.rows();
    MatrixT<T> out = MatrixT<T>::Zero(B, C);  // an empty graph keeps its zero row

    switch (kind) {
        case Readout::mean:
        case Readout::sum: {
            const bool mean = kind == Readout::mean;
#pragma omp parallel for schedule(dynamic, 16)
            for (Eigen::Index b = 0; b < B; ++b) {
                for (NodeId i = off[b]; i < off[b + 1]; ++i) out.row(b) += h.row(i);
                if (mean && off[b + 1] > off[b]) out.row(b) /= static_cast<T>(off[b + 1] - off[b]);
            }
            break;
        }
        case Readout::max: {
            cache.argmax.setConstant(B, C, -1);
#pragma omp parallel for schedule(dynamic, 16)
            for (Eigen::Index b = 0; b < B; ++b) {
                if (off[b + 1] == off[b]) continue;
                for (Eigen::Index c = 0; c < C; ++c) {
                    // Strict > keeps the first node on ties, so backward has one well-defined target.
                    NodeId best = off[b];
                    for (NodeId i = off[b] + 1; i < off[b + 1]; ++i)
                        if (h(i, c) > h(best, c)) best = i;
                    cache.argmax(b, c) = best;
                    out(b, c) = h(best, c);
                }
            }
            break;
        }
        case Readout::attention: {
            const MatrixT<T> gate = gate_nn_->forward(h, cache.gate);  // N×1, keeps h for backward
            cache.alpha.resize(N);
#pragma omp parallel for schedule(dynamic, 16)
            for (Eigen::Index b = 0; b < B; ++b) {
                if (off[b + 1] == off[b]) continue;
                // Subtract the graph's maximum gate before exp so no term overflows; start from -inf.
                T gate_max = -std::numeric_limits<T>::infinity();
                for (NodeId i = off[b]; i < off[b + 1]; ++i) gate_max = std::max(gate_max, gate(i, 0));
                T sum = 0;
                for (NodeId i = off[b]; i < off[b + 1]; ++i) {
                    cache.alpha(i) = std::exp(gate(i, 0) - gate_max);
                    sum += cache.alpha(i);
                }
                const T inv = T(1) / sum;  // sum >= 1: the max term contributes exp(0)
                for (NodeId i = off[b]; i < off[b + 1]; ++i) {
                    cache.alpha(i) *= inv;
                    out.row(b) += cache.alpha(i) * h.row(i);
                }
            }
            break;
        }
    }
    return out;
}

template <class T>
MatrixT<T> GraphPoolT<T>::backward(const MatrixT<T>& dout, const GraphPoolCache<T>& cache) {
    const auto& off = cache.graph_offsets;
    if (off.empty()) throw ConfigError(name_ + ": backward called before forward");
    const Eigen::Index B = static_cast<Eigen::Index>(off.size()) - 1, C = channels_, N = cache.num_nodes;
    if (dout.rows() != B || dout.cols() != out_width())
        throw ShapeError(name_ + ": dout is " + std::to_string(dout.rows()) + "x" + std::to_string(dout.cols()) + ", expected " +
                         std::to_string(B) + "x" + std::to_string(out_width()));
    MatrixT<T> dh = MatrixT<T>::Zero(N, C);
    if (kinds_.size() == 1) {
        backward_one(kinds_.front(), dout, cache, dh);
    } else {
        for (std::size_t k = 0; k < kinds_.size(); ++k)
            backward_one(kinds_[k], dout.middleCols(static_cast<Eigen::Index>(k) * C, C), cache, dh);
    }
    return dh;
}

// Adds kind's part of the gradient into dh (the kinds of a joined readout share h).
template <class T>
void GraphPoolT<T>::backward_one(Readout kind, const MatrixT<T>& dout, const GraphPoolCache<T>& cache, MatrixT<T>& dh) {
    const auto& off = cache.graph_offsets;
    const Eigen::Index B = static_cast<Eigen::Index>(off.size()) - 1, C = channels_, N = cache.num_nodes;

    switch (kind) {
        case Readout::mean:
        case Readout::sum: {
            // out_b = s · Σ_i h_i with s = 1 (sum) or 1/n_b (mean) ⇒ dh_i = s · dout_b
            const bool mean = kind == Readout::mean;
#pragma omp parallel for schedule(dynamic, 16)
            for (Eigen::Index b = 0; b < B; ++b) {
                const T s = mean && off[b + 1] > off[b] ? T(1) / static_cast<T>(off[b + 1] - off[b]) : T(1);
                for (NodeId i = off[b]; i < off[b + 1]; ++i) dh.row(i) += s * dout.row(b);
            }
            break;
        }
        case Readout::max: {
            // out_bc = h_{argmax, c} ⇒ dh_{argmax, c} += dout_bc, every other node gets 0
#pragma omp parallel for schedule(dynamic, 16)
            for (Eigen::Index b = 0; b < B; ++b)
                for (Eigen::Index c = 0; c < C; ++c)
                    if (cache.argmax(b, c) >= 0) dh(cache.argmax(b, c), c) += dout(b, c);
            break;
        }
        case Readout::attention: {
            // out_b = Σ_i α_i h_i           ⇒ dh_i = α_i dout_b,  dα_i = dout_b · h_i
            // α = softmax(gate) per graph  ⇒ dgate_i = α_i (dα_i − Σ_k α_k dα_k)
            // gate = h·w + b               ⇒ gate_nn backward: dw, db, and dh += dgate · wᵀ
            const MatrixT<T>& h = cache.gate.x;
            MatrixT<T> dgate(N, 1);
#pragma omp parallel for schedule(dynamic, 16)
            for (Eigen::Index b = 0; b < B; ++b) {
                T weighted = 0;
                for (NodeId i = off[b]; i < off[b + 1]; ++i) {
                    dh.row(i) += cache.alpha(i) * dout.row(b);
                    dgate(i, 0) = dout.row(b).dot(h.row(i));
                    weighted += cache.alpha(i) * dgate(i, 0);
                }
                for (NodeId i = off[b]; i < off[b + 1]; ++i) dgate(i, 0) = cache.alpha(i) * (dgate(i, 0) - weighted);
            }
            dh += gate_nn_->backward(dgate, cache.gate);
            break;
        }
    }
}

template <class T>
void GraphPoolT<T>::parameters(ParameterList<T>& out) {
    if (gate_nn_) gate_nn_->parameters(out);
}

template class GraphPoolT<float>;
template class GraphPoolT<double>;

}  // namespace gatkit
