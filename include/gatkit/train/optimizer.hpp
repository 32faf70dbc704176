// Adam (Kingma & Ba 2015) with L2 weight decay folded into the gradient, as
// torch.optim.Adam(weight_decay=…) and the GAT paper; and AdamW (Loshchilov & Hutter 2019) with
// decoupled decay, as torch.optim.AdamW. Bias-corrected moments, same update order as PyTorch:
//
//   Adam:  g = grad + wd·θ;  m = β1 m + (1-β1) g;  v = β2 v + (1-β2) g²
//          θ -= lr · (m / (1-β1^t)) / (sqrt(v / (1-β2^t)) + eps)
//   AdamW: θ -= lr·wd·θ first, then the same step with g = grad.
#pragma once

#include "gatkit/core/parameter.hpp"

#include <string>
#include <vector>

namespace gatkit {

struct AdamOptions {
    double lr = 0.005;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weight_decay = 0.0;
    bool decoupled = false;  // true: AdamW
};

// What Adam carries from one step to the next: the step count t and the moments m and v (one
// matrix per parameter, in the parameter list's order). Saved in checkpoints
// (train/checkpoint.hpp) so a resumed run takes exactly the steps an uninterrupted one would.
template <class T>
struct AdamStateT {
    long t = 0;
    std::vector<MatrixT<T>> m, v;
};

template <class T>
class AdamT {
public:
    AdamT(ParameterList<T> params, const AdamOptions& options);
    void step();
    void zero_grad();
    long steps() const { return t_; }
    const AdamOptions& options() const { return options_; }
    // The learning rate of the next steps (a schedule sets it before each step). ConfigError
    // unless positive.
    void set_lr(double lr);
    AdamStateT<T> state() const { return {t_, m_, v_}; }
    // ShapeError unless the state has one m and one v of each parameter's shape, and t >= 0.
    void set_state(AdamStateT<T> state);

private:
    ParameterList<T> params_;
    AdamOptions options_;
    ParameterSlices slices_;  // the fixed cut the element-wise passes run in parallel
    std::vector<MatrixT<T>> m_, v_;
    long t_ = 0;
};

using Adam = AdamT<float>;
using AdamState = AdamStateT<float>;

// Learning-rate schedules, a function of the optimiser's step count only, so a run resumed from
// a checkpoint (which restores that count) follows the same curve. `lr` is the peak:
//
//   constant  lr at every step.
//   noam      Chemprop's NoamLR: linear warm-up from ratio·lr to lr over warmup_epochs, then
//             exponential decay that reaches ratio·lr at the end of the last epoch.
//   cosine    the same warm-up, then half a cosine from lr down to ratio·lr at the last epoch.
//
// Steps past the last epoch (a resumed run given more epochs than planned) stay at ratio·lr.
struct LrSchedule {
    std::string kind = "constant";  // constant | noam | cosine
    double warmup_epochs = 2.0;     // Chemprop's default
    double ratio = 0.1;             // first and last learning rate over the peak (Chemprop: 1e-4 / 1e-3)
};

// ConfigError unless the kind is known, warmup_epochs >= 0 and 0 < ratio <= 1.
void check_lr_schedule(const LrSchedule& schedule);
// The learning rate of the step that follows `step` completed steps, in a run of `epochs`
// epochs of `steps_per_epoch` steps each.
double scheduled_lr(const LrSchedule& schedule, double lr, long step, long steps_per_epoch, int epochs);

}  // namespace gatkit
