// gatkit_bench — the library-level cases of bench/run that no `gatkit` command times by itself.
//
//   gatkit_bench cora-infer --data DIR [--threads N] [--reps R]
//       The GAT paper's Cora model (2 layers, 8 heads × 8, ELU, 1 output head; the weights of a
//       fresh model: inference does the same work for any weights) on the LINQS folder DIR, full-
//       graph inference (no dropout) on the row-normalised features as the trainer feeds them
//       (sparse rows, core/sparse.hpp). Times R forward passes after 3 untimed ones, as
//       torch_gat_cora.py's inference timing (eval mode, no grad, 50 repetitions after 3).
//   gatkit_bench big-layer [--nodes N] [--edges-per-node K] [--feat F] [--heads H] [--hidden C]
//                          [--threads T] [--reps R] [--seed S]
//       One GatConv(F → H × C, concat, self-loops, no dropout) forward + backward on a random
//       graph as torch_gat_synthetic.py builds it: K·N (source, target) pairs drawn uniformly,
//       self-loops dropped, duplicates merged; input N×F from N(0, 1); loss = mean(out²);
//       backward with the input gradient (a hidden layer). R timed repetitions after one
//       warm-up. Defaults: 1,000,000 nodes, 10 per node, 64 → 4 × 16, 2 threads, 3 reps, seed 0.
//   gatkit_bench gemm [--reps R]
//       gatkit's float products (gemm_nn, and for the shapes with up to 4,096 rows the backward
//       ones gemm_nt and gemm_tn: its own kernel where the build has one, core/gemm_kernel.hpp)
//       against Eigen's single-threaded products (A·B, A·Bᵀ, Aᵀ·B: what they used before) on the
//       layer shapes of the bench cases, one thread each: GFLOP/s, the best of 5 runs of R
//       products (R scaled to the shape; --reps sets the 640×256×256 one).
//   gatkit_bench gather [--nodes N] [--edges-per-node K] [--width W] [--threads T] [--reps R] [--seed S]
//       The memory floor of one edge pass of big-layer: the same random graph (self-loops added,
//       as GatConv sees it), and per destination row the plain sum of its sources' rows of W
//       floats (W = 64: big-layer's 4 × 16), each gathered row prefetched 16 edges ahead as the
//       row kernels do. No scores, no softmax: only the bytes a pass over the rows must move. The
//       best of R passes (default 5) after one untimed one, in seconds and in GB/s of gathered
//       rows; also the best of R sequential reads of the same rows, for the streaming rate.
//
// Prints one JSON line: the case, the medians (seconds), peak resident memory of the process
// (MiB, getrusage) and the sizes.
#include "gatkit/core/gemm_kernel.hpp"
#include "gatkit/core/memory.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/core/random.hpp"
#include "gatkit/core/sparse.hpp"
#include "gatkit/core/stats.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/io/dataset.hpp"
#include "gatkit/io/linqs.hpp"
#include "gatkit/model/model.hpp"
#include "gatkit/nn/gat_conv.hpp"
#include "gatkit/train/fit.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

using namespace gatkit;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
    std::map<std::string, std::string> values;
    std::string get(const std::string& key, const std::string& fallback) const {
        const auto it = values.find(key);
        return it == values.end() ? fallback : it->second;
    }
    long number(const std::string& key, long fallback) const {
        const std::string text = get(key, "");
        if (text.empty()) return fallback;
        char* end = nullptr;
        const long v = std::strtol(text.c_str(), &end, 10);
        if (*end != '\0' || v < 0) throw std::runtime_error("--" + key + " needs a non-negative integer, got '" + text + "'");
        return v;
    }
};

Args parse(int argc, char** argv, int first) {
    Args a;
    for (int i = first; i < argc; i += 2) {
        const std::string key = argv[i];
        if (key.rfind("--", 0) != 0 || i + 1 >= argc) throw std::runtime_error("expected --option value, got '" + key + "'");
        a.values[key.substr(2)] = argv[i + 1];
    }
    return a;
}

