// Finite-difference gradient checks in double precision (the dlib test_layer idea).
//
// For a scalar loss L(θ) computed by `loss()`, and analytic gradients already accumulated into
// each parameter's grad, compare grad[k] with the central difference
//   (L(θ + h e_k) − L(θ − h e_k)) / 2h
// for every entry k. Gradients are pre-filled with a sentinel before backward by the caller
// (see prefill_grads), so an entry that backward overwrote instead of accumulating, or never
// wrote, fails.
#pragma once

#include "gatkit/core/parameter.hpp"

#include <functional>
#include <string>

namespace gatkit::test {

struct Tolerance {
    double abs = 1e-6;
    double rel = 1e-5;
};

inline constexpr double kSentinel = 0.375;  // a value no gradient here happens to equal

// Sets every grad to kSentinel (call before backward); check_gradient subtracts it again.
void prefill_grads(const ParameterList<double>& params);

// Worst mismatch found, for messages.
struct GradcheckResult {
    bool ok = true;
    std::string worst;  // "layers.0.att_src[3]: analytic 0.1 vs numeric 0.2"
    std::size_t checked = 0;
};

// Compares (grad - kSentinel) against central differences of `loss` for every parameter entry.
GradcheckResult check_parameter_gradients(const ParameterList<double>& params, const std::function<double()>& loss,
                                          Tolerance tol = {}, double step = 1e-6);

// Compares an analytic input gradient dx against central differences of loss(x).
GradcheckResult check_input_gradient(MatrixT<double>& x, const MatrixT<double>& dx, const std::function<double()>& loss,
                                     Tolerance tol = {}, double step = 1e-6);

// Central differences in float on about `samples` entries of every parameter against the
// gradients backward accumulated into grad (zeroed before backward), each compared entry a Catch
// CHECK. An entry where the one-sided differences disagree sits on a kink (ReLU/ELU/LeakyReLU
// switching inside the step): it is skipped and counted, and callers bound how many may be.
struct FloatGradcheckCounts {
    std::size_t checked = 0, kinks = 0;
};
FloatGradcheckCounts check_float_gradients(const ParameterList<float>& params, const std::function<double()>& loss, Eigen::Index samples = 7);

}  // namespace gatkit::test
