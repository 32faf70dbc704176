#include "fuzz_target.hpp"

#include "gatkit/core/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace gatkit::fuzz {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const char* target, const char* what, const std::string& detail) {
    std::fprintf(stderr, "fuzz target %s: %s: %s\n", target, what, detail.c_str());
    std::fflush(stderr);
    std::abort();
}

struct Scratch {
    std::string path;
    Scratch() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/gatkit-fuzz-XXXXXX";
        std::vector<char> buffer(pattern.begin(), pattern.end());
        buffer.push_back('\0');
        if (!mkdtemp(buffer.data())) fail("(setup)", "cannot make a scratch folder", pattern);
        path = buffer.data();
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

Scratch& scratch() {
    static Scratch s;
    return s;
}

std::vector<std::pair<std::string, Body>>& targets() {
    static std::vector<std::pair<std::string, Body>> t;
    return t;
}

}  // namespace

void run_one(const char* target, Body body, std::string_view input) {
    clear_scratch();
    try {
        body(input);
    } catch (const Error& e) {
        // The expected way to refuse an input: one non-empty line.
        const std::string message = e.what();
        if (message.empty()) fail(target, "gatkit::Error with an empty message", "");
        if (message.find('\n') != std::string::npos) fail(target, "error message spans several lines", message);
        if (std::getenv("GATKIT_FUZZ_VERBOSE")) std::fprintf(stderr, "%s: refused: %s\n", target, message.c_str());
        return;
    } catch (const std::exception& e) {
        fail(target, "exception that is not a gatkit::Error", e.what());
    } catch (...) {
        fail(target, "unknown exception", "");
    }
    if (std::getenv("GATKIT_FUZZ_VERBOSE")) std::fprintf(stderr, "%s: loaded\n", target);
}

bool register_target(const char* name, Body body) {
    targets().emplace_back(name, body);
    return true;
}

const std::vector<std::pair<std::string, Body>>& registered_targets() { return targets(); }

std::vector<std::string_view> split_parts(std::string_view input, std::size_t max_parts) {
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < max_parts) {
        const std::size_t cut = input.find('\x1e');
        if (cut == std::string_view::npos) break;
        parts.push_back(input.substr(0, cut));
        input.remove_prefix(cut + 1);
    }
    parts.push_back(input);
    parts.resize(max_parts);
    return parts;
}

std::string scratch_dir() { return scratch().path; }

std::string write(const std::string& name, std::string_view bytes) {
    const std::string path = scratch().path + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) fail("(setup)", "cannot write scratch file", path);
    return path;
}

void clear_scratch() {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(scratch().path, ec)) fs::remove_all(entry.path(), ec);
}

}  // namespace gatkit::fuzz
