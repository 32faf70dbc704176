// gatkit_fuzz_replay TARGET PATH...: runs a fuzz target (tests/fuzz/fuzz_TARGET.cpp) over every
// file under each PATH (a file or a folder, recursively, in sorted order), under the contract
// of fuzz_target.hpp. The test suite runs it over tests/corpus/TARGET (CTest fuzz_replay_TARGET),
// and a crash file from scripts/fuzz can be replayed the same way in a debugger.
#include "fuzz_target.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    using gatkit::fuzz::registered_targets;
    const auto usage = [] {
        std::fprintf(stderr, "usage: gatkit_fuzz_replay TARGET PATH...\ntargets:");
        for (const auto& [name, body] : registered_targets()) std::fprintf(stderr, " %s", name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
    };
    if (argc < 3) return usage();
    const auto target = std::find_if(registered_targets().begin(), registered_targets().end(),
                                     [&](const auto& t) { return t.first == argv[1]; });
    if (target == registered_targets().end()) return usage();

    std::vector<fs::path> files;
    for (int i = 2; i < argc; ++i) {
        const fs::path path = argv[i];
        if (fs::is_regular_file(path)) {
            files.push_back(path);
        } else if (fs::is_directory(path)) {
            for (const auto& entry : fs::recursive_directory_iterator(path))
                if (entry.is_regular_file()) files.push_back(entry.path());
        } else {
            std::fprintf(stderr, "gatkit_fuzz_replay: %s: no such file or folder\n", path.c_str());
            return 1;
        }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::fprintf(stderr, "gatkit_fuzz_replay: no input files under the given paths\n");
        return 1;
    }
    for (const auto& file : files) {
        std::ifstream in(file, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) {
            std::fprintf(stderr, "gatkit_fuzz_replay: cannot read %s\n", file.c_str());
            return 1;
        }
        gatkit::fuzz::run_one(target->first.c_str(), target->second, bytes);
    }
    std::printf("%s: %zu inputs replayed, each loaded or refused with a gatkit::Error\n", target->first.c_str(), files.size());
    return 0;
}
