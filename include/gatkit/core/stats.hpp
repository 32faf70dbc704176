// Small timing and statistics helpers shared by the training loops.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include <sys/resource.h>

namespace gatkit {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Median of the values (the mean of the two middle ones for an even count); 0 when empty.
inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Peak resident memory of this process so far, in MiB (getrusage; Linux reports KiB).
inline double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace gatkit
