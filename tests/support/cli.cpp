#include "support/cli.hpp"

#include "support/fixtures.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gatkit::test {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

CliResult run_gatkit(const std::string& args) { return run_program(shell_quote(GATKIT_CLI), args); }

CliResult run_program(const std::string& program, const std::string& args) {
    TempDir io;
    const std::string out = io.file("stdout"), err = io.file("stderr");
    const std::string cmd = program + " " + args + " >" + shell_quote(out) + " 2>" + shell_quote(err) + " </dev/null";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string cliques_csv() {
    std::string csv = "src,dst,label\n";
    const auto id = [](int c, int k) { return "u" + std::to_string(c) + "_" + std::to_string(k); };
    for (int c = 0; c < 4; ++c) {
        for (int i = 0; i < 6; ++i)
            for (int j = i + 1; j < 6; ++j) csv += id(c, i) + "," + id(c, j) + ",inside\n";
        csv += id(c, 0) + "," + id((c + 1) % 4, 1) + ",between\n";
        csv += id(c, 2) + "," + id((c + 1) % 4, 3) + ",between\n";
    }
    return csv;
}

}  // namespace gatkit::test
