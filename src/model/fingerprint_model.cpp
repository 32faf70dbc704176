#include "gatkit/model/fingerprint_model.hpp"

#include "gatkit/core/error.hpp"

#include <Eigen/Cholesky>

#include <cmath>
#include <map>

namespace gatkit {

namespace {

using Bits = std::vector<std::vector<std::uint32_t>>;
using MatrixD = MatrixT<double>;
using VectorD = VectorT<double>;

std::string task_name(Eigen::Index t) { return "task " + std::to_string(t); }

// Each fingerprint must list distinct bits in ascending order (as morgan_bits returns them): the
// Hessian and Gram accumulations below rely on it to fill only their lower triangle.
void check_bits(const Bits& bits, int n_bits, const char* what) {
    for (std::size_t i = 0; i < bits.size(); ++i)
        for (std::size_t a = 0; a < bits[i].size(); ++a) {
            const std::uint32_t j = bits[i][a];
            if (j >= static_cast<std::uint32_t>(n_bits))
                throw ShapeError(std::string(what) + ": molecule " + std::to_string(i) + " has bit " + std::to_string(j) +
                                 ", expected < n_bits = " + std::to_string(n_bits));
            if (a > 0 && j <= bits[i][a - 1])
                throw ShapeError(std::string(what) + ": molecule " + std::to_string(i) + " lists bit " + std::to_string(j) +
                                 " after bit " + std::to_string(bits[i][a - 1]) + "; bits must be ascending and distinct");
        }
}

// log(1 + exp(x)) without overflow.
double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double sigmoid(double x) {
    if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}

// One logistic task. rows: the labelled rows; y: their labels (0/1). θ = [w (F), b].
struct LogisticTask {
    const Bits& bits;
    const std::vector<std::size_t>& rows;
    const std::vector<double>& y;
    Eigen::Index F;
    double inverse_c;

    // z_i = x_iᵀ w + b for each labelled row.
    VectorD margins(const VectorD& theta) const {
        VectorD z(static_cast<Eigen::Index>(rows.size()));
        for (std::size_t r = 0; r < rows.size(); ++r) {
            double s = theta[F];
            for (const std::uint32_t j : bits[rows[r]]) s += theta[j];
            z[static_cast<Eigen::Index>(r)] = s;
        }
        return z;
    }

    double objective(const VectorD& theta, const VectorD& z) const {
        double f = 0.5 * inverse_c * theta.head(F).squaredNorm();
        // −log σ(z) when y = 1, −log(1 − σ(z)) = −log σ(−z) when y = 0
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const double margin = z[static_cast<Eigen::Index>(r)];
            f += softplus(y[r] == 1 ? -margin : margin);
        }
        return f;
    }

