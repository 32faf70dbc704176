#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gatkit::test {

void prefill_grads(const ParameterList<double>& params) {
    for (auto* p : params) p->grad.setConstant(kSentinel);
}

namespace {

void compare(GradcheckResult& r, const std::string& name, Eigen::Index k, double analytic, double numeric, Tolerance tol,
             double& worst_excess) {
    ++r.checked;
    const double err = std::abs(analytic - numeric);
    const double allowed = tol.abs + tol.rel * std::max(std::abs(analytic), std::abs(numeric));
    if (!(err <= allowed)) {  // NaN fails too
        r.ok = false;
        if (!(err - allowed <= worst_excess)) {
            worst_excess = err - allowed;
            std::ostringstream s;
            s.precision(12);
            s << name << "[" << k << "]: analytic " << analytic << " vs numeric " << numeric;
            r.worst = s.str();
        }
    }
}

double central_difference(double& value, const std::function<double()>& loss, double step) {
    const double saved = value;
    value = saved + step;
    const double up = loss();
    value = saved - step;
    const double down = loss();
    value = saved;
    return (up - down) / (2 * step);
}

}  // namespace

GradcheckResult check_parameter_gradients(const ParameterList<double>& params, const std::function<double()>& loss, Tolerance tol,
                                          double step) {
    GradcheckResult r;
    double worst = -1;
    for (auto* p : params)
        for (Eigen::Index k = 0; k < p->value.size(); ++k) {
            const double analytic = p->grad.data()[k] - kSentinel;
            compare(r, p->name, k, analytic, central_difference(p->value.data()[k], loss, step), tol, worst);
        }
    return r;
}

GradcheckResult check_input_gradient(MatrixT<double>& x, const MatrixT<double>& dx, const std::function<double()>& loss, Tolerance tol,
                                     double step) {
    GradcheckResult r;
    double worst = -1;
    for (Eigen::Index k = 0; k < x.size(); ++k)
        compare(r, "x", k, dx.data()[k], central_difference(x.data()[k], loss, step), tol, worst);
    return r;
}

FloatGradcheckCounts check_float_gradients(const ParameterList<float>& params, const std::function<double()>& loss, Eigen::Index samples) {
    FloatGradcheckCounts n;
    const double base = loss();
    for (auto* p : params) {
        for (Eigen::Index k = 0; k < p->value.size(); k += std::max<Eigen::Index>(1, p->value.size() / samples)) {
            const float saved = p->value.data()[k];
            const float h = 1e-3f;
            p->value.data()[k] = saved + h;
            const double up = loss();
            p->value.data()[k] = saved - h;
            const double down = loss();
            p->value.data()[k] = saved;
            const double numeric = (up - down) / (2.0 * h), analytic = p->grad.data()[k];
            if (std::abs((up - base) - (base - down)) / h > 2e-3 + 2e-2 * std::abs(numeric)) {
                ++n.kinks;
                continue;
            }
            INFO(p->name << "[" << k << "]: analytic " << analytic << " vs numeric " << numeric);
            CHECK(std::abs(analytic - numeric) <= 2e-3 + 2e-2 * std::abs(numeric));
            ++n.checked;
        }
    }
    return n;
}

}  // namespace gatkit::test
