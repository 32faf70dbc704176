// Fingerprint baseline: Morgan bits against RDKit Python, logistic regression and ridge against
// scikit-learn 1.2.1 on a small synthetic problem that Python reproduces exactly (the
// generator below is a plain LCG written the same way in both languages).
//
// Reference script (values printed with "%.8f"):
//   class Lcg: state=(state*1103515245+12345) % 2**31; next() returns state >> 8
//   N, F = 60, 16; g = Lcg(7); X[i,j] = g.next() % 100 < 30 (row by row)
//   per row i: y0 = (X[i]@w0 + 0.5 > 0) != (g.next() % 100 < 10)           w0_j = j%5 - 2
//              y1 = (X[i]@w1 - 0.25 > 0) != (g.next() % 100 < 15), NaN if i%4 == 3
//                                                                        w1_j = (3j)%4 - 1.5
//              noise = (g.next() % 1000)/1000 - 0.5
//              r0 = X[i]@w0 + 1 + noise; r1 = X[i]@w2 - 2 + noise, NaN if i%5 == 2
//                                                                        w2_j = 0.5 (j%3)
//   LogisticRegression(C=1.0, solver="newton-cg", tol=1e-12).fit(X[present], y[present])
//   (equal to 1e-8 to a plain numpy Newton iteration run to gradient 1e-13; the default lbfgs
//   stops within 1.1e-4 of it), and Ridge(alpha=1.0).fit(X[present], r[present]).
#include "gatkit/chem/fingerprint.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/model/fingerprint_model.hpp"

#include <GraphMol/ROMol.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace gatkit;

namespace {

constexpr double kCoefficientTolerance = 1e-4;  // our Newton stops at ||g||∞ <= 1e-6
constexpr double kRidgeTolerance = 1e-5;        // closed form; targets are float here, double in Python
constexpr int N = 60, F = 16;
const float kMissing = std::numeric_limits<float>::quiet_NaN();

struct Lcg {
    std::uint64_t state;
    std::uint64_t next() {
        state = (state * 1103515245ULL + 12345ULL) % (1ULL << 31);
        return state >> 8;
    }
};

struct Synthetic {
    std::vector<std::vector<std::uint32_t>> bits;
    Matrix classes = Matrix(N, 2), values = Matrix(N, 2);
};

Synthetic synthetic() {
    Synthetic d;
    Lcg g{7};
    std::vector<std::vector<double>> x(N, std::vector<double>(F, 0.0));
    for (int i = 0; i < N; ++i) {
        d.bits.emplace_back();
        for (int j = 0; j < F; ++j)
            if (g.next() % 100 < 30) {
                x[i][j] = 1;
                d.bits.back().push_back(static_cast<std::uint32_t>(j));
            }
    }
    for (int i = 0; i < N; ++i) {
        double z0 = 0.5, z1 = -0.25, v0 = 1.0, v1 = -2.0;
        for (int j = 0; j < F; ++j) {
            z0 += x[i][j] * ((j % 5) - 2.0);
            z1 += x[i][j] * (((j * 3) % 4) - 1.5);
            v0 += x[i][j] * ((j % 5) - 2.0);
            v1 += x[i][j] * 0.5 * (j % 3);
        }
        const bool flip0 = g.next() % 100 < 10;
        const bool flip1 = g.next() % 100 < 15;
        const double noise = static_cast<double>(g.next() % 1000) / 1000.0 - 0.5;
        d.classes(i, 0) = (z0 > 0) != flip0 ? 1.0f : 0.0f;
        d.classes(i, 1) = i % 4 == 3 ? kMissing : ((z1 > 0) != flip1 ? 1.0f : 0.0f);
        d.values(i, 0) = static_cast<float>(v0 + noise);
        d.values(i, 1) = i % 5 == 2 ? kMissing : static_cast<float>(v1 + noise);
    }
    return d;
}

void check_coefficients(const FingerprintModel& m, int task, const std::vector<double>& coef, double bias, double tol) {
    INFO("task " << task);
    for (int j = 0; j < F; ++j) {
        INFO("bit " << j);
        CHECK(m.weight()(task, j) == Approx(coef[j]).margin(tol));
    }
    CHECK(m.bias()[task] == Approx(bias).margin(tol));
}

}  // namespace

