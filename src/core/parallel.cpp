#include "gatkit/core/parallel.hpp"

#include <omp.h>

namespace gatkit {

int thread_count() { return omp_get_max_threads(); }

bool runs_serially() { return omp_get_max_threads() == 1 || omp_get_active_level() >= omp_get_max_active_levels(); }

void set_thread_count(int n) {
    if (n < 1) throw ConfigError("threads must be at least 1, got " + std::to_string(n));
    omp_set_num_threads(n);
}

ThreadScope::ThreadScope(int n) {
    if (n < 0) throw ConfigError("threads must be 0 (all) or at least 1, got " + std::to_string(n));
    if (n == 0) return;
    previous_ = omp_get_max_threads();
    omp_set_num_threads(n);
}

ThreadScope::~ThreadScope() {
    if (previous_ > 0) omp_set_num_threads(previous_);
}

}  // namespace gatkit
