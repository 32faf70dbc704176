#include "gatkit/train/link_split.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_set>

namespace gatkit {

namespace {

std::string pair_text(NodeId u, NodeId v) { return "(" + std::to_string(u) + ", " + std::to_string(v) + ")"; }

// Six significant digits ("0.1", not std::to_string's "0.100000").
std::string number_text(double x) {
    std::ostringstream out;
    out << x;
    return out.str();
}

void check_fractions(const LinkSplitOptions& options) {
    constexpr double kSumTolerance = 1e-6;  // the tolerance of parse_split_sizes
    const std::pair<const char*, double> parts[] = {{"train", options.train}, {"val", options.val}, {"test", options.test}};
    for (const auto& [name, value] : parts)
        if (!(value >= 0.0 && std::isfinite(value)))
            throw ConfigError(std::string("split_links: ") + name + " fraction " + number_text(value) +
                              ", expected a number >= 0");
    const double sum = options.train + options.val + options.test;
    if (std::abs(sum - 1.0) > kSumTolerance)
        throw ConfigError("split_links: fractions train " + number_text(options.train) + " + val " +
                          number_text(options.val) + " + test " + number_text(options.test) + " sum to " +
                          number_text(sum) + ", expected 1");
}

// The input edges, checked (ids in range, no self-loop, no repeat) and, undirected, as (min, max).
std::vector<NodePair> normalised_edges(NodeId num_nodes, const std::vector<NodePair>& edges, bool directed) {
    if (num_nodes < 0) throw GraphError("split_links: negative node count " + std::to_string(num_nodes));
    if (edges.empty())
        throw GraphError("split_links: the graph on " + std::to_string(num_nodes) + " nodes has no edges to split");
    std::vector<NodePair> out(edges.size());
    for (std::size_t k = 0; k < edges.size(); ++k) {
        const auto [u, v] = edges[k];
        if (u < 0 || u >= num_nodes || v < 0 || v >= num_nodes)
            throw GraphError("split_links: edge " + std::to_string(k) + " " + pair_text(u, v) + " names a node outside [0, " +
                             std::to_string(num_nodes) + ")");
        if (u == v)
            throw GraphError("split_links: edge " + std::to_string(k) + " " + pair_text(u, v) +
                             " is a self-loop; link prediction takes the edges without self-loops");
        out[k] = directed || u < v ? NodePair{u, v} : NodePair{v, u};
    }
    std::vector<NodePair> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    const auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
    if (repeat != sorted.end())
        throw GraphError("split_links: edge " + pair_text(repeat->first, repeat->second) + " is listed twice" +
                         (directed ? std::string() : std::string(" (in some orientation)")) +
                         "; pass each unique edge once");
    return out;
}

}  // namespace

// ---- split_links --------------------------------------------------------------------------------

LinkSplit split_links(NodeId num_nodes, const std::vector<NodePair>& edges, const LinkSplitOptions& options) {
    check_fractions(options);
    std::vector<NodePair> shuffled = normalised_edges(num_nodes, edges, options.directed);
    const std::size_t M = shuffled.size();
    // int(fraction · M), as PyG's RandomLinkSplit; the training part is what remains.
    const auto n_val = static_cast<std::size_t>(std::floor(options.val * static_cast<double>(M)));
    const auto n_test = static_cast<std::size_t>(std::floor(options.test * static_cast<double>(M)));
    if (n_val + n_test >= M)
        throw GraphError("split_links: " + std::to_string(M) + " edges with val = " + number_text(options.val) +
                         " and test = " + number_text(options.test) + " give " + std::to_string(n_val) +
                         " validation and " + std::to_string(n_test) + " test edges, leaving no training edge");
    const std::size_t n_train = M - n_val - n_test;

    Rng rng(options.seed);
    rng.shuffle(shuffled);
    LinkSplit split;
    split.train_pos.assign(shuffled.begin(), shuffled.begin() + static_cast<std::ptrdiff_t>(n_train));
    split.val_pos.assign(shuffled.begin() + static_cast<std::ptrdiff_t>(n_train),
                         shuffled.begin() + static_cast<std::ptrdiff_t>(n_train + n_val));
    split.test_pos.assign(shuffled.begin() + static_cast<std::ptrdiff_t>(n_train + n_val), shuffled.end());

    // Negatives are drawn against every edge of the input graph, not only the training ones: a
    // held-out positive must never be scored as a negative.
    const NegativeSampler sampler(num_nodes, shuffled, options.directed);
    if (n_val + n_test > sampler.allowed_pairs())
        throw GraphError("split_links: " + std::to_string(n_val) + " validation + " + std::to_string(n_test) +
                         " test negatives are needed, but the " + (options.directed ? "directed" : "undirected") +
                         " graph on " + std::to_string(num_nodes) + " nodes has only " +
                         std::to_string(sampler.allowed_pairs()) + " non-edges (" + std::to_string(sampler.total_pairs()) +
                         " node pairs, " + std::to_string(M) + " edges); it is too dense for held-out negatives");
    // One distinct draw for both parts, cut in two, keeps val_neg and test_neg disjoint.
    std::vector<NodePair> negatives = sampler.sample_distinct(n_val + n_test, rng);
    split.val_neg.assign(negatives.begin(), negatives.begin() + static_cast<std::ptrdiff_t>(n_val));
    split.test_neg.assign(negatives.begin() + static_cast<std::ptrdiff_t>(n_val), negatives.end());
    return split;
}

Graph training_graph(NodeId num_nodes, const LinkSplit& split, bool directed) {
    return build_graph(num_nodes, split.train_pos,
                       {.undirected = !directed, .drop_duplicates = true, .self_loops = SelfLoops::remove});
}

// ---- NegativeSampler ----------------------------------------------------------------------------

NegativeSampler::NegativeSampler(NodeId num_nodes, const std::vector<NodePair>& forbidden, bool directed)
    : num_nodes_(num_nodes), directed_(directed) {
    if (num_nodes < 0) throw GraphError("NegativeSampler: negative node count " + std::to_string(num_nodes));
    const auto n = static_cast<std::uint64_t>(num_nodes);
    total_pairs_ = n < 2 ? 0 : (directed ? n * (n - 1) : n * (n - 1) / 2);
    forbidden_keys_.reserve(forbidden.size());
    for (std::size_t k = 0; k < forbidden.size(); ++k) {
        const auto [u, v] = forbidden[k];
        if (u < 0 || u >= num_nodes || v < 0 || v >= num_nodes)
            throw GraphError("NegativeSampler: forbidden pair " + std::to_string(k) + " " + pair_text(u, v) +
                             " names a node outside [0, " + std::to_string(num_nodes) + ")");
        if (u == v) continue;
        const auto [a, b] = normalise(u, v);
        forbidden_keys_.push_back(key(a, b));
    }
    std::sort(forbidden_keys_.begin(), forbidden_keys_.end());
    forbidden_keys_.erase(std::unique(forbidden_keys_.begin(), forbidden_keys_.end()), forbidden_keys_.end());
    // Fewer than half of the pairs allowed: rejection could need many tries per draw, so list the
    // allowed pairs once. There are then fewer of them than forbidden ones, so the list is small.
    if (2 * allowed_pairs() < total_pairs_) allowed_ = list_allowed();
    // Up to 2^28 pairs (N <= 16,384 nodes: 32 MiB at most), a bit per key answers "forbidden?"
    // with one memory access instead of a binary search (~17 cache misses on 100k edges): the
    // rejection draws of every epoch ask it about every candidate. Same answers, same draws.
    if (n * n <= (std::uint64_t{1} << 28)) {
        forbidden_bits_.assign(static_cast<std::size_t>((n * n + 63) / 64), 0);
        for (const std::uint64_t k : forbidden_keys_) forbidden_bits_[k >> 6] |= std::uint64_t{1} << (k & 63);
    }
}

std::uint64_t NegativeSampler::key(NodeId u, NodeId v) const {
    return static_cast<std::uint64_t>(u) * static_cast<std::uint64_t>(num_nodes_) + static_cast<std::uint64_t>(v);
}

bool NegativeSampler::forbidden_normalised(NodeId u, NodeId v) const {
    if (u == v) return true;
    const std::uint64_t k = key(u, v);
    if (!forbidden_bits_.empty()) return (forbidden_bits_[k >> 6] >> (k & 63)) & 1u;
    return std::binary_search(forbidden_keys_.begin(), forbidden_keys_.end(), k);
}

bool NegativeSampler::forbidden(NodeId u, NodeId v) const {
    if (u < 0 || u >= num_nodes_ || v < 0 || v >= num_nodes_)
        throw GraphError("NegativeSampler::forbidden: pair " + pair_text(u, v) + " names a node outside [0, " +
                         std::to_string(num_nodes_) + ")");
    const auto [a, b] = normalise(u, v);
    return forbidden_normalised(a, b);
}

std::vector<NodePair> NegativeSampler::list_allowed() const {
    std::vector<NodePair> allowed;
    allowed.reserve(static_cast<std::size_t>(allowed_pairs()));
    // Keys grow in this loop order, so one pass over the sorted forbidden keys suffices.
    auto next_forbidden = forbidden_keys_.begin();
    for (NodeId u = 0; u < num_nodes_; ++u)
        for (NodeId v = directed_ ? 0 : u + 1; v < num_nodes_; ++v) {
            if (u == v) continue;
            const std::uint64_t k = key(u, v);
            while (next_forbidden != forbidden_keys_.end() && *next_forbidden < k) ++next_forbidden;
            if (next_forbidden != forbidden_keys_.end() && *next_forbidden == k) continue;
            allowed.emplace_back(u, v);
        }
    return allowed;
}

NodePair NegativeSampler::draw_by_rejection(Rng& rng) const {
    // Only used when at least half of all pairs are allowed (and N >= 2, so u != v has
    // probability >= 1/2): expected tries < 4.
    const auto n = static_cast<std::uint64_t>(num_nodes_);
    for (;;) {
        const auto u = static_cast<NodeId>(rng.below(n));
        const auto v = static_cast<NodeId>(rng.below(n));
        if (u == v) continue;
        const NodePair p = normalise(u, v);
        if (!forbidden_normalised(p.first, p.second)) return p;
    }
}

std::vector<NodePair> NegativeSampler::sample(std::size_t count, Rng& rng) const {
    std::vector<NodePair> out(count);
    sample_into(count, rng, out.data());
    return out;
}

void NegativeSampler::sample_into(std::size_t count, Rng& rng, NodePair* out) const {
    if (count == 0) return;
    if (allowed_pairs() == 0)
        throw GraphError("NegativeSampler: " + std::to_string(count) + " negatives requested, but every one of the " +
                         std::to_string(total_pairs_) + " node pairs of the " + std::to_string(num_nodes_) +
                         "-node graph is forbidden (no non-edge exists)");
    if (count < kParallelDraws) {
        if (!allowed_.empty())
            for (std::size_t k = 0; k < count; ++k) out[k] = allowed_[rng.below(allowed_.size())];
        else
            for (std::size_t k = 0; k < count; ++k) out[k] = draw_by_rejection(rng);
        return;
    }
    // The same draws in parallel (a training epoch's ~75k negatives were a serial ~5 % of it).
    // Rng is a counter (Rng::peek_u64) and below() takes exactly one value. So draw k of the
    // listed pairs is value k + 1, and rejection try t (u, v) is values 2t + 1 and 2t + 2. Tries
    // are evaluated in parallel, a span at a time, and the first `count` accepted ones kept in
    // try order: the pairs the one-by-one loop returns, and the generator is left where that
    // loop leaves it.
    const auto below_at = [&rng](std::uint64_t k, std::uint64_t n) { return Rng::scale_below(rng.peek_u64(k), n); };
    if (!allowed_.empty()) {
        const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for schedule(static)
        for (std::ptrdiff_t k = 0; k < n; ++k)
            out[static_cast<std::size_t>(k)] = allowed_[below_at(static_cast<std::uint64_t>(k) + 1, allowed_.size())];
        rng.skip(count);
        return;
    }
    // Tries in fixed blocks: each block's tries and its accepted count in parallel, then where
    // each block's accepted tries go (the count before it), then the copies in parallel.
    constexpr std::size_t kBlock = 4096;
    const auto nodes = static_cast<std::uint64_t>(num_nodes_);
    std::size_t have = 0;
    std::uint64_t first_try = 0;
    for (;;) {
        // Enough tries for the draws still wanted if nearly all pass (real graphs are sparse: on
        // ego-Facebook 99 % do), and a further span for the few still missing otherwise.
        const std::size_t span = std::max<std::size_t>(1024, (count - have) + (count - have) / 16 + 256);
        const std::size_t blocks = (span + kBlock - 1) / kBlock;
        const auto tried = std::make_unique_for_overwrite<NodePair[]>(span);
        const auto accepted = std::make_unique_for_overwrite<unsigned char[]>(span);
        std::vector<std::size_t> block_start(blocks + 1, 0);
        const auto nb = static_cast<std::ptrdiff_t>(blocks);
#pragma omp parallel for schedule(static)
        for (std::ptrdiff_t b = 0; b < nb; ++b) {
            std::size_t n = 0;
            const std::size_t end = std::min(span, static_cast<std::size_t>(b + 1) * kBlock);
            for (std::size_t i = static_cast<std::size_t>(b) * kBlock; i < end; ++i) {
                const std::uint64_t t = first_try + i;
                const auto u = static_cast<NodeId>(below_at(2 * t + 1, nodes));
                const auto v = static_cast<NodeId>(below_at(2 * t + 2, nodes));
                const NodePair p = normalise(u, v);
                tried[i] = p;
                accepted[i] = !forbidden_normalised(p.first, p.second);  // true for u = v too
                n += accepted[i];
            }
            block_start[static_cast<std::size_t>(b) + 1] = n;
        }
        block_start[0] = have;
        for (std::size_t b = 0; b < blocks; ++b) block_start[b + 1] += block_start[b];
#pragma omp parallel for schedule(static)
        for (std::ptrdiff_t b = 0; b < nb; ++b) {
            std::size_t at = block_start[static_cast<std::size_t>(b)];
            const std::size_t end = std::min(span, static_cast<std::size_t>(b + 1) * kBlock);
            for (std::size_t i = static_cast<std::size_t>(b) * kBlock; i < end && at < count; ++i)
                if (accepted[i]) out[at++] = tried[i];
        }
        if (block_start[blocks] < count) {
            have = block_start[blocks];
            first_try += span;
            continue;
        }
        // The try that completed the count: the generator is left just after it.
        std::size_t b = 0;
        while (block_start[b + 1] < count) ++b;
        std::size_t at = block_start[b], i = b * kBlock;
        for (;; ++i)
            if (accepted[i] && ++at == count) break;
        rng.skip(2 * (first_try + i + 1));
        return;
    }
}

std::vector<NodePair> NegativeSampler::sample_distinct(std::size_t count, Rng& rng) const {
    if (count == 0) return {};
    if (count > allowed_pairs())
        throw GraphError("NegativeSampler: " + std::to_string(count) + " distinct negatives requested, but only " +
                         std::to_string(allowed_pairs()) + " of the " + std::to_string(total_pairs_) +
                         " node pairs of the " + std::to_string(num_nodes_) + "-node graph are not forbidden");
    if (!allowed_.empty() || 2 * count > allowed_pairs()) {
        // Most of the allowed pairs are wanted (or they are listed anyway): a partial Fisher–Yates
        // shuffle of the list picks a uniform subset in uniform order, with no retries.
        std::vector<NodePair> pool = allowed_.empty() ? list_allowed() : allowed_;
        for (std::size_t i = 0; i < count; ++i) std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
        pool.resize(count);
        return pool;
    }
    // Fewer than half of the allowed pairs are wanted, and they are at least half of all pairs:
    // rejection of forbidden and already chosen pairs succeeds with probability >= 1/4 per try.
    // The set is only asked about membership, so its iteration order never reaches the output.
    std::vector<NodePair> out;
    out.reserve(count);
    std::unordered_set<std::uint64_t> chosen;
    chosen.reserve(2 * count);
    while (out.size() < count) {
        const NodePair p = draw_by_rejection(rng);
        if (chosen.insert(key(p.first, p.second)).second) out.push_back(p);
    }
    return out;
}

}  // namespace gatkit
