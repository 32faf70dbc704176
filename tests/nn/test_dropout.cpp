#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/dropout.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

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

namespace {

// The element-wise rule the block functions must follow, bit for bit: kept → x·(1/(1−p)), else +0.
template <class T>
T expected_entry(T x, std::uint64_t key, std::uint64_t index, double p) {
    return dropout_keeps(key, index, p) ? x * (T(1) / T(1 - p)) : T(0);
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    // An empty vector's data() may be null, and memcmp must not see a null pointer even for 0 bytes.
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
void check_scale_kept(Rng& rng) {
    // Lengths around the 8-lane and 512-entry block edges; starts that are not multiples of 8.
    for (const Eigen::Index n : {0, 1, 7, 8, 9, 15, 16, 17, 511, 512, 513, 1000, 4099}) {
        for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{1} << 40}) {
            for (const double p : {0.0, 0.1, 0.5, 0.6, 0.999999}) {
                const std::uint64_t key = rng.next_u64();
                std::vector<T> x(static_cast<std::size_t>(n)), want(x.size()), ones(x.size());
                for (auto& v : x) v = static_cast<T>(rng.uniform(-2.0, 2.0));  // negatives: dropped ones must be +0
                for (std::size_t k = 0; k < x.size(); ++k) {
                    want[k] = expected_entry(x[k], key, first + k, p);
                    ones[k] = expected_entry(T(1), key, first + k, p);
                }
                std::vector<T> out(x.size(), T(7));
                scale_kept<T>(x.data(), out.data(), n, key, first, p);
                REQUIRE(same_bits(out, want));
                std::vector<T> in_place = x;  // in = out
                scale_kept<T>(in_place.data(), in_place.data(), n, key, first, p);
                REQUIRE(same_bits(in_place, want));
                std::vector<T> multipliers(x.size(), T(7));  // in null: the multipliers themselves
                scale_kept<T>(nullptr, multipliers.data(), n, key, first, p);
                REQUIRE(same_bits(multipliers, ones));
            }
        }
    }
}

template <class T>
void check_scale_kept_at(Rng& rng) {
    for (const Eigen::Index n : {0, 5, 8, 13, 24, 600, 3001}) {
        for (const std::uint64_t F : {std::uint64_t{1}, std::uint64_t{1433}, std::uint64_t{3000000000}, std::uint64_t{1} << 33}) {
            const std::uint64_t key = rng.next_u64();
            std::vector<std::int32_t> row(static_cast<std::size_t>(n)), col(row.size());
            std::vector<T> x(row.size()), want(row.size());
            for (std::size_t k = 0; k < row.size(); ++k) {
                row[k] = static_cast<std::int32_t>(rng.below(std::uint64_t{1} << 31));
                col[k] = static_cast<std::int32_t>(rng.below(std::min<std::uint64_t>(F, std::uint64_t{1} << 31)));
                x[k] = static_cast<T>(rng.uniform(-2.0, 2.0));
                want[k] = expected_entry(x[k], key, static_cast<std::uint64_t>(row[k]) * F + static_cast<std::uint64_t>(col[k]), 0.6);
            }
            std::vector<T> out(row.size(), T(7));
            scale_kept_at<T>(x.data(), out.data(), n, key, row.data(), col.data(), F, 0.6);
            REQUIRE(same_bits(out, want));
        }
    }
}

}  // namespace

TEST_CASE("block dropout masks give the element-wise rule's bits, with 1 and 2 threads", "[nn][dropout]") {
    const int saved = thread_count();
    for (const int threads : {1, 2}) {
        set_thread_count(threads);
        Rng rng(static_cast<std::uint64_t>(threads));
        check_scale_kept<float>(rng);
        check_scale_kept<double>(rng);
        check_scale_kept_at<float>(rng);
        check_scale_kept_at<double>(rng);
    }
    set_thread_count(saved);
}

TEST_CASE("block dropout masks keep u = threshold and drop u = threshold - 1, in every lane", "[nn][dropout]") {
    // Indices whose 24 bits sit exactly on either side of p = 0.6's threshold (about one index in
    // 2^24 each), placed in each of the eight lanes of a block.
    const double p = 0.6;
    const std::uint64_t key = 12345, threshold = dropout_threshold(p);
    std::uint64_t at = 0, below = 0;
    bool found_at = false, found_below = false;
    for (std::uint64_t k = 0; k < (std::uint64_t{1} << 28) && !(found_at && found_below); ++k) {
        const std::uint64_t u = uniform_bits_at(key, k);
        if (u == threshold && !found_at) at = k, found_at = true;
        if (u == threshold - 1 && !found_below) below = k, found_below = true;
    }
    REQUIRE(found_at);
    REQUIRE(found_below);
    for (std::uint64_t lane = 0; lane < 8; ++lane) {
        for (const std::uint64_t index : {at, below}) {
            const std::uint64_t first = index - lane;
            std::vector<float> out(16, 7.0f);
            scale_kept<float>(nullptr, out.data(), 16, key, first, p);
            CHECK(out[lane] == (index == at ? 2.5f : 0.0f));
        }
    }
}