nlohmann::json cora_infer(const Args& a) {
    NodeDataset data = load_linqs(a.get("data", "../shared/data/cora"));
    row_normalize(data.features);
    const SparseRows x = SparseRows::from_dense(data.features);
    ModelConfig config = node_model_defaults();
    config.in_features = static_cast<int>(data.features.cols());
    config.num_classes = static_cast<int>(data.class_names.size());
    Model model(config, 0);
    const long reps = a.number("reps", 50);
    std::vector<double> times;
    double checksum = 0;
    for (long r = 0; r < reps + 3; ++r) {
        const auto t0 = Clock::now();
        const Matrix logits = model.forward(data.graph, x, /*training=*/false);
        const double s = seconds_since(t0);
        checksum += logits(0, 0);
        if (r >= 3) times.push_back(s);
    }
    return {{"case", "cora-infer"}, {"seconds_median", median(times)}, {"reps", reps}, {"nodes", data.graph.num_nodes()},
            {"edges", data.graph.num_edges()}, {"features", data.features.cols()}, {"feature_density", x.density()},
            {"checksum", checksum}};
}

// big-layer's random graph (torch_gat_synthetic.py's rule): per_node·N uniform (source, target)
// pairs, self-loops dropped, duplicates merged.
Graph synthetic_graph(NodeId N, long per_node, Rng& rng) {
    std::vector<std::pair<NodeId, NodeId>> edges;
    edges.reserve(static_cast<std::size_t>(per_node) * static_cast<std::size_t>(N));
    for (long k = 0; k < per_node * N; ++k) {
        const auto s = static_cast<NodeId>(rng.next_u64() % static_cast<std::uint64_t>(N));
        const auto d = static_cast<NodeId>(rng.next_u64() % static_cast<std::uint64_t>(N));
        if (s != d) edges.emplace_back(s, d);
    }
    return build_graph(N, std::move(edges), {.drop_duplicates = true});
}