TEST_CASE("morgan_bits equals RDKit Python GetMorganFingerprintAsBitVect", "[chem][fingerprint]") {
    // list(AllChem.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(s), r, n).GetOnBits())
    const auto phenol = chem::parse_smiles("c1ccccc1O");
    CHECK(chem::morgan_bits(*phenol) ==
          std::vector<std::uint32_t>{65, 389, 745, 807, 1088, 1199, 1380, 1602, 1750, 1778, 1873});
    const auto aspirin = chem::parse_smiles("CC(=O)Oc1ccccc1C(=O)O");
    CHECK(chem::morgan_bits(*aspirin, 1, 512) ==
          std::vector<std::uint32_t>{11, 33, 64, 138, 183, 193, 214, 295, 337, 356, 381, 389, 434, 455, 456, 505});
    CHECK(chem::morgan_bits(*aspirin).size() == 24);
    CHECK_THROWS_AS(chem::morgan_bits(*phenol, -1), ConfigError);
    CHECK_THROWS_AS(chem::morgan_bits(*phenol, 2, 0), ConfigError);
}

TEST_CASE("logistic fingerprint model matches sklearn LogisticRegression(C=1)", "[model][fingerprint]") {
    const Synthetic d = synthetic();
    const FingerprintModel m = FingerprintModel::fit(d.bits, d.classes, {.n_bits = F});
    REQUIRE(m.num_tasks() == 2);
    REQUIRE(m.fit_report().size() == 2);
    for (const auto& fit : m.fit_report()) {
        CHECK(fit.converged);
        CHECK(fit.gradient_norm <= 1e-6);
        CHECK(fit.iterations < 20);  // Newton on a well-regularised problem
    }
    CHECK(m.fit_report()[0].rows == 60);
    CHECK(m.fit_report()[1].rows == 45);  // the NaN labels are left out
    check_coefficients(m, 0,
                       {-0.69142408, -0.58533055, -0.16225596, 0.55321771, 0.47186933, -1.79228172, -0.40219141, 0.20999777,
                        0.31496193, 0.58284745, -0.38611072, -0.29448204, -0.44081739, 1.01370425, 0.66134604, -1.50493965},
                       1.08146087, kCoefficientTolerance);
    check_coefficients(m, 1,
                       {-0.84831492, 1.22552008, 0.05410185, 0.16158504, -1.13245001, -0.00899795, -0.24984380, -0.60728635,
                        -0.40749669, 0.78900829, 1.06871287, -0.43832629, -0.75597012, 0.74809679, 0.52081151, -0.11142934},
                       0.20733151, kCoefficientTolerance);
    // predict_proba(X[:3])[:, 1]
    const Matrix p = m.predict({d.bits[0], d.bits[1], d.bits[2]});
    REQUIRE(p.rows() == 3);
    REQUIRE(p.cols() == 2);
    CHECK(p(0, 0) == Approx(0.7608738538).margin(1e-5));
    CHECK(p(1, 0) == Approx(0.3220417393).margin(1e-5));
    CHECK(p(2, 0) == Approx(0.4735070083).margin(1e-5));
    CHECK(p(0, 1) == Approx(0.8758455177).margin(1e-5));
    CHECK(p(1, 1) == Approx(0.7035709988).margin(1e-5));
    CHECK(p(2, 1) == Approx(0.0851516512).margin(1e-5));
}

