// Shared pieces of the gatkit command-line program.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace gatkit::cli {

// A subcommand registers its options on `app` and its action; main runs the chosen action.
using Action = std::function<int()>;

void add_train_command(CLI::App& app, Action& action);
void add_predict_command(CLI::App& app, Action& action);
void add_info_command(CLI::App& app, Action& action);
void add_generate_command(CLI::App& app, Action& action);
void add_explain_command(CLI::App& app, Action& action);
void add_embed_command(CLI::App& app, Action& action);

// A user error: printed as "gatkit: error: <what>" plus an optional hint line; exit code 1.
struct UserError : std::runtime_error {
    UserError(const std::string& what, std::string hint = {}) : std::runtime_error(what), hint(std::move(hint)) {}
    std::string hint;
};

// CSV field quoting (RFC 4180).
std::string csv_field(const std::string& s);
// Writes a JSON object to `path` atomically.
void write_json(const std::string& path, const nlohmann::json& j);
// Throws UserError unless the folder that will hold `path` exists and is writable, so a long
// run does not fail only at the end.
void check_output_path(const std::string& flag, const std::string& path);
// True when stderr is a terminal.
bool stderr_is_terminal();
// --threads N (N > 0; 0 keeps the default): the thread count for what follows, then the huge-page
// hint for the malloc arenas of the other threads (core/memory.hpp, advise_worker_heaps).
void use_threads(int n);

}  // namespace gatkit::cli