    FingerprintTaskFit solve(VectorD& theta, int max_iter, double tolerance) const {
        FingerprintTaskFit fit;
        fit.rows = rows.size();
        theta.setZero(F + 1);
        VectorD z = margins(theta);
        double f = objective(theta, z);
        MatrixD hessian(F + 1, F + 1);
        VectorD gradient(F + 1);
        for (int iteration = 0;; ++iteration) {
            // gradient = Xᵀ(p − y) + [w/c; 0],  hessian = Xᵀ diag(p(1−p)) X + diag(1/c, …, 1/c, 0)
            gradient.head(F) = inverse_c * theta.head(F);
            gradient[F] = 0;
            hessian.setZero();
            hessian.diagonal().head(F).setConstant(inverse_c);
            for (std::size_t r = 0; r < rows.size(); ++r) {
                const double p = sigmoid(z[static_cast<Eigen::Index>(r)]);
                const double residual = p - y[r], curvature = p * (1 - p);
                const auto& on = bits[rows[r]];
                for (std::size_t a = 0; a < on.size(); ++a) {
                    gradient[on[a]] += residual;
                    // lower triangle only (LLT reads it); bits are ascending so on[a] >= on[b]
                    for (std::size_t b = 0; b <= a; ++b) hessian(on[a], on[b]) += curvature;
                    hessian(F, on[a]) += curvature;
                }
                gradient[F] += residual;
                hessian(F, F) += curvature;
            }
            fit.gradient_norm = gradient.lpNorm<Eigen::Infinity>();
            fit.iterations = iteration;
            if (fit.gradient_norm <= tolerance) return fit;
            if (iteration == max_iter) {
                fit.converged = false;
                return fit;
            }
            Eigen::LLT<MatrixD, Eigen::Lower> llt(hessian);
            VectorD step = llt.info() == Eigen::Success ? VectorD(llt.solve(-gradient)) : VectorD(-gradient);
            // Armijo backtracking: Newton's full step is accepted near the optimum; halve it
            // far away, where the logistic loss is far from its quadratic model.
            const double slope = gradient.dot(step);
            double t = 1.0;
            VectorD trial;
            VectorD trial_z;
            double trial_f = f;
            for (int halving = 0; halving < 60; ++halving, t *= 0.5) {
                trial = theta + t * step;
                trial_z = margins(trial);
                trial_f = objective(trial, trial_z);
                if (trial_f <= f + 1e-4 * t * slope) break;
            }
            if (!(trial_f <= f)) {  // no decrease even for a tiny step: at the optimum to rounding
                fit.converged = fit.gradient_norm <= std::sqrt(tolerance);
                return fit;
            }
            theta = std::move(trial);
            z = std::move(trial_z);
            f = trial_f;
        }
    }
};

}  // namespace

FingerprintModel::FingerprintModel(FingerprintOptions options, MatrixD weight, VectorD bias,
                                   std::vector<FingerprintTaskFit> report)
    : options_(options), weight_(std::move(weight)), bias_(std::move(bias)), report_(std::move(report)) {}

FingerprintModel FingerprintModel::fit(const Bits& bits, const Matrix& targets, const FingerprintOptions& o) {
    if (o.n_bits < 1) throw ConfigError("fingerprint model: n_bits = " + std::to_string(o.n_bits) + ", expected >= 1");
    if (!(o.c > 0)) throw ConfigError("fingerprint model: c = " + std::to_string(o.c) + ", expected > 0");
    if (!(o.alpha > 0)) throw ConfigError("fingerprint model: alpha = " + std::to_string(o.alpha) + ", expected > 0");
    if (o.max_iter < 0) throw ConfigError("fingerprint model: max_iter = " + std::to_string(o.max_iter) + ", expected >= 0");
    if (static_cast<Eigen::Index>(bits.size()) != targets.rows())
        throw ShapeError("fingerprint model: " + std::to_string(bits.size()) + " fingerprints but " +
                         std::to_string(targets.rows()) + " target rows");
    check_bits(bits, o.n_bits, "fingerprint model");
    const Eigen::Index F = o.n_bits, T = targets.cols();

    // Labelled rows and labels of each task, validated before any parallel work.
    std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(T));
    std::vector<std::vector<double>> labels(static_cast<std::size_t>(T));
    for (Eigen::Index t = 0; t < T; ++t) {
        double positives = 0;
        for (Eigen::Index i = 0; i < targets.rows(); ++i) {
            const double v = targets(i, t);
            if (std::isnan(v)) continue;
            if (!o.regression && v != 0 && v != 1)
                throw ConfigError("fingerprint model: " + task_name(t) + ", row " + std::to_string(i) + ": label " +
                                  std::to_string(v) + ", expected 0 or 1");
            if (o.regression && !std::isfinite(v))
                throw ConfigError("fingerprint model: " + task_name(t) + ", row " + std::to_string(i) + ": target " +
                                  std::to_string(v) + " is not finite");
            rows[t].push_back(static_cast<std::size_t>(i));
            labels[t].push_back(v);
            positives += v;
        }
        if (rows[t].empty()) throw ConfigError("fingerprint model: " + task_name(t) + " has no labelled rows");
        const double negatives = static_cast<double>(rows[t].size()) - positives;
        if (!o.regression && (positives == 0 || negatives == 0))
            throw ConfigError("fingerprint model: " + task_name(t) + " has " + std::to_string(static_cast<long>(positives)) +
                              " positive and " + std::to_string(static_cast<long>(negatives)) +
                              " negative labels; logistic regression needs both classes");
    }

    MatrixD weight = MatrixD::Zero(T, F);
    VectorD bias = VectorD::Zero(T);
    std::vector<FingerprintTaskFit> report(static_cast<std::size_t>(T));

    if (!o.regression) {
#pragma omp parallel for schedule(dynamic)
        for (Eigen::Index t = 0; t < T; ++t) {
            const LogisticTask task{bits, rows[t], labels[t], F, 1.0 / o.c};
            VectorD theta;
            report[t] = task.solve(theta, o.max_iter, o.tolerance);
            weight.row(t) = theta.head(F).transpose();
            bias[t] = theta[F];
        }
        return FingerprintModel(o, std::move(weight), std::move(bias), std::move(report));
    }

    // Ridge: tasks with the same labelled rows share the factorised normal equations.
    std::map<std::vector<std::size_t>, std::vector<Eigen::Index>> tasks_by_rows;
    for (Eigen::Index t = 0; t < T; ++t) tasks_by_rows[rows[t]].push_back(t);
    std::vector<const std::pair<const std::vector<std::size_t>, std::vector<Eigen::Index>>*> groups;
    for (const auto& g : tasks_by_rows) groups.push_back(&g);
