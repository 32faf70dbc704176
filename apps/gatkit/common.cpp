#include "common.hpp"

#include "gatkit/io/atomic_file.hpp"

#include <filesystem>
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

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace gatkit::cli
