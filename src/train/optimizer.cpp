#include "gatkit/train/optimizer.hpp"

#include "gatkit/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gatkit {

template <class T>
AdamT<T>::AdamT(ParameterList<T> params, const AdamOptions& o) : params_(std::move(params)), options_(o), slices_(params_) {
    if (!(o.lr > 0.0) || !std::isfinite(o.lr)) throw ConfigError("adam: lr must be positive and finite, got " + std::to_string(o.lr));
    if (!(o.weight_decay >= 0.0) || !std::isfinite(o.weight_decay)) throw ConfigError("adam: weight_decay must be >= 0, got " + std::to_string(o.weight_decay));
    if (!(o.beta1 >= 0.0 && o.beta1 < 1.0 && o.beta2 >= 0.0 && o.beta2 < 1.0))
        throw ConfigError("adam: betas must be in [0, 1), got " + std::to_string(o.beta1) + ", " + std::to_string(o.beta2));
    for (const auto* p : params_) {
        m_.push_back(MatrixT<T>::Zero(p->value.rows(), p->value.cols()));
        v_.push_back(MatrixT<T>::Zero(p->value.rows(), p->value.cols()));
    }
}

template <class T>
void AdamT<T>::step() {
    ++t_;
    const T lr = static_cast<T>(options_.lr), wd = static_cast<T>(options_.weight_decay);
    const T b1 = static_cast<T>(options_.beta1), b2 = static_cast<T>(options_.beta2), eps = static_cast<T>(options_.eps);
    const T bc1 = T(1) - static_cast<T>(std::pow(options_.beta1, static_cast<double>(t_)));
    const T bc2 = T(1) - static_cast<T>(std::pow(options_.beta2, static_cast<double>(t_)));
    const T step_size = lr / bc1;
    const T inv_sqrt_bc2 = T(1) / std::sqrt(bc2);
    // Element-wise: the slices run in parallel and every value gets the same arithmetic.
    // The scalars are captured by value: as references the stores to theta could alias them, and
    // the loops would not vectorise.
    const bool decoupled = options_.decoupled;
    slices_.for_each([this, decoupled, lr, wd, b1, b2, eps, step_size, inv_sqrt_bc2](const ParameterSlice& s) {
        T* theta = params_[s.param]->value.data() + s.begin;
        const T* grad = params_[s.param]->grad.data() + s.begin;
        T* m = m_[s.param].data() + s.begin;
        T* v = v_[s.param].data() + s.begin;
        const Eigen::Index n = s.count;
        const auto moments_and_step = [=](Eigen::Index q, T g) {
            m[q] = b1 * m[q] + (T(1) - b1) * g;
            v[q] = b2 * v[q] + (T(1) - b2) * g * g;
            theta[q] -= step_size * m[q] / (std::sqrt(v[q]) * inv_sqrt_bc2 + eps);
        };
        // Two loops, not a branch per value: a conditional store to theta would not vectorise.
        if (decoupled) {
            for (Eigen::Index q = 0; q < n; ++q) {
                theta[q] -= lr * wd * theta[q];
                moments_and_step(q, grad[q]);
            }
        } else {
            for (Eigen::Index q = 0; q < n; ++q) moments_and_step(q, grad[q] + wd * theta[q]);
        }
    });
}

template <class T>
void AdamT<T>::set_lr(double lr) {
    if (!(lr > 0.0) || !std::isfinite(lr)) throw ConfigError("adam: lr must be positive and finite, got " + std::to_string(lr));
    options_.lr = lr;
}

template <class T>
void AdamT<T>::zero_grad() {
    slices_.for_each([&](const ParameterSlice& s) { std::fill_n(params_[s.param]->grad.data() + s.begin, s.count, T(0)); });
}

template <class T>
void AdamT<T>::set_state(AdamStateT<T> s) {
    if (s.t < 0) throw ShapeError("adam: step count must be >= 0, got " + std::to_string(s.t));
    if (s.m.size() != params_.size() || s.v.size() != params_.size())
        throw ShapeError("adam: state has " + std::to_string(s.m.size()) + " first and " + std::to_string(s.v.size()) +
                         " second moments, expected one per parameter (" + std::to_string(params_.size()) + ")");
    for (std::size_t k = 0; k < params_.size(); ++k) {
        const auto& p = params_[k]->value;
        for (const MatrixT<T>* moment : {&s.m[k], &s.v[k]})
            if (moment->rows() != p.rows() || moment->cols() != p.cols())
                throw ShapeError("adam: moment of '" + params_[k]->name + "' is " + std::to_string(moment->rows()) + "x" +
                                 std::to_string(moment->cols()) + ", the parameter " + std::to_string(p.rows()) + "x" +
                                 std::to_string(p.cols()));
    }
    t_ = s.t;
    m_ = std::move(s.m);
    v_ = std::move(s.v);
}

template class AdamT<float>;
template class AdamT<double>;

void check_lr_schedule(const LrSchedule& s) {
    if (s.kind != "constant" && s.kind != "noam" && s.kind != "cosine")
        throw ConfigError("learning-rate schedule '" + s.kind + "' (available: constant, noam, cosine)");
    if (!(s.warmup_epochs >= 0.0)) throw ConfigError("--warmup-epochs: warm-up epochs must be >= 0, got " + std::to_string(s.warmup_epochs));
    if (!(s.ratio > 0.0 && s.ratio <= 1.0)) throw ConfigError("learning-rate schedule ratio must be in (0, 1], got " + std::to_string(s.ratio));
}

double scheduled_lr(const LrSchedule& s, double lr, long step, long steps_per_epoch, int epochs) {
    if (s.kind == "constant") return lr;
    const double low = s.ratio * lr;
    const long total = std::max(1L, steps_per_epoch * static_cast<long>(epochs));
    // Chemprop rounds the warm-up down to whole steps; it never takes the whole run.
    const long warmup = std::min(total - 1, static_cast<long>(s.warmup_epochs * static_cast<double>(steps_per_epoch)));
    if (step < warmup) return low + (lr - low) * static_cast<double>(step) / static_cast<double>(warmup);
    if (step >= total) return low;
    const double progress = static_cast<double>(step - warmup) / static_cast<double>(total - warmup);  // 0 at the peak, 1 at the end
    if (s.kind == "noam") return lr * std::pow(s.ratio, progress);
    constexpr double pi = 3.14159265358979323846;
    return low + (lr - low) * 0.5 * (1.0 + std::cos(pi * progress));
}

}  // namespace gatkit