nlohmann::json big_layer(const Args& a) {
    const auto N = static_cast<NodeId>(a.number("nodes", 1000000));
    const long per_node = a.number("edges-per-node", 10);
    const long F = a.number("feat", 64), H = a.number("heads", 4), C = a.number("hidden", 16), reps = a.number("reps", 3);
    Rng rng(static_cast<std::uint64_t>(a.number("seed", 0)));
    const auto t_graph = Clock::now();
    const Graph graph = synthetic_graph(N, per_node, rng);
    const double graph_seconds = seconds_since(t_graph);
    Matrix x = large_matrix<float>(N, F);
    for (Eigen::Index k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>(rng.normal());
    GatConv layer({.in = F, .out = C, .heads = H, .concat = true}, rng);
    const double rss_before = peak_rss_mib();
    std::vector<double> fwd, bwd, total;
    ParameterList<float> params;
    layer.parameters(params);
    for (long r = 0; r < reps + 1; ++r) {
        for (auto* p : params) p->grad.setZero();
        GatConvCache<float> cache;
        const auto t0 = Clock::now();
        const Matrix out = layer.forward(graph, x, cache, /*training=*/false);
        // d mean(out²) / d out, row-parallel as the reference's elementwise ops; allocated as gatkit's
        // own layers allocate the gradients they pass down (core/memory.hpp)
        Matrix dout = large_matrix<float>(out.rows(), out.cols());
        const float scale = 2.0f / static_cast<float>(out.size());
#pragma omp parallel for schedule(static)
        for (Eigen::Index i = 0; i < out.rows(); ++i) dout.row(i) = out.row(i) * scale;
        const double t_fwd = seconds_since(t0);
        const auto t1 = Clock::now();
        const Matrix dx = layer.backward(dout, cache, /*need_dx=*/true);
        const double t_bwd = seconds_since(t1);
        if (r > 0) {
            fwd.push_back(t_fwd);
            bwd.push_back(t_bwd);
            total.push_back(t_fwd + t_bwd);
        }
        std::cerr << "rep " << r << ": fwd " << t_fwd << " s, bwd " << t_bwd << " s, peak rss " << peak_rss_mib() << " MiB\n";
    }
    return {{"case", "big-layer"},        {"seconds_median", median(total)},
            {"forward_s", median(fwd)},   {"backward_s", median(bwd)},
            {"reps", reps},               {"nodes", N},
            {"edges_coalesced", graph.num_edges()}, {"edges_with_self_loops", graph.with_self_loops().num_edges()},
            {"feat", F},                  {"heads", H},
            {"hidden", C},                {"graph_gen_s", graph_seconds},
            {"peak_rss_before_layer_mib", rss_before}};
}

nlohmann::json gather(const Args& a) {
    const auto N = static_cast<NodeId>(a.number("nodes", 1000000));
    const long W = a.number("width", 64), reps = a.number("reps", 5);
    if (N < 1 || W < 1 || reps < 1) throw std::runtime_error("gather: --nodes, --width and --reps must be positive");
    Rng rng(static_cast<std::uint64_t>(a.number("seed", 0)));
    const Graph base = synthetic_graph(N, a.number("edges-per-node", 10), rng);
    const Graph& g = base.with_self_loops();
    const auto& offsets = g.in_offsets();
    const auto& src = g.in_src();
    const EdgeId E = offsets[static_cast<std::size_t>(N)];
    Matrix rows = large_matrix<float>(N, W), out = large_matrix<float>(N, W);
    for (Eigen::Index k = 0; k < rows.size(); ++k) rows.data()[k] = static_cast<float>(rng.uniform(-1.0, 1.0));
    constexpr EdgeId kAhead = 16;  // the row kernels' prefetch distance (src/nn/gat_simd*.cpp)
    const auto line_count = (W * static_cast<long>(sizeof(float)) + 63) / 64;
    const auto pass = [&] {
#pragma omp parallel for schedule(dynamic, 64)
        for (Eigen::Index i = 0; i < N; ++i) {
            float* o = out.data() + i * W;
            std::fill(o, o + W, 0.0f);
            for (EdgeId e = offsets[static_cast<std::size_t>(i)]; e < offsets[static_cast<std::size_t>(i) + 1]; ++e) {
                if (e + kAhead < E) {
                    const auto j = static_cast<Eigen::Index>(src[static_cast<std::size_t>(e + kAhead)]);
                    const char* ahead = reinterpret_cast<const char*>(rows.data() + j * W);
                    for (long l = 0; l < line_count; ++l) __builtin_prefetch(ahead + 64 * l, 0, 3);
                }
                const float* r = rows.data() + static_cast<Eigen::Index>(src[static_cast<std::size_t>(e)]) * W;
                for (Eigen::Index c = 0; c < W; ++c) o[c] += r[c];
            }
        }
    };
    const auto stream = [&] {  // the same rows read in order, summed column by column per thread
        double total = 0;
#pragma omp parallel reduction(+ : total)
        {
            std::vector<float> acc(static_cast<std::size_t>(W), 0.0f);
#pragma omp for schedule(static)
            for (Eigen::Index i = 0; i < N; ++i) {
                const float* r = rows.data() + i * W;
                for (Eigen::Index c = 0; c < W; ++c) acc[static_cast<std::size_t>(c)] += r[c];
            }
            for (const float v : acc) total += v;
        }
        return total;
    };
    const auto best_of = [&](auto&& run) {
        run();
        double best = 1e30;
        for (long r = 0; r < reps; ++r) {
            const auto t0 = Clock::now();
            run();
            best = std::min(best, seconds_since(t0));
        }
        return best;
    };
    const double gather_s = best_of(pass);
    const double checksum = out.sum();  // the gathered sums (fixed order: the same for any thread count)
    volatile double sink = 0;  // keeps the streaming sums (their bits depend on the thread count: not in checksum)
    const double stream_s = best_of([&] { sink = sink + stream(); });
    const double row_bytes = static_cast<double>(W) * sizeof(float);
    return {{"case", "gather"},
            {"nodes", N},
            {"edges_with_self_loops", E},
            {"width", W},
            {"reps", reps},
            {"gather_pass_s", gather_s},
            {"gather_gb_per_s", static_cast<double>(E) * row_bytes / gather_s / 1e9},
            {"stream_pass_s", stream_s},
            {"stream_gb_per_s", static_cast<double>(N) * row_bytes / stream_s / 1e9},
            {"checksum", checksum}};
}

// GFLOP/s of gemm_nn and of Eigen's product, one thread, on the shapes of the bench cases.
nlohmann::json gemm(const Args& a) {
    set_thread_count(1);
    const long base_reps = a.number("reps", 300);
    struct Shape {
        Eigen::Index m, k, n;
        const char* what;
    };
    nlohmann::json rows = nlohmann::json::array();
    Rng rng(0);
    for (const Shape& s : {Shape{640, 256, 256, "molecule batch, hidden layer"}, Shape{64, 256, 256, "one 64-row chunk"},
                           Shape{2708, 64, 7, "Cora output layer"}, Shape{100000, 64, 64, "big-layer slice"}}) {
        Matrix A(s.m, s.k), B(s.k, s.n), C(s.m, s.n);
        for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = static_cast<float>(rng.uniform(-1.0, 1.0));
        for (Eigen::Index i = 0; i < B.size(); ++i) B.data()[i] = static_cast<float>(rng.uniform(-1.0, 1.0));
        const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.k) * static_cast<double>(s.n);
        const long reps = std::max(3L, static_cast<long>(static_cast<double>(base_reps) * 640.0 * 256 * 256 / (flops / 2)));
        const auto rate = [&](auto&& product) {
            product();
            double best = 1e30;
            for (int t = 0; t < 5; ++t) {
                const auto t0 = Clock::now();
                for (long r = 0; r < reps; ++r) product();
                best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(reps));
            }
            return flops / best / 1e9;
        };
        const double ours = rate([&] { gemm_nn(A, B, C); });
        const double eigen = rate([&] { C.noalias() = A * B; });
        rows.push_back({{"m", s.m}, {"k", s.k}, {"n", s.n}, {"shape", s.what}, {"gemm_nn_gflops", ours}, {"eigen_gflops", eigen}});
        if (s.m > 4096) continue;  // gemm_tn takes the kernel over reductions of up to kKernelReduceRows
        // backward of the same layer: dx = dy·Wᵀ (gemm_nt) and dW = xᵀ·dy (gemm_tn)
        Matrix dx(s.m, s.k), dW(s.k, s.n);
        const double nt = rate([&] { gemm_nt(C, B, dx); });
        const double nt_eigen = rate([&] { dx.noalias() = C * B.transpose(); });
        const double tn = rate([&] { gemm_tn(A, C, dW); });
        const double tn_eigen = rate([&] { dW.noalias() = A.transpose() * C; });
        rows.back().update({{"gemm_nt_gflops", nt}, {"eigen_nt_gflops", nt_eigen}, {"gemm_tn_gflops", tn}, {"eigen_tn_gflops", tn_eigen}});
    }
    return {{"case", "gemm"}, {"kernel", detail::float_gemm_kernel()}, {"shapes", rows}};
}

}  // namespace

int main(int argc, char** argv) {
    // The gatkit program's heap settings (apps/gatkit/main.cpp, core/memory.hpp).
    tune_process_heap();
    try {
        if (argc < 2) throw std::runtime_error("usage: gatkit_bench cora-infer|big-layer|gemm|gather [--option value]...");
        const std::string which = argv[1];
        const Args a = parse(argc, argv, 2);
        const int threads = static_cast<int>(a.number("threads", 2));
        set_thread_count(threads < 1 ? 1 : threads);
        advise_worker_heaps();
        nlohmann::json out;
        if (which == "cora-infer") {
            out = cora_infer(a);
        } else if (which == "big-layer") {
            out = big_layer(a);
        } else if (which == "gemm") {
            out = gemm(a);
        } else if (which == "gather") {
            out = gather(a);
        } else {
            throw std::runtime_error("unknown case '" + which + "' (cora-infer, big-layer, gemm, gather)");
        }
        out["threads"] = threads;
        out["peak_rss_mib"] = peak_rss_mib();
        std::cout << out.dump() << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gatkit_bench: " << e.what() << "\n";
        return 1;
    }
}
