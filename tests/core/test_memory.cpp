// The heap settings of core/memory.hpp: the main heap and the worker threads' arenas get the
// huge-page hint (VmFlags "hg" in /proc/self/smaps), and memory from them works as before.
// CTest runs each test case in its own process, so the settings stay inside it.
#include "gatkit/core/memory.hpp"
#include "gatkit/core/parallel.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <omp.h>

using namespace gatkit;

namespace {

// What core/memory.cpp can do here: glibc on Linux, no sanitizer's allocator, and a kernel that
// takes the huge-page hint (probed on a mapping of its own: /sys may be absent in a container).
bool heap_tuning_expected() {
#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    const std::size_t bytes = std::size_t{4} << 20;
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    const bool takes_hint = madvise(m, bytes, MADV_HUGEPAGE) == 0;
    munmap(m, bytes);
    return takes_hint;
#else
    return false;
#endif
}

// The VmFlags line of the mapping that holds address a ("" when none does).
std::string vm_flags_at(std::uintptr_t a) {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::istringstream words(line);
        std::string first;
        words >> first;
        const auto dash = first.find('-');
        if (dash != std::string::npos && first.back() != ':') {  // "start-end perms offset dev inode [path]"
            const std::uintptr_t lo = std::stoull(first.substr(0, dash), nullptr, 16);
            const std::uintptr_t hi = std::stoull(first.substr(dash + 1), nullptr, 16);
            inside = a >= lo && a < hi;
        } else if (inside && first == "VmFlags:") {
            return line;
        }
    }
    return "";
}

bool hinted(std::uintptr_t a) { return vm_flags_at(a).find(" hg") != std::string::npos; }

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

}  // namespace

TEST_CASE("tune_process_heap grows the main heap and hints it for huge pages", "[core][memory]") {
    const std::size_t bytes = tune_process_heap(std::size_t{64} << 20);
    if (!heap_tuning_expected()) {
        CHECK(bytes == 0);
        return;
    }
    // The 64 MiB grown, less the unaligned ends.
    CHECK(bytes >= (std::size_t{60} << 20));
    CHECK(bytes <= (std::size_t{64} << 20));
#if defined(__linux__)
    // The heap's last whole 2 MiB page lies in the hinted range.
    const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
    INFO(vm_flags_at(top - 1));
    CHECK(hinted(top - 1));
#endif
    // Blocks from it hold what is written (a few thousand small ones, as a parse makes).
    std::vector<unsigned char*> blocks;
    for (int i = 0; i < 4000; ++i) {
        blocks.push_back(static_cast<unsigned char*>(std::malloc(4000)));
        REQUIRE(blocks.back());
        std::memset(blocks.back(), i & 0xff, 4000);
    }
    for (int i = 0; i < 4000; ++i) {
        CHECK(blocks[static_cast<std::size_t>(i)][3999] == (i & 0xff));
        std::free(blocks[static_cast<std::size_t>(i)]);
    }
}

TEST_CASE("advise_worker_heaps hints the other threads' arenas", "[core][memory]") {
    {
        ThreadScope one(1);
        CHECK(advise_worker_heaps() == 0);
    }
    ThreadScope two(2);
    CHECK(advise_worker_heaps() == 0);  // before tune_process_heap the 32 MiB block is mapped on its own
    (void)tune_process_heap(std::size_t{8} << 20);
    const int arenas = advise_worker_heaps();
    if (!heap_tuning_expected()) {
        CHECK(arenas == 0);
        return;
    }
    CHECK(arenas == 1);
    // A block the worker allocates now comes from its hinted arena.
    std::uintptr_t worker_block = 0;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
        void* p = std::malloc(std::size_t{64} << 10);
        std::memset(p, 7, std::size_t{64} << 10);
        worker_block = reinterpret_cast<std::uintptr_t>(p);
        std::free(p);
    }
    REQUIRE(worker_block != 0);
    INFO(vm_flags_at(worker_block));
    CHECK(hinted(worker_block));
}
