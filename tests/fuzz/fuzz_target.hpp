// The frame shared by the fuzz targets (tests/fuzz/fuzz_*.cpp, docs/reliability.md "Fuzzing").
//
// A target is written once:
//
//     GATKIT_FUZZ_TARGET(edgelist) {   // `input` is the fuzzer's bytes, as a std::string_view
//         ...call a reader on files made from `input`...
//     }
//
// and built two ways. With GATKIT_LIBFUZZER (scripts/fuzz, clang) the body becomes libFuzzer's
// LLVMFuzzerTestOneInput in its own program fuzz_<name>. Otherwise it registers itself under its
// name in gatkit_fuzz_replay, which the normal test suite runs over the kept corpus
// tests/corpus/<name>/ (CTest tests fuzz_replay_<name>).
//
// The contract every reader is held to: any input either loads or throws a gatkit::Error (a
// one-line message). Anything else — another exception type, an empty message, a crash, a
// sanitizer report, a leak — aborts, which both libFuzzer and CTest count as a failure.
// GATKIT_FUZZ_VERBOSE=1 in the environment prints each input's outcome (loaded / refused: why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gatkit::fuzz {

using Body = void (*)(std::string_view input);

// Runs `body` on one input under the contract above.
void run_one(const char* target, Body body, std::string_view input);
// Registers a replay target (non-libFuzzer builds); returns true so it can initialise a static.
bool register_target(const char* name, Body body);
const std::vector<std::pair<std::string, Body>>& registered_targets();

// Input split into at most `max_parts` parts at the byte 0x1E (ASCII record separator), so one
// input can describe several files (LINQS .content + .cites, TU's files, ...). Missing parts are
// empty; the last part keeps any further separators.
std::vector<std::string_view> split_parts(std::string_view input, std::size_t max_parts);

// A private scratch folder for this process (made on first use under $TMPDIR or /tmp, removed at
// exit); `write` puts `bytes` in a file of that name there and returns its path.
std::string scratch_dir();
std::string write(const std::string& name, std::string_view bytes);
// Removes every file in the scratch folder (between inputs, so a file from one input never
// leaks into the next).
void clear_scratch();

}  // namespace gatkit::fuzz

#ifdef GATKIT_LIBFUZZER
#define GATKIT_FUZZ_TARGET(name)                                                             \
    static void gatkit_fuzz_body_##name(std::string_view input);                              \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {      \
        ::gatkit::fuzz::run_one(#name, gatkit_fuzz_body_##name,                               \
                                std::string_view(reinterpret_cast<const char*>(data), size)); \
        return 0;                                                                             \
    }                                                                                         \
    static void gatkit_fuzz_body_##name(std::string_view input)
#else
#define GATKIT_FUZZ_TARGET(name)                                                              \
    static void gatkit_fuzz_body_##name(std::string_view input);                              \
    [[maybe_unused]] static const bool gatkit_fuzz_registered_##name =                        \
        ::gatkit::fuzz::register_target(#name, gatkit_fuzz_body_##name);                     \
    static void gatkit_fuzz_body_##name(std::string_view input)
#endif
