// Mlp: reference, gradients (with and without dropout), names, threads.
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/mlp.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include <catch2/catch.hpp>

using namespace gatkit;
using gatkit::test::random_matrix;

TEST_CASE("Mlp equals Linear → activation → Linear in evaluation", "[nn][mlp]") {
    for (const Activation act : {Activation::relu, Activation::elu, Activation::none}) {
        CAPTURE(to_string(act));
        Rng rng(12);
        MlpT<double> mlp({.in = 5, .hidden = 7, .out = 3, .dropout = 0.5, .activation = act}, rng);
        mlp.lin0().bias().value = random_matrix<double>(1, 7, rng);
        mlp.lin1().bias().value = random_matrix<double>(1, 3, rng);
        const MatrixT<double> x = random_matrix<double>(9, 5, rng);
        MlpCache<double> cache;
        const MatrixT<double> y = mlp.forward(x, cache, /*training=*/false);  // no dropout, no rng needed
        MatrixT<double> z = x * mlp.lin0().weight().value;
        z.rowwise() += mlp.lin0().bias().value.row(0);
        for (Eigen::Index k = 0; k < z.size(); ++k) z.data()[k] = activate(act, z.data()[k]);
        MatrixT<double> ref = z * mlp.lin1().weight().value;
        ref.rowwise() += mlp.lin1().bias().value.row(0);
        CHECK((y - ref).cwiseAbs().maxCoeff() < 1e-12);
    }
}

TEST_CASE("Mlp gradients match finite differences", "[nn][mlp][gradcheck]") {
    for (const double dropout : {0.0, 0.4})
        for (const Activation act : {Activation::relu, Activation::elu, Activation::leaky_relu}) {
            CAPTURE(dropout, to_string(act));
            Rng rng(13);
            MlpT<double> mlp({.in = 4, .hidden = 6, .out = 2, .dropout = dropout, .activation = act}, rng);
            MatrixT<double> x = random_matrix<double>(70, 4, rng);  // > one 64-row chunk
            const MatrixT<double> weights = random_matrix<double>(70, 2, rng);
            const std::uint64_t dropout_seed = rng.next_u64();
            auto loss = [&] {
                Rng r(dropout_seed);
                MlpCache<double> c;
                return (mlp.forward(x, c, /*training=*/true, &r).array() * weights.array()).sum();
            };
            MlpCache<double> cache;
            Rng r(dropout_seed);
            mlp.forward(x, cache, true, &r);
            ParameterList<double> params;
            mlp.parameters(params);
            REQUIRE(params.size() == 4u);
            test::prefill_grads(params);
            const MatrixT<double> dx = mlp.backward(weights, cache);
            const auto pr = test::check_parameter_gradients(params, loss);
            INFO(pr.worst);
            CHECK(pr.ok);
            CHECK(pr.checked == count_values(params));
            const auto xr = test::check_input_gradient(x, dx, loss);
            INFO(xr.worst);
            CHECK(xr.ok);
            CHECK(mlp.backward(weights, cache, /*need_dx=*/false).size() == 0);
        }
}

TEST_CASE("Mlp parameters are named as torch.nn.Sequential(Linear, act, Dropout, Linear)", "[nn][mlp]") {
    Rng rng(1);
    Mlp mlp({.in = 3, .hidden = 4, .out = 2}, rng, "head");
    ParameterList<float> params;
    mlp.parameters(params);
    REQUIRE(params.size() == 4u);
    CHECK(params[0]->name == "head.0.weight");
    CHECK(params[1]->name == "head.0.bias");
    CHECK(params[2]->name == "head.3.weight");
    CHECK(params[3]->name == "head.3.bias");
    CHECK(params[2]->value.rows() == 4);
    CHECK(params[2]->value.cols() == 2);
}

TEST_CASE("Mlp gives identical results with 1 and 2 threads", "[nn][mlp][threads]") {
    const int saved = thread_count();
    auto run = [&](int threads) {
        set_thread_count(threads);
        Rng rng(55);
        Mlp mlp({.in = 40, .hidden = 64, .out = 5, .dropout = 0.5}, rng);
        const Matrix x = random_matrix<float>(500, 40, rng);
        MlpCache<float> cache;
        Rng drop(9);
        Matrix y = mlp.forward(x, cache, true, &drop);
        Matrix dx = mlp.backward(random_matrix<float>(500, 5, rng), cache);
        ParameterList<float> params;
        mlp.parameters(params);
        std::vector<Matrix> grads;
        for (auto* p : params) grads.push_back(p->grad);
        return std::make_tuple(y, dx, grads);
    };
    const auto [y1, dx1, g1] = run(1);
    const auto [y2, dx2, g2] = run(2);
    set_thread_count(saved);
    CHECK((y1.array() == y2.array()).all());
    CHECK((dx1.array() == dx2.array()).all());
    for (std::size_t k = 0; k < g1.size(); ++k) CHECK((g1[k].array() == g2[k].array()).all());
}

TEST_CASE("Mlp rejects bad options and shapes with the numbers", "[nn][mlp]") {
    Rng rng(1);
    CHECK_THROWS_WITH(Mlp({.in = 3, .hidden = 0, .out = 2}, rng), Catch::Contains("hidden = 0"));
    CHECK_THROWS_WITH(Mlp({.in = 3, .hidden = 4, .out = 2, .dropout = 1.5}, rng), Catch::Contains("dropout"));
    Mlp mlp({.in = 3, .hidden = 4, .out = 2, .dropout = 0.5}, rng);
    MlpCache<float> cache;
    CHECK_THROWS_WITH(mlp.forward(Matrix::Zero(5, 7), cache, false), Catch::Contains("7 columns") && Catch::Contains("in = 3"));
    CHECK_THROWS_AS(mlp.forward(Matrix::Zero(5, 3), cache, /*training=*/true, /*rng=*/nullptr), ConfigError);
    mlp.forward(Matrix::Zero(5, 3), cache, false);
    CHECK_THROWS_WITH(mlp.backward(Matrix::Zero(5, 3), cache), Catch::Contains("5x3") && Catch::Contains("expected 5x2"));
}
