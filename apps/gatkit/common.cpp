#include "common.hpp"

#include "gatkit/io/atomic_file.hpp"

#include <unistd.h>

namespace gatkit::cli {

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

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace gatkit::cli
