// Running the real `gatkit` binary from tests, with stdout and stderr captured.
#pragma once

#include <string>
#include <vector>

namespace gatkit::test {

struct CliResult {
    int exit_code = -1;
    std::string out, err;
};

// Runs `gatkit ARGS` through the shell (ARGS is shell text); stdout and stderr go to files in a
// private folder and come back in the result. Standard input is /dev/null.
CliResult run_gatkit(const std::string& args);
// The same for another program (a path) or shell command.
CliResult run_program(const std::string& program, const std::string& args);

// The whole content of a file ("" when it cannot be read).
std::string read_text(const std::string& path);
// Single-quotes `s` for the shell.
std::string shell_quote(const std::string& s);
// Splits text into lines (without the '\n').
std::vector<std::string> lines_of(const std::string& text);
// Whether `s` contains `part` (for checks on a command's output).
inline bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
// A small social network: 4 cliques of 6 users (u<c>_<k>) joined by two bridges each, as CSV
// src,dst,label with label inside|between.
std::string cliques_csv();

}  // namespace gatkit::test
