#include "gatkit/core/parallel.hpp"

#include <omp.h>

namespace gatkit {

int thread_count() { return omp_get_max_threads(); }

void set_thread_count(int n) {
    if (n < 1) throw ConfigError("threads must be at least 1, got " + std::to_string(n));
    omp_set_num_threads(n);
}

}  // namespace gatkit
