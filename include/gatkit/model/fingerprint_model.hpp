// Fingerprint baseline: a linear model on Morgan bits (chem/fingerprint.hpp), one per task.
// The yardstick a graph attention model has to beat on molecular property data
// (MoleculeNet's "ECFP + logistic regression / ridge").
//
// Shapes: B molecules, F = n_bits fingerprint bits, T tasks. A molecule's fingerprint is the list
// of its set bits (distinct indices < F), i.e. one row of a sparse binary design matrix X (B×F).
//
// Classification (one L2-regularised logistic regression per task, = sklearn
// LogisticRegression(C=c) with its default lbfgs solver run to convergence):
//     minimise  Σ_i log(1 + exp(−s_i (x_iᵀ w + b)))  +  ||w||² / (2c),   s_i = ±1,
// the intercept b unpenalised, over the rows where that task's label is present (not NaN).
// Solved by Newton's method with a backtracking (Armijo) line search: the gradient costs
// O(nnz(X)), the Hessian Xᵀ diag(p(1−p)) X + I/c is accumulated from the sparse rows in
// O(Σ_i nnz(x_i)²) and factorised densely (Eigen LLT, (F+1)³/3 flops). Stops when
// ||gradient||_∞ <= tolerance or after max_iter Newton steps (fit_report says which).
//
// Regression (ridge, = sklearn Ridge(alpha)):
//     minimise  Σ_i (y_i − x_iᵀ w − b)²  +  alpha ||w||²,
// intercept unpenalised by centring: w = (X_cᵀ X_c + alpha I)⁻¹ X_cᵀ y_c, b = ȳ − x̄ᵀ w, solved with
// Eigen's LDLT on the F×F normal equations. Tasks whose labelled rows coincide share one
// factorisation.
//
// Tasks are fitted in parallel (one task per thread); each task's arithmetic is sequential, so the
// result does not depend on the thread count.
#pragma once

#include "gatkit/core/types.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gatkit {

struct FingerprintOptions {
    int radius = 2;     // Morgan radius the caller used for the bits (stored with the model)
    int n_bits = 2048;  // F
    double c = 1.0;     // inverse L2 strength of the logistic regressions (sklearn's C), > 0
    double alpha = 1.0; // L2 strength of ridge regression (sklearn's alpha), > 0
    bool regression = false;
    int max_iter = 500;        // Newton steps per logistic task
    double tolerance = 1e-6;   // on the ∞-norm of the gradient of the logistic objective
};

// How the fit of one task went.
struct FingerprintTaskFit {
    std::size_t rows = 0;     // labelled rows used
    int iterations = 0;       // Newton steps (0 for ridge)
    double gradient_norm = 0; // final ∞-norm of the objective's gradient (logistic)
    bool converged = true;
};

class FingerprintModel {
public:
    // bits: B fingerprints; targets: B×T, NaN where a label is missing. Classification labels
    // must be 0 or 1. Throws ShapeError (B differs, a bit index >= n_bits) and ConfigError (bad
    // options, a label other than 0/1, a task without labelled rows, a classification task whose
    // labelled rows are all of one class — its optimum would be at infinity).
    static FingerprintModel fit(const std::vector<std::vector<std::uint32_t>>& bits, const Matrix& targets,
                                const FingerprintOptions& options = {});

    // Rebuilds a model from tensors() (names and shapes checked; ShapeError / ConfigError).
    explicit FingerprintModel(const std::vector<std::pair<std::string, Matrix>>& tensors);

    // B×T: probabilities of class 1 (classification) or predicted values (regression).
    Matrix predict(const std::vector<std::vector<std::uint32_t>>& bits) const;

    // The model as named tensors, for the caller's model file:
    //   "fingerprint.weight"  T×F   (as sklearn's coef_ / a PyTorch Linear weight)
    //   "fingerprint.bias"    1×T
    //   "fingerprint.options" 1×5   radius, n_bits, regression (0/1), c, alpha
    // (float, as every tensor: weights and c/alpha lose their last bits on the way through).
    std::vector<std::pair<std::string, Matrix>> tensors() const;

    const FingerprintOptions& options() const { return options_; }
    int num_tasks() const { return static_cast<int>(bias_.size()); }
    // T×F weights and the T intercepts, in double precision as fitted (float after loading).
    const MatrixT<double>& weight() const { return weight_; }
    const VectorT<double>& bias() const { return bias_; }
    // One entry per task after fit(); empty for a loaded model.
    const std::vector<FingerprintTaskFit>& fit_report() const { return report_; }

private:
    FingerprintModel(FingerprintOptions options, MatrixT<double> weight, VectorT<double> bias,
                     std::vector<FingerprintTaskFit> report);

    FingerprintOptions options_;
    MatrixT<double> weight_;  // T×F
    VectorT<double> bias_;    // T
    std::vector<FingerprintTaskFit> report_;
};

}  // namespace gatkit
