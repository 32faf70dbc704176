#include "gatkit/core/memory.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <omp.h>

// The heap tuning reads glibc's layout; a sanitizer brings its own allocator (mallopt is a no-op
// there and its blocks are not in these places), so it stays off under one.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GATKIT_HEAP_TUNING 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GATKIT_HEAP_TUNING 0
#endif
#endif
#if !defined(GATKIT_HEAP_TUNING)
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
#define GATKIT_HEAP_TUNING 1
#else
#define GATKIT_HEAP_TUNING 0
#endif
#endif

namespace gatkit {

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// madvise(MADV_HUGEPAGE) on the 2 MiB-aligned interior of [begin, end); its size.
std::size_t hint_range(std::uintptr_t begin, std::uintptr_t end) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t last = end & ~(kHugePage - 1);
    if (last <= first) return 0;
    // A refusal (EINVAL where THP is compiled out, …) leaves ordinary pages: nothing to report.
    if (madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) return 0;
    return last - first;
#else
    (void)begin;
    (void)end;
    return 0;
#endif
}

}  // namespace

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
    if (!data || bytes < kHugePageHintBytes) return;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    (void)hint_range(begin, begin + bytes);
}

#if GATKIT_HEAP_TUNING

namespace {

// glibc's non-main arenas are heaps of HEAP_MAX_SIZE (2 × the largest mmap threshold, 64 MiB
// on 64-bit systems) of address space, each aligned to that size (arena.c: heap_for_ptr), made
// writable from the bottom up as they grow. The hint on the whole reservation covers the
// writable part and whatever is made writable later (mprotect keeps the flag).
constexpr std::uintptr_t kArenaHeapBytes = std::uintptr_t{64} << 20;

// The main heap's address range: the "[heap]" mappings of /proc/self/maps (the brk area; glibc's
// main arena lives there, the other arenas are mappings of their own). Empty when unreadable.
struct AddressRange {
    std::uintptr_t lo = 0, hi = 0;
    bool contains(const void* p) const noexcept {
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        return a >= lo && a < hi;
    }
};

AddressRange main_heap_range() noexcept {
    AddressRange r;
    std::FILE* maps = std::fopen("/proc/self/maps", "r");
    if (!maps) return r;
    char line[512];
    while (std::fgets(line, sizeof line, maps)) {
        if (!std::strstr(line, "[heap]")) continue;
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
        if (r.hi == 0 || lo < r.lo) r.lo = lo;
        if (hi > r.hi) r.hi = hi;
    }
    std::fclose(maps);
    return r;
}

// The calling thread's arena, when it is not the main heap. glibc makes an arena's heap writable
// a few pages at a time as it grows, and a 2 MiB page needs its whole 2 MiB range writable at
// the first touch: so the heap is grown once by kWorkerReserve (one block that size from the
// arena, freed again; with tune_process_heap's settings it is neither mapped on its own nor
// trimmed away) and hinted.
constexpr std::size_t kWorkerReserve = std::size_t{32} << 20;
bool hint_own_arena(const AddressRange& main_heap) noexcept {
    void* p = std::malloc(kWorkerReserve);
    if (!p) return false;
    // glibc marks a block it mapped on its own (above the mmap threshold, which
    // tune_process_heap raises) in the size word before it: such a block is in no arena.
    std::size_t size_word = 0;
    std::memcpy(&size_word, reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) - sizeof size_word), sizeof size_word);
    const bool mapped = (size_word & 2u) != 0;
    bool hinted = false;
    if (!mapped && !main_heap.contains(p)) {
        const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(p) & ~(kArenaHeapBytes - 1);
        hinted = madvise(reinterpret_cast<void*>(base), kArenaHeapBytes, MADV_HUGEPAGE) == 0;
    }
    std::free(p);
    return hinted;
}

}  // namespace

int advise_worker_heaps() noexcept {
    int hinted = 0;
    if (omp_get_max_threads() < 2) return 0;
    const AddressRange main_heap = main_heap_range();
#pragma omp parallel reduction(+ : hinted)
    if (omp_get_thread_num() != 0 && hint_own_arena(main_heap)) hinted += 1;
    return hinted;
}

std::size_t tune_process_heap(std::size_t reserve) noexcept {
    std::size_t hinted = 0;
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, -1);
    // Grow the main heap by `reserve` now: one block that size comes from the heap (below the
    // mmap threshold), and freed it stays there as free space (no trim). Then hint the range.
    if (reserve >= kHugePage && reserve < (std::size_t{256} << 20)) {
        const auto before = reinterpret_cast<std::uintptr_t>(sbrk(0));
        if (void* p = std::malloc(reserve)) {
            const bool from_heap = main_heap_range().contains(p);
            std::free(p);
            if (from_heap) hinted = hint_range(before, reinterpret_cast<std::uintptr_t>(sbrk(0)));
        }
    }
    return hinted;
}

#else

int advise_worker_heaps() noexcept { return 0; }

std::size_t tune_process_heap(std::size_t) noexcept { return 0; }

#endif

}  // namespace gatkit
