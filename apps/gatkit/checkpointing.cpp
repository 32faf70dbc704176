#include "checkpointing.hpp"

#include "common.hpp"

#include "gatkit/core/error.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace gatkit::cli {

namespace {

// Lock-free, so the handler may touch it (async-signal-safe).
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
    if (g_stop.exchange(true)) {
        // The second signal: the default action (end the process) now. The signal is blocked
        // while its handler runs, so raise() delivers it on return.
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    g_signal = sig;
}

struct sigaction g_previous[2];
constexpr int kSignals[2] = {SIGINT, SIGTERM};

std::string number(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general);  // shortest: 0.005, 0.0005
    return std::string(buf, r.ptr);
}

// Absolute paths, so that the same file given from another folder still matches.
std::string absolute(const std::string& path) {
    if (path.empty()) return path;
    std::error_code ec;
    const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    return ec ? path : p.string();
}

// What a data path holds, as a 64-bit FNV-1a digest of its bytes in hex: a file; or the data
// files a folder (LINQS, TU) or a prefix ("cora/cora", "tu/MUTAG") stands for: *.content,
// *.cites and *.txt, optionally .gz, by name (not models or checkpoints a run may have written
// beside them). Empty when nothing is there. A resumed run compares these, so data changed at
// the same path is refused rather than trained on with the old split and weights.
std::string contents_digest(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty()) return {};
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_regular_file(path, ec)) {
        files.push_back(path);
    } else {
        const bool folder = fs::is_directory(path, ec);
        const fs::path dir = folder ? fs::path(path) : fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
        const std::string stem = folder ? std::string() : fs::path(path).filename().string();
        const auto data_file = [](std::string name) {
            if (name.ends_with(".gz")) name.resize(name.size() - 3);
            return name.ends_with(".content") || name.ends_with(".cites") || name.ends_with(".txt");
        };
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string name = e.path().filename().string();
            if (e.is_regular_file(ec) && data_file(name) && (folder || name.rfind(stem + ".", 0) == 0 || name.rfind(stem + "_", 0) == 0))
                files.push_back(e.path());
        }
        std::sort(files.begin(), files.end());
    }
    if (files.empty()) return {};
    std::uint64_t h = 1469598103934665603ULL;
    const auto mix = [&h](const char* p, std::size_t n) {
        for (std::size_t k = 0; k < n; ++k) h = (h ^ static_cast<unsigned char>(p[k])) * 1099511628211ULL;
    };
    std::vector<char> buf(1 << 16);
    for (const auto& f : files) {
        const std::string name = f.filename().string();
        mix(name.data(), name.size() + 1);
        std::ifstream in(f, std::ios::binary);
        while (in) {
            in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
            mix(buf.data(), static_cast<std::size_t>(in.gcount()));
        }
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

}  // namespace

const std::atomic<bool>* stop_flag() { return &g_stop; }
int stop_signal() { return g_signal; }

StopOnSignals::StopOnSignals() {
    g_stop = false;
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // reads and writes in progress carry on
    for (int k = 0; k < 2; ++k) sigaction(kSignals[k], &action, &g_previous[k]);
}

StopOnSignals::~StopOnSignals() {
    for (int k = 0; k < 2; ++k) sigaction(kSignals[k], &g_previous[k], nullptr);
}

std::string checkpoint_path(const TrainArgs& a) { return a.checkpoint.empty() ? a.out + ".ckpt" : a.checkpoint; }