TEST_CASE("ridge fingerprint model matches sklearn Ridge(alpha=1)", "[model][fingerprint]") {
    const Synthetic d = synthetic();
    const FingerprintModel m = FingerprintModel::fit(d.bits, d.values, {.n_bits = F, .regression = true});
    check_coefficients(m, 0,
                       {-1.83591479, -0.92426912, 0.21609057, 0.91757696, 1.67002751, -1.93433943, -1.04918361, -0.12117404,
                        0.91252321, 1.88269359, -1.98248315, -0.81619892, -0.09925079, 0.81163156, 1.98567255, -1.88880556},
                       1.11393769, kRidgeTolerance);
    check_coefficients(m, 1,
                       {-0.06085665, 0.38093105, 1.00944397, -0.09215086, 0.34427717, 0.87033975, -0.00476401, 0.32468728,
                        0.82166116, 0.18329328, 0.21276796, 0.72586569, -0.04106818, 0.35839745, 0.86766055, 0.11865845},
                       -1.52365158, kRidgeTolerance);
    CHECK(m.fit_report()[1].rows == 48);
    // prediction = bias + the weights of the set bits
    const Matrix p = m.predict({d.bits[4]});
    double expected = m.bias()[0];
    for (const auto j : d.bits[4]) expected += m.weight()(0, j);
    CHECK(p(0, 0) == Approx(expected).margin(1e-5));
}

TEST_CASE("fingerprint model: tensors round trip", "[model][fingerprint]") {
    const Synthetic d = synthetic();
    const FingerprintModel m = FingerprintModel::fit(d.bits, d.classes, {.radius = 3, .n_bits = F, .c = 0.5});
    const auto tensors = m.tensors();
    REQUIRE(tensors.size() == 3);
    CHECK(tensors[0].first == "fingerprint.weight");
    CHECK(tensors[0].second.rows() == 2);
    CHECK(tensors[0].second.cols() == F);
    const FingerprintModel loaded(tensors);
    CHECK(loaded.options().radius == 3);
    CHECK(loaded.options().n_bits == F);
    CHECK(loaded.options().c == 0.5);
    CHECK_FALSE(loaded.options().regression);
    const Matrix a = m.predict(d.bits), b = loaded.predict(d.bits);
    CHECK((a - b).cwiseAbs().maxCoeff() < 1e-6f);  // weights travel as float

    auto broken = tensors;
    broken[1].second = Matrix::Zero(1, 3);
    CHECK_THROWS_AS(FingerprintModel(broken), ShapeError);
    broken.pop_back();
    CHECK_THROWS_WITH(FingerprintModel(broken), Catch::Contains("fingerprint.options"));
}

TEST_CASE("fingerprint model: bad input names the values", "[model][fingerprint]") {
    const Synthetic d = synthetic();
    CHECK_THROWS_AS(FingerprintModel::fit(d.bits, d.classes, {.n_bits = 8}), ShapeError);  // bit 8..15 out of range
    CHECK_THROWS_WITH(FingerprintModel::fit({{1, 1}}, Matrix::Ones(1, 1), {.n_bits = F}),
                      Catch::Contains("ascending and distinct"));
    Matrix labels = d.classes;
    labels(5, 0) = 2;
    CHECK_THROWS_WITH(FingerprintModel::fit(d.bits, labels, {.n_bits = F}),
                      Catch::Contains("task 0, row 5: label 2"));
    Matrix one_class = Matrix::Ones(N, 1);
    CHECK_THROWS_WITH(FingerprintModel::fit(d.bits, one_class, {.n_bits = F}),
                      Catch::Contains("60 positive and 0 negative"));
    Matrix empty_task = Matrix::Constant(N, 1, kMissing);
    CHECK_THROWS_WITH(FingerprintModel::fit(d.bits, empty_task, {.n_bits = F, .regression = true}),
                      Catch::Contains("no labelled rows"));
    CHECK_THROWS_AS(FingerprintModel::fit(d.bits, d.classes, {.n_bits = F, .c = 0}), ConfigError);
    CHECK_THROWS_AS(FingerprintModel::fit({{0}}, d.classes, {.n_bits = F}), ShapeError);  // 1 fingerprint, 60 rows
}
