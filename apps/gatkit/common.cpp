#include "common.hpp"

#include "args.hpp"

#include "gatkit/core/memory.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/model/config.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/nn/activation.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace gatkit::cli {

ModelSeeds model_seeds(const TrainArgs& a, Rng& root) { return gatkit::model_seeds(a.init_seed, root); }

ModelSeeds member_seeds(const TrainArgs& a, const ModelSeeds& first, int member) {
    return gatkit::member_seeds(a.seed, a.init_seed, first, member);
}

void apply_model_args(const TrainArgs& a, ModelConfig& c) {
    c.layers = a.layers.value_or(c.layers);
    c.heads = a.heads.value_or(c.heads);
    c.hidden = a.hidden.value_or(c.hidden);
    c.out_heads = a.out_heads;
    c.dropout = a.dropout.value_or(c.dropout);
    c.attn_dropout = a.attn_dropout.value_or(c.attn_dropout);
    c.negative_slope = a.negative_slope;
    if (a.residual)
        c.residual = true;
    else if (a.no_residual || a.block == "transformer" || a.conv == "transformer")
        c.residual = false;
    c.activation = parse_activation(a.activation);
    c.conv = a.conv;
    c.mask = a.mask;
    c.block = a.block;
    c.max_full_nodes = a.max_full_nodes;
    c.pe = a.pe;
    c.pe_mode = a.pe_mode;
    if (!a.root_weight.empty()) c.root_weight = a.root_weight == "on";
    c.beta = a.beta;
}

CLI::Option* add_molecule_format_option(CLI::App* c, std::string& format) {
    return c->add_option("--format", format, "molecule models: the --data file's format, auto (from its name: .csv, .smi, .sdf, optionally .gz) | csv | smi | sdf")
        ->check(CLI::IsMember({"auto", "csv", "smi", "sdf"}))
        ->capture_default_str();
}

void check_molecule_format_applies(const std::string& format, const std::string& kind, const std::string& model, const std::string& smiles) {
    if (format == "auto") return;
    if (kind != "graph" && kind != "fingerprint") throw UserError("--format " + format + " applies to molecule files; " + model + " is a " + kind + " model");
    if (!smiles.empty()) throw UsageError("--format " + format + " names the format of a --data file; --smiles reads none");
}

std::string float_text(double v) {
    if (std::isnan(v)) return "";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    return std::string(buf, r.ptr);
}

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r");
    return first == std::string::npos ? std::string() : s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

void write_json(const std::string& path, const nlohmann::json& j) { write_file_atomically(path, j.dump(2) + "\n"); }

void check_output_path(const std::string& flag, const std::string& path) {
    if (path.empty()) return;
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw UserError(flag + " " + path + ": folder '" + dir.string() + "' does not exist");
    if (::access(dir.c_str(), W_OK) != 0) throw UserError(flag + " " + path + ": folder '" + dir.string() + "' is not writable");
    if (std::filesystem::is_directory(path, ec)) throw UserError(flag + " " + path + ": is a folder, expected a file name");
}

nlohmann::json metric_json(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

void report_test_metrics(const std::string& title, const std::map<std::string, double>& metrics, nlohmann::json& m) {
    std::cout << title << ":";
    for (const auto& [name, v] : metrics) {
        m["test_" + name] = metric_json(v);
        std::cout << " test_" << name << " " << (std::isnan(v) ? std::string("nan") : float_text(v));
    }
    std::cout << "\n";
}

std::string header_beside_input(const std::vector<std::string>& input, const std::vector<std::string>& appended) {
    const auto taken = [&](const std::string& name) {
        return std::find(appended.begin(), appended.end(), name) != appended.end() ||
               std::find(input.begin(), input.end(), name) != input.end();
    };
    std::string out;
    for (std::size_t k = 0; k < input.size(); ++k) {
        std::string name = input[k];
        if (std::find(appended.begin(), appended.end(), name) != appended.end()) {
            do name = "input_" + name;
            while (taken(name));
            std::cerr << "note: the input's column '" << input[k] << "' is written as '" << name << "' (the output's own '" << input[k]
                      << "' follows)\n";
        }
        out += (k ? "," : "") + csv_field(name);
    }
    for (const auto& name : appended) out += (out.empty() ? "" : ",") + csv_field(name);
    return out + "\n";
}

std::string write_output(const std::string& path, const std::string& text) {
    if (path == "-") {
        std::cout << text;
        std::cout.flush();
        return "stdout";
    }
    write_file_atomically(path, text);
    return path;
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
    std::vector<std::pair<std::string, std::filesystem::path>> seen;
    for (const auto& [flag, path] : outputs) {
        if (path.empty() || path == "-") continue;
        std::error_code ec;
        std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
        if (ec) p = path;
        for (const auto& [other, q] : seen)
            if (q == p) throw UsageError(other + " and " + flag + " name the same file '" + path + "': give each output its own file");
        seen.emplace_back(flag, p);
    }
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

namespace {

// The decimal integer `text` is, when it is one (an optional '-' and digits only), in *value.
bool read_integer(const std::string& text, long long* value) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
    return !text.empty() && ec == std::errc() && ptr == end;
}

}  // namespace

CLI::Validator thread_count_check() {
    return CLI::Validator(
        [](std::string& text) {
            long long n = 0;
            if (read_integer(text, &n) && n >= 1 && n <= kMaxThreads) return std::string();
            return "expected a thread count from 1 to " + std::to_string(kMaxThreads) + ", got '" + text + "'";
        },
        "1.." + std::to_string(kMaxThreads), "THREADS");
}

CLI::Validator integer_at_least(long long least) {
    return CLI::Validator(
        [least](std::string& text) {
            long long n = 0;
            if (read_integer(text, &n) && n >= least) return std::string();
            return "expected an integer >= " + std::to_string(least) + ", got '" + text + "'";
        },
        ">=" + std::to_string(least), "AT_LEAST");
}

CLI::Validator seed_value() {
    return CLI::Validator(
        [](std::string& text) {
            std::uint64_t n = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, n);
            if (!text.empty() && text.front() != '-' && text.front() != '+' && ec == std::errc() && ptr == end) return std::string();
            return "expected a seed from 0 to 18446744073709551615, got '" + text + "'";
        },
        "0..2^64-1", "SEED");
}

void use_threads(int n) {
    if (n > 0) set_thread_count(n);
    advise_worker_heaps();
}

}  // namespace gatkit::cli
