// Ranking metrics for link prediction (OGB's Hits@K and MRR with shared negatives): hand values,
// ties, too few negatives, and a brute-force O(P·N) reference written from the definitions.
#include "gatkit/core/error.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/train/metrics.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace gatkit;

namespace {

constexpr double kExact = 1e-12;  // the same sum of reciprocals in the same order

const std::vector<double> pos = {0.9, 0.5, 0.3, 0.7};
const std::vector<double> neg = {0.8, 0.6, 0.4, 0.2, 0.1};

// A positive is a hit when fewer than K negatives score >= it (equivalent to scoring strictly
// above the K-th highest negative), counted pair by pair.
double brute_hits(const std::vector<double>& p, const std::vector<double>& n, int k) {
    if (n.size() < static_cast<std::size_t>(k)) return 1.0;
    double hits = 0;
    for (const double s : p) {
        int at_least = 0;
        for (const double t : n) at_least += t >= s;
        hits += at_least < k;
    }
    return hits / static_cast<double>(p.size());
}

double brute_mrr(const std::vector<double>& p, const std::vector<double>& n) {
    double sum = 0;
    for (const double s : p) {
        double above = 0, at_least = 0;
        for (const double t : n) {
            above += t > s;
            at_least += t >= s;
        }
        sum += 1.0 / (1.0 + (above + at_least) / 2.0);
    }
    return sum / static_cast<double>(p.size());
}

}  // namespace

TEST_CASE("hits_at_k: hand values", "[link]") {
    // negatives descending 0.8 0.6 0.4 0.2 0.1: thresholds for K = 1..5
    CHECK(hits_at_k(pos, neg, 1) == 0.25);  // > 0.8: 0.9
    CHECK(hits_at_k(pos, neg, 2) == 0.5);   // > 0.6: 0.9 0.7
    CHECK(hits_at_k(pos, neg, 3) == 0.75);  // > 0.4: 0.9 0.7 0.5
    CHECK(hits_at_k(pos, neg, 4) == 1.0);   // > 0.2
    CHECK(hits_at_k(pos, neg, 5) == 1.0);
}

TEST_CASE("hits_at_k: ties with the threshold are misses, fewer than K negatives give 1", "[link]") {
    CHECK(hits_at_k({0.6}, {0.6, 0.2}, 1) == 0.0);  // 0.6 is not strictly above 0.6
    CHECK(hits_at_k({0.6}, {0.6, 0.2}, 2) == 1.0);
    CHECK(hits_at_k({0.5, 0.5}, {0.5, 0.5, 0.5}, 3) == 0.0);
    CHECK(hits_at_k(pos, neg, 6) == 1.0);  // as OGB: 5 negatives < K = 6
    CHECK(hits_at_k({0.0}, {}, 1) == 1.0);
    CHECK(std::isnan(hits_at_k({}, neg, 2)));
}

TEST_CASE("mean_reciprocal_rank: hand values and ties counted half", "[link]") {
    // ranks: 0.9 → 1, 0.5 → 3, 0.3 → 4, 0.7 → 2
    CHECK(mean_reciprocal_rank(pos, neg) == Approx((1.0 + 1.0 / 3 + 1.0 / 4 + 1.0 / 2) / 4).margin(kExact));
    // one negative above, two tied: rank = 1 + (1 + 3) / 2 = 3
    CHECK(mean_reciprocal_rank({0.5}, {0.5, 0.5, 0.9}) == Approx(1.0 / 3).margin(kExact));
    // one tie: rank 1.5
    CHECK(mean_reciprocal_rank({0.5}, {0.5}) == Approx(2.0 / 3).margin(kExact));
    CHECK(mean_reciprocal_rank({0.5, 0.1}, {}) == 1.0);
    CHECK(std::isnan(mean_reciprocal_rank({}, neg)));
}

TEST_CASE("hits_at_k and MRR agree with a brute-force reference on random scores", "[link]") {
    Rng rng(31);
    for (int trial = 0; trial < 20; ++trial) {
        // odd trials: one decimal, so many ties between positives and negatives
        const double grid = trial % 2 ? 10.0 : 1e6;
        std::vector<double> p(1 + rng.below(60)), n(rng.below(250));
        for (auto& s : p) s = std::round(rng.uniform() * grid) / grid;
        for (auto& s : n) s = std::round(rng.uniform() * grid) / grid;
        INFO("trial " << trial << ": " << p.size() << " positives, " << n.size() << " negatives");
        for (const int k : {1, 3, 10, 50, 100, 250}) CHECK(hits_at_k(p, n, k) == brute_hits(p, n, k));
        CHECK(mean_reciprocal_rank(p, n) == Approx(brute_mrr(p, n)).margin(kExact));
    }
}

TEST_CASE("ranking metrics: bad input names the values", "[link]") {
    CHECK_THROWS_AS(hits_at_k(pos, neg, 0), ConfigError);
    CHECK_THROWS_WITH(hits_at_k(pos, neg, -2), Catch::Contains("K = -2"));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(hits_at_k({0.1, nan}, neg, 1), Catch::Contains("positive score 1 is NaN"));
    CHECK_THROWS_WITH(mean_reciprocal_rank(pos, {0.2, 0.3, nan}), Catch::Contains("negative score 2 is NaN"));
}
