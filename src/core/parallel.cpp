#include "gatkit/core/parallel.hpp"

#include <omp.h>

namespace gatkit {

int thread_count() { return omp_get_max_threads(); }

int item_threads(std::ptrdiff_t n, int threads) {
    if (threads < 0) throw ConfigError("for_each_item: threads must be 0 (all) or at least 1, got " + std::to_string(threads));
    if (runs_serially()) return 1;
    const int most = threads == 0 ? thread_count() : std::min(threads, thread_count());
    return static_cast<int>(std::max<std::ptrdiff_t>(1, std::min<std::ptrdiff_t>(most, n)));
}

namespace detail {
int thread_number() { return omp_get_thread_num(); }
}  // namespace detail

bool runs_serially() { return omp_get_max_threads() == 1 || omp_get_active_level() >= omp_get_max_active_levels(); }

void set_thread_count(int n) {
    if (n < 1 || n > kMaxThreadCount)
        throw ConfigError("threads must be from 1 to " + std::to_string(kMaxThreadCount) + ", got " + std::to_string(n));
    omp_set_num_threads(n);
}

ThreadScope::ThreadScope(int n) {
    if (n < 0 || n > kMaxThreadCount)
        throw ConfigError("threads must be 0 (all) or from 1 to " + std::to_string(kMaxThreadCount) + ", got " + std::to_string(n));
    if (n == 0) return;
    previous_ = omp_get_max_threads();
    omp_set_num_threads(n);
}

ThreadScope::~ThreadScope() {
    if (previous_ > 0) omp_set_num_threads(previous_);
}

}  // namespace gatkit
