#include "gatkit/core/parameter.hpp"

namespace gatkit {

void ParameterSlices::for_each(const std::function<void(const ParameterSlice&)>& f) const {
    const auto n = static_cast<std::ptrdiff_t>(slices_.size());
#pragma omp parallel for schedule(static) if (total_ >= kParallelParameterValues)
    for (std::ptrdiff_t s = 0; s < n; ++s) f(slices_[static_cast<std::size_t>(s)]);
}

}  // namespace gatkit
