// Small timing and statistics helpers shared by the training loops.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

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

}  // namespace gatkit
