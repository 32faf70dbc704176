#include "gatkit/nn/dropout.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

using namespace gatkit;

TEST_CASE("dropout keeps about 1-p of the entries, scaled by 1/(1-p)", "[nn][dropout]") {
    Rng rng(1);
    const Matrix x = Matrix::Ones(200, 100);
    DropoutCache cache;
    const Matrix y = dropout_forward(x, 0.6, /*training=*/true, &rng, cache);
    const double kept = (y.array() != 0.0f).cast<double>().mean();
    CHECK(kept == Approx(0.4).margin(0.02));
    CHECK(((y.array() == 0.0f) || (y.array() == 2.5f)).all());
    CHECK(y.mean() == Approx(1.0).margin(0.05));
    // backward applies the same mask
    const Matrix dx = dropout_backward(x, 0.6, cache);
    CHECK((dx.array() == y.array()).all());
}

TEST_CASE("dropout is the identity in evaluation or with p = 0", "[nn][dropout]") {
    Rng rng(1);
    const Matrix x = test::random_matrix<float>(5, 5, rng);
    DropoutCache cache;
    CHECK((dropout_forward(x, 0.5, false, &rng, cache).array() == x.array()).all());
    CHECK((dropout_forward(x, 0.0, true, &rng, cache).array() == x.array()).all());
    CHECK_THROWS_AS(dropout_forward(x, 1.0, true, &rng, cache), ConfigError);
    CHECK_THROWS_AS(dropout_forward(x, 0.5, true, nullptr, cache), ConfigError);
}

TEST_CASE("dropout masks depend on the seed, not on the call order of threads", "[nn][dropout]") {
    Rng a(42), b(42), c(43);
    DropoutCache ca, cb, cc;
    const Matrix x = Matrix::Ones(50, 50);
    const Matrix ya = dropout_forward(x, 0.5, true, &a, ca);
    const Matrix yb = dropout_forward(x, 0.5, true, &b, cb);
    const Matrix yc = dropout_forward(x, 0.5, true, &c, cc);
    CHECK((ya.array() == yb.array()).all());
    CHECK(!(ya.array() == yc.array()).all());
}

TEST_CASE("the integer dropout test keeps exactly the draws uniform_at(key, k) >= float(p)", "[nn][dropout]") {
    Rng rng(17);
    for (const double p : {0.0, 0.1, 0.3, 1.0 / 3.0, 0.5, 0.6, 0.9, 0.999999}) {
        const std::uint64_t threshold = dropout_threshold(p);
        const std::uint64_t key = rng.next_u64();
        long kept = 0;
        for (std::uint64_t k = 0; k < 200000; ++k) {
            const bool by_bits = uniform_bits_at(key, k) >= threshold;
            REQUIRE(by_bits == (uniform_at(key, k) >= static_cast<float>(p)));
            REQUIRE(by_bits == dropout_keeps(key, k, p));
            kept += by_bits;
        }
        CHECK(std::abs(static_cast<double>(kept) / 200000.0 - (1.0 - p)) < 0.01);
    }
    // the boundary itself: u = threshold is kept, u = threshold - 1 is not
    const double p = 0.6;
    const std::uint64_t t = dropout_threshold(p);
    CHECK(static_cast<float>(t) / 16777216.0f >= static_cast<float>(p));
    CHECK(static_cast<float>(t - 1) / 16777216.0f < static_cast<float>(p));
}