#pragma omp parallel for schedule(dynamic)
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const auto& [group_rows, group_tasks] = *groups[g];
        const auto n = static_cast<double>(group_rows.size());
        // XᵀX and column sums from the sparse rows (lower triangle; LDLT reads only it).
        MatrixD gram = MatrixD::Zero(F, F);
        VectorD column_sum = VectorD::Zero(F);
        for (const std::size_t i : group_rows) {
            const auto& on = bits[i];
            for (std::size_t a = 0; a < on.size(); ++a) {
                column_sum[on[a]] += 1;
                for (std::size_t b = 0; b <= a; ++b) gram(on[a], on[b]) += 1;
            }
        }
        const VectorD mean = column_sum / n;
        // X_cᵀX_c = XᵀX − n x̄ x̄ᵀ
        gram.triangularView<Eigen::Lower>() -= n * mean * mean.transpose();
        gram.diagonal().array() += o.alpha;
        const Eigen::LDLT<MatrixD, Eigen::Lower> ldlt(gram);
        // X_cᵀ y_c = Xᵀ(y − ȳ), one column per task of the group
        MatrixD rhs = MatrixD::Zero(F, static_cast<Eigen::Index>(group_tasks.size()));
        VectorD y_mean(static_cast<Eigen::Index>(group_tasks.size()));
        for (std::size_t k = 0; k < group_tasks.size(); ++k) {
            const auto& y = labels[group_tasks[k]];
            double sum = 0;
            for (const double v : y) sum += v;
            y_mean[static_cast<Eigen::Index>(k)] = sum / n;
            for (std::size_t r = 0; r < group_rows.size(); ++r)
                for (const std::uint32_t j : bits[group_rows[r]])
                    rhs(j, static_cast<Eigen::Index>(k)) += y[r] - y_mean[static_cast<Eigen::Index>(k)];
        }
        const MatrixD w = ldlt.solve(rhs);
        for (std::size_t k = 0; k < group_tasks.size(); ++k) {
            const Eigen::Index t = group_tasks[k];
            weight.row(t) = w.col(static_cast<Eigen::Index>(k)).transpose();
            bias[t] = y_mean[static_cast<Eigen::Index>(k)] - mean.dot(w.col(static_cast<Eigen::Index>(k)));
            report[t].rows = group_rows.size();
        }
    }
    return FingerprintModel(o, std::move(weight), std::move(bias), std::move(report));
}

