// Shared pieces of the gatkit command-line program.
#pragma once

#include "gatkit/core/parallel.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gatkit::cli {

// A subcommand registers its options on `app` and its action; main runs the chosen action.
using Action = std::function<int()>;

void add_train_command(CLI::App& app, Action& action);
void add_predict_command(CLI::App& app, Action& action);
void add_info_command(CLI::App& app, Action& action);
void add_generate_command(CLI::App& app, Action& action);
void add_explain_command(CLI::App& app, Action& action);
void add_embed_command(CLI::App& app, Action& action);
void add_evaluate_command(CLI::App& app, Action& action);

// A user error: printed as "gatkit: error: <what>" plus an optional hint line; exit code 1.
struct UserError : std::runtime_error {
    UserError(const std::string& what, std::string hint = {}) : std::runtime_error(what), hint(std::move(hint)) {}
    std::string hint;
};

// A usage error: flags missing or given together that cannot be; printed like a UserError, exit
// code 2 (ARCHITECTURE.md §6: 1 for a user error, 2 for usage).
struct UsageError : UserError {
    using UserError::UserError;
};

// Option checks whose messages say what is accepted (CLI11's number checks print ranges up to
// 1.8e308): an integer from 1 to kMaxThreads; an integer >= `least`; a decimal seed 0 .. 2^64−1
// (CLI11 alone reads "-1" as 2^64−1 and an overflowing one as the largest value).
inline constexpr int kMaxThreads = kMaxThreadCount;
CLI::Validator thread_count_check();
CLI::Validator integer_at_least(long long least);
CLI::Validator seed_value();

// --format auto|csv|smi|sdf of the commands that read molecule files with a trained model
// (predict, evaluate, explain, embed): `auto` tells the format from the file name, as training
// does. `check_molecule_format_applies` refuses an explicit one for a model that reads no
// molecule file (`kind`: the model file's task), and beside --smiles (`smiles`), which reads none.
CLI::Option* add_molecule_format_option(CLI::App* c, std::string& format);
void check_molecule_format_applies(const std::string& format, const std::string& kind, const std::string& model, const std::string& smiles = "");

// A value as output files write it: the shortest text that reads back to the same float32 (the
// precision models compute in), "" for NaN (an empty CSV field: no value).
std::string float_text(double v);

// `s` without its leading and trailing blanks (spaces, tabs, carriage returns).
std::string trimmed(const std::string& s);

// CSV field quoting (RFC 4180).
std::string csv_field(const std::string& s);
// A metric as JSON: null for NaN (an undefined metric; JSON has no NaN).
nlohmann::json metric_json(double v);
// gatkit evaluate's report: each metric as test_<name> in `m` (metric_json) and on one stdout
// line after `title` ("nan" there for an undefined one).
void report_test_metrics(const std::string& title, const std::map<std::string, double>& metrics, nlohmann::json& m);

// The header of an output that repeats the input's columns and then appends its own
// (`appended`: p_<target>, score, error, ...): an input column that already bears one of the
// appended names (a predictions file read back in) is written as input_<name> (prefixed again
// until the name is free), so the appended columns keep their documented names and no name is
// written twice. Each renaming is noted on stderr.
std::string header_beside_input(const std::vector<std::string>& input, const std::vector<std::string>& appended);

// A command's text output: to standard output for "-", else written atomically to `path`. Returns
// what to call it in a message ("stdout" or the path).
std::string write_output(const std::string& path, const std::string& text);
// Writes a JSON object to `path` atomically.
void write_json(const std::string& path, const nlohmann::json& j);
// Throws UserError unless the folder that will hold `path` exists and is writable, so a long
// run does not fail only at the end.
void check_output_path(const std::string& flag, const std::string& path);
// Throws UsageError when two of the named output paths (flag, path; empty paths and "-" are
// skipped) are the same file: the second write would replace the first, and the run would still
// report both as written.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);
// True when stderr is a terminal.
bool stderr_is_terminal();
// --threads N (N > 0; 0 keeps the default): the thread count for what follows, then the huge-page
// hint for the malloc arenas of the other threads (core/memory.hpp, advise_worker_heaps).
void use_threads(int n);

}  // namespace gatkit::cli
