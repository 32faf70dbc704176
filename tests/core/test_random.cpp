// Rng (sequential splitmix64 stream) and uniform_at (counter-based draws).
#include "gatkit/core/random.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

using namespace gatkit;

TEST_CASE("Rng: same seed gives the same stream, other seeds differ", "[core][random]") {
    Rng a(42), b(42), c(43);
    std::vector<std::uint64_t> sa, sb, sc;
    for (int k = 0; k < 1000; ++k) {
        sa.push_back(a.next_u64());
        sb.push_back(b.next_u64());
        sc.push_back(c.next_u64());
    }
    CHECK(sa == sb);
    // Adjacent seeds must not give the same stream nor a shifted copy of it.
    int equal = 0;
    for (int k = 0; k < 1000; ++k) equal += sa[k] == sc[k];
    CHECK(equal == 0);
    CHECK(std::find(sa.begin(), sa.end(), sc[0]) == sa.end());

    // Seed 0 is a valid seed like any other.
    Rng z0(0), z1(0);
    CHECK(z0.next_u64() == z1.next_u64());
    CHECK(Rng(0).next_u64() != Rng(1).next_u64());
}

TEST_CASE("Rng: state round trip and split are deterministic", "[core][random]") {
    Rng a(7);
    a.next_u64();
    const auto saved = a.state();
    const auto x = a.next_u64();
    a.set_state(saved);
    CHECK(a.next_u64() == x);

    Rng p(9), q(9);
    Rng ps = p.split(), qs = q.split();
    CHECK(ps.next_u64() == qs.next_u64());
    CHECK(p.next_u64() == q.next_u64());
}

TEST_CASE("Rng: peek_u64(k) is the k-th next value and skip(k) draws k values", "[core][random]") {
    Rng a(13), b(13);
    std::vector<std::uint64_t> ahead;
    for (std::uint64_t k = 1; k <= 5; ++k) ahead.push_back(a.peek_u64(k));
    for (std::uint64_t k = 0; k < 5; ++k) CHECK(b.next_u64() == ahead[k]);
    a.skip(5);
    CHECK(a.state() == b.state());
    CHECK(Rng::scale_below(a.peek_u64(1), 37) == b.below(37));
}

TEST_CASE("Rng::uniform lies in 0 <= u < 1 with mean 1/2 and variance 1/12", "[core][random]") {
    Rng rng(1);
    const int n = 200000;
    double sum = 0, sum2 = 0, lo = 1, hi = 0;
    for (int k = 0; k < n; ++k) {
        const double u = rng.uniform();
        REQUIRE(u >= 0.0);
        REQUIRE(u < 1.0);
        sum += u;
        sum2 += u * u;
        lo = std::min(lo, u);
        hi = std::max(hi, u);
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    // standard error of the mean is sqrt(1/12/n) ≈ 6.5e-4; allow ~8 of them
    CHECK(mean == Approx(0.5).margin(0.005));
    CHECK(var == Approx(1.0 / 12.0).margin(0.003));
    CHECK(lo < 1e-3);
    CHECK(hi > 1 - 1e-3);

    for (int k = 0; k < 1000; ++k) {
        const double v = rng.uniform(-2.0, 3.0);
        REQUIRE(v >= -2.0);
        REQUIRE(v < 3.0);
    }
}

TEST_CASE("Rng::below stays in range and is roughly uniform", "[core][random]") {
    Rng rng(2024);
    for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 1000ULL, (1ULL << 40) + 3}) {
        for (int k = 0; k < 2000; ++k) REQUIRE(rng.below(n) < n);
    }
    const int bins = 10, draws = 100000;
    std::vector<int> count(bins, 0);
    for (int k = 0; k < draws; ++k) ++count[rng.below(bins)];
    double chi2 = 0;
    const double expected = static_cast<double>(draws) / bins;
    for (int c : count) chi2 += (c - expected) * (c - expected) / expected;
    // 9 degrees of freedom: P(chi² > 40) < 1e-5. A loose bound that still catches a biased draw.
    CHECK(chi2 < 40.0);
    for (int c : count) CHECK(c > 0);
}

TEST_CASE("Rng::shuffle is a permutation, seeded and not the identity", "[core][random]") {
    std::vector<int> v(100);
    std::iota(v.begin(), v.end(), 0);
    auto a = v, b = v, c = v;
    Rng r1(5), r2(5), r3(6);
    r1.shuffle(a);
    r2.shuffle(b);
    r3.shuffle(c);
    CHECK(a == b);
    CHECK(a != v);
    CHECK(a != c);
    auto sorted = a;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == v);

    std::vector<int> empty, one{3};
    r1.shuffle(empty);
    r1.shuffle(one);
    CHECK(empty.empty());
    CHECK(one == std::vector<int>{3});

    // Every position of a 3-element shuffle sees every value.
    std::vector<std::vector<int>> seen(3, std::vector<int>(3, 0));
    for (int t = 0; t < 3000; ++t) {
        std::vector<int> w{0, 1, 2};
        r1.shuffle(w);
        for (int p = 0; p < 3; ++p) ++seen[p][w[p]];
    }
    for (const auto& row : seen)
        for (int c3 : row) CHECK(c3 > 800);  // expected 1000 each
}

TEST_CASE("uniform_at is a pure function of (key, index), 0 <= u < 1", "[core][random]") {
    CHECK(uniform_at(1, 2) == uniform_at(1, 2));
    CHECK(uniform_at(1, 2) != uniform_at(1, 3));
    CHECK(uniform_at(1, 2) != uniform_at(2, 2));

    const int n = 100000;
    double sum = 0;
    std::vector<float> first(n);
    for (int i = 0; i < n; ++i) {
        const float u = uniform_at(12345, static_cast<std::uint64_t>(i));
        REQUIRE(u >= 0.0f);
        REQUIRE(u < 1.0f);
        first[i] = u;
        sum += u;
    }
    CHECK(sum / n == Approx(0.5).margin(0.005));
    // Evaluating again, in reverse order, gives the same values (no hidden state).
    for (int i = n - 1; i >= 0; --i) REQUIRE(uniform_at(12345, static_cast<std::uint64_t>(i)) == first[i]);

    // Neighbouring keys are not correlated: the fraction of indices with u(k) < u(k+1) is ~1/2.
    int less = 0;
    for (int i = 0; i < n; ++i) less += uniform_at(7, i) < uniform_at(8, i);
    CHECK(static_cast<double>(less) / n == Approx(0.5).margin(0.01));
}