Matrix FingerprintModel::predict(const Bits& bits) const {
    check_bits(bits, options_.n_bits, "fingerprint model predict");
    const Eigen::Index T = weight_.rows();
    Matrix out(static_cast<Eigen::Index>(bits.size()), T);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < bits.size(); ++i)
        for (Eigen::Index t = 0; t < T; ++t) {
            double z = bias_[t];
            for (const std::uint32_t j : bits[i]) z += weight_(t, j);
            out(static_cast<Eigen::Index>(i), t) = static_cast<float>(options_.regression ? z : sigmoid(z));
        }
    return out;
}

std::vector<std::pair<std::string, Matrix>> FingerprintModel::tensors() const {
    Matrix options(1, 5);
    options << static_cast<float>(options_.radius), static_cast<float>(options_.n_bits),
        options_.regression ? 1.0f : 0.0f, static_cast<float>(options_.c), static_cast<float>(options_.alpha);
    return {{"fingerprint.weight", weight_.cast<float>()},
            {"fingerprint.bias", bias_.cast<float>().transpose()},
            {"fingerprint.options", options}};
}

FingerprintModel::FingerprintModel(const std::vector<std::pair<std::string, Matrix>>& tensors) {
    const Matrix* found[3] = {nullptr, nullptr, nullptr};
    const char* names[3] = {"fingerprint.weight", "fingerprint.bias", "fingerprint.options"};
    for (const auto& [name, value] : tensors)
        for (int k = 0; k < 3; ++k)
            if (name == names[k]) found[k] = &value;
    for (int k = 0; k < 3; ++k)
        if (!found[k]) throw ConfigError(std::string("fingerprint model: tensor '") + names[k] + "' is missing");
    const Matrix& w = *found[0];
    const Matrix& b = *found[1];
    const Matrix& opt = *found[2];
    if (opt.rows() != 1 || opt.cols() != 5)
        throw ShapeError("fingerprint model: fingerprint.options is " + std::to_string(opt.rows()) + "×" +
                         std::to_string(opt.cols()) + ", expected 1×5");
    // Radius 0-16 and 1 to 2^24 bits: anything else is a damaged file (and a float beyond int
    // cannot be converted at all).
    if (!(opt(0, 0) >= 0 && opt(0, 0) <= 16 && opt(0, 0) == std::floor(opt(0, 0))) ||
        !(opt(0, 1) >= 1 && opt(0, 1) <= (1 << 24) && opt(0, 1) == std::floor(opt(0, 1))))
        throw ConfigError("fingerprint model: fingerprint.options holds radius " + std::to_string(opt(0, 0)) + " and " +
                          std::to_string(opt(0, 1)) + " bits (expected an integer radius 0-16 and 1 to 16777216 bits)");
    options_.radius = static_cast<int>(opt(0, 0));
    options_.n_bits = static_cast<int>(opt(0, 1));
    options_.regression = opt(0, 2) != 0;
    options_.c = opt(0, 3);
    options_.alpha = opt(0, 4);
    if (w.cols() != options_.n_bits)
        throw ShapeError("fingerprint model: fingerprint.weight has " + std::to_string(w.cols()) +
                         " columns, expected n_bits = " + std::to_string(options_.n_bits));
    if (b.rows() != 1 || b.cols() != w.rows())
        throw ShapeError("fingerprint model: fingerprint.bias is " + std::to_string(b.rows()) + "×" +
                         std::to_string(b.cols()) + ", expected 1×" + std::to_string(w.rows()) + " (one per task)");
    weight_ = w.cast<double>();
    bias_ = b.row(0).transpose().cast<double>();
}

}  // namespace gatkit
