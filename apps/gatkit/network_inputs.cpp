#include "network_inputs.hpp"

#include <filesystem>

namespace gatkit::cli {

namespace fs = std::filesystem;

namespace {

bool exists(const std::string& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

}  // namespace

bool is_linqs(const std::string& path, const std::string& format) {
    if (format == "linqs") return true;
    if (format != "auto") return false;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        for (const auto& entry : fs::directory_iterator(path, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.ends_with(".content") || name.ends_with(".content.gz")) return true;
        }
        return false;
    }
    return exists(path + ".content") || exists(path + ".content.gz");
}

}  // namespace gatkit::cli
