#include "network_inputs.hpp"

#include "gatkit/io/linqs.hpp"

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
    const auto tab_layout = [](const std::string& name) { return is_linqs_tab_nodes_name(name) || is_linqs_tab_links_name(name); };
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        for (const auto& entry : fs::directory_iterator(path, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.ends_with(".content") || name.ends_with(".content.gz") || tab_layout(name)) return true;
        }
        return false;
    }
    if (exists(path + ".content") || exists(path + ".content.gz")) return true;
    // the prefix of the tab layout's files: data/Pubmed-Diabetes for data/Pubmed-Diabetes.NODE.paper.tab
    const fs::path p(path);
    const std::string prefix = p.filename().string() + ".";
    if (prefix == "." || exists(path)) return false;
    for (const auto& entry : fs::directory_iterator(p.parent_path().empty() ? fs::path(".") : p.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(prefix) && is_linqs_tab_nodes_name(name)) return true;
    }
    return false;
}

}  // namespace gatkit::cli
