// What a loader skipped or changed, row by row, so nothing is dropped silently.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gatkit {

struct LoadIssue {
    std::string file;
    std::size_t line = 0;  // 1-based line in `file`
    std::string text;      // the offending value or row (shortened)
    std::string reason;
};

struct LoadReport {
    std::vector<LoadIssue> skipped;  // rows that did not become data
    std::vector<std::string> notes;  // whole-file facts worth telling (e.g. "3 self-citations dropped")

    std::size_t n_skipped() const { return skipped.size(); }
    void skip(std::string file, std::size_t line, std::string text, std::string reason) {
        skipped.push_back({std::move(file), line, std::move(text), std::move(reason)});
    }
};

}  // namespace gatkit