std::map<std::string, std::string> run_identity(const TrainArgs& a, const AdamOptions& adam, int batch_size, const LrSchedule& schedule,
                                                int epochs) {
    std::string targets;
    for (const auto& t : a.target_columns) targets += (targets.empty() ? "" : ",") + t;
    std::map<std::string, std::string> run = {{"--task", a.task},
                                              {"--data", absolute(a.data)},
                                              {"--format", a.format},
                                              {"--seed", std::to_string(a.seed)},
                                              {"--split", a.split},
                                              {"--split-sizes", a.split_sizes},
                                              {"--split-file", absolute(a.split_file)},
                                              {"--split-column", a.split_column},
                                              {"--feature-file", absolute(a.feature_file)},
                                              {"--label-file", absolute(a.label_file)},
                                              {"--directed", a.directed ? "yes" : "no"},
                                              {"--node-features", a.node_features},
                                              {"--target-columns", targets},
                                              {"--smiles-column", a.smiles_column},
                                              {"--target-type", a.target_type},
                                              {"--on-invalid", a.on_invalid},
                                              {"--lr", number(adam.lr)},
                                              {"--weight-decay", number(adam.weight_decay)},
                                              {"--optimizer", adam.decoupled ? "adamw" : "adam"}};
    if (batch_size > 0) run["--batch-size"] = std::to_string(batch_size);
    // Only when given, so checkpoints written before --init-seed existed still resume.
    if (a.init_seed) run["--init-seed"] = std::to_string(*a.init_seed);
    if (a.ensemble_size > 1) run["--ensemble-size"] = std::to_string(a.ensemble_size);  // absent before ensembles existed
    // Only a schedule other than the constant rate is part of the identity, so checkpoints
    // written before schedules existed still resume. Its length is --epochs: a scheduled run
    // resumes with the --epochs it started with.
    if (schedule.kind != "constant") {
        run["--lr-schedule"] = schedule.kind;
        run["--warmup-epochs"] = number(schedule.warmup_epochs);
        run["--epochs"] = std::to_string(epochs);
    }
    if (!a.metric.empty()) run["--metric"] = a.metric;
    // The inputs' contents ("<flag> contents"; absent in checkpoints written before they were
    // kept, which then resume as before).
    for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--data", a.data}, {"--split-file", a.split_file},
                                     {"--feature-file", a.feature_file}, {"--label-file", a.label_file}})
        if (const std::string d = contents_digest(path); !d.empty()) run[flag + " contents"] = d;
    if (a.mol_features != "none") run["--mol-features"] = a.mol_features;  // absent before molecule features existed
    return run;
}

RunCheckpoints::RunCheckpoints(const TrainArgs& a) : path_(checkpoint_path(a)), resume_path_(a.resume), every_(a.checkpoint_every) {
    if (resume_path_.empty()) return;
    try {
        resume_ = load_checkpoint(resume_path_);
    } catch (const IoError& e) {
        throw UserError(std::string("--resume: ") + e.what());
    } catch (const ParseError& e) {
        throw UserError(std::string("--resume: ") + e.what(), "use an earlier checkpoint, or start afresh without --resume");
    }
}

const std::vector<FinishedMember>& RunCheckpoints::resumed_finished() const {
    static const std::vector<FinishedMember> none;
    return resume_ ? resume_->finished : none;
}

void RunCheckpoints::verify(const ModelConfig& config, const ParameterList<float>& params, const std::map<std::string, std::string>& run) const {
    if (!resume_) return;
    try {
        check_resume(*resume_, resume_path_, config, params, run);
    } catch (const ConfigError& e) {
        throw UserError(std::string("--resume: ") + e.what());
    }
}

void RunCheckpoints::attach(CheckpointOptions& o, const ModelConfig& config, const ModelInfo& info, const ParameterList<float>& params,
                            std::map<std::string, std::string> run, const EnsembleProgress* ensemble) {
    o.resume_from = nullptr;
    if (resume_) {
        // Every member is checked (the options, config and parameters are the same for all); the
        // state continues only the member the checkpoint was training (the run skips the ones
        // it had finished, and later members start afresh).
        verify(config, params, run);
        const int member = ensemble ? ensemble->member : 0;
        if (member < resume_->member)
            throw UserError("--resume: checkpoint '" + resume_path_ + "' has finished ensemble member " + std::to_string(member + 1));
        if (member == resume_->member) o.resume_from = &resume_->state;
    }
    std::vector<std::string> names;
    for (const auto* p : params) names.push_back(p->name);
    o.every = every_;
    o.stop = stop_flag();
    o.save = [path = path_, config, info, names = std::move(names), run = std::move(run), ensemble](const TrainState& state) {
        Checkpoint c{config, info, run, names, state};
        if (ensemble) {
            c.member = ensemble->member;
            c.finished = ensemble->finished;
        }
        save_checkpoint(path, c);
    };
}

int report_interrupted(const TrainingInterrupted& e, const TrainArgs& a) {
    const int sig = stop_signal();
    const char* name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    std::cerr << "gatkit: interrupted by " << name << " after epoch " << e.epochs_completed;
    if (e.batch_start > 0) std::cerr << " (and " << e.batch_start << " training graphs of epoch " << e.epochs_completed + 1 << ")";
    if (e.saved) {
        const std::string path = checkpoint_path(a);
        std::cerr << "; checkpoint written to " << path << "\n"
                  << "hint: continue with the same command and --resume " << path << "\n";
    } else {
        std::cerr << "; no checkpoint written (k-fold runs keep none)\n";
    }
    return 128 + (sig == SIGTERM ? SIGTERM : SIGINT);
}

}  // namespace gatkit::cli
