// The `gatkit` program's rdkit_molecule_svg (src/chem/draw_backend.hpp): opens the drawing plugin
// gatkit_draw.so on first use and draws through it, so that the program itself does not load
// RDKit's drawing library and its ~20 graphics libraries at every start.
#include "../../src/chem/draw_backend.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gatkit::chem::detail {

namespace {

using DrawFn = int (*)(const RDKit::ROMol*, const MoleculeDrawing*, std::string*, std::string*) noexcept;
using VersionFn = int (*)() noexcept;
constexpr int kPluginVersion = 1;
constexpr const char* kPluginName = "gatkit_draw.so";

// Where the plugin may be: beside the program (the build folder), then the install layout's
// <libdir>/gatkit relative to the program's <bindir> (GATKIT_PLUGIN_DIR_FROM_BIN, from CMake).
std::vector<std::filesystem::path> plugin_candidates() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const std::filesystem::path dir = exe.parent_path();
    return {dir / kPluginName, (dir / GATKIT_PLUGIN_DIR_FROM_BIN / kPluginName).lexically_normal()};
}

DrawFn open_plugin() {
    std::string tried;
    for (const std::filesystem::path& path : plugin_candidates()) {
        tried += (tried.empty() ? "" : ", ") + path.string();
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) continue;
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) throw std::runtime_error(std::string("cannot open the drawing plugin ") + path.string() + ": " + dlerror());
        const auto version = reinterpret_cast<VersionFn>(dlsym(handle, "gatkit_draw_plugin_version"));
        const auto draw = reinterpret_cast<DrawFn>(dlsym(handle, "gatkit_draw_molecule_svg"));
        if (!version || !draw || version() != kPluginVersion)
            throw std::runtime_error("the drawing plugin " + path.string() + " is not this gatkit's (interface version " +
                                     std::to_string(kPluginVersion) + " expected)");
        return draw;  // kept open until the program exits
    }
    throw std::runtime_error(std::string("the drawing plugin ") + kPluginName + " was not found (looked in " + (tried.empty() ? "no place: /proc/self/exe unreadable" : tried) +
                             "); it is built and installed with the gatkit program");
}

}  // namespace

std::string rdkit_molecule_svg(const RDKit::ROMol& mol, const MoleculeDrawing& d) {
    static std::mutex opening;
    static DrawFn draw = nullptr;
    {
        const std::lock_guard<std::mutex> lock(opening);
        if (!draw) draw = open_plugin();
    }
    std::string svg, error;
    if (draw(&mol, &d, &svg, &error) != 0) throw std::runtime_error(error);
    return svg;
}

}  // namespace gatkit::chem::detail
