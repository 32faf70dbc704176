#include "gatkit/core/distinct_rows.hpp"

#include "gatkit/core/gemm_kernel.hpp"
#include "gatkit/core/memory.hpp"
#include "gatkit/core/parallel.hpp"

#include <bit>
#include <cstring>
#include <string>

namespace gatkit {

namespace {

// Columns hashed per row: rows that differ at all nearly always differ in most columns, so a
// sample finds them apart; rows equal in the sample are compared whole.
constexpr Eigen::Index kHashedColumns = 16;

std::uint64_t row_hash(const float* row, Eigen::Index cols) {
    const Eigen::Index step = cols <= kHashedColumns ? 1 : cols / kHashedColumns;
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(cols);
    for (Eigen::Index c = 0; c < cols; c += step) {
        h = (h ^ std::bit_cast<std::uint32_t>(row[c])) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    return h;
}

}  // namespace

void DistinctRows::find(const Matrix& x) {
    const Eigen::Index R = x.rows(), F = x.cols();
    first_.clear();
    of_row_.resize(static_cast<std::size_t>(R));
    std::size_t slots = 16;
    while (slots < 2 * static_cast<std::size_t>(R)) slots *= 2;
    slot_hash_.assign(slots, 0);
    slot_row_.assign(slots, -1);
    const std::size_t mask = slots - 1;
    const std::size_t bytes = static_cast<std::size_t>(F) * sizeof(float);
    for (Eigen::Index i = 0; i < R; ++i) {
        const float* row = x.data() + i * F;
        const std::uint64_t h = row_hash(row, F);
        std::size_t s = static_cast<std::size_t>(h) & mask;
        for (;; s = (s + 1) & mask) {
            const Eigen::Index d = slot_row_[s];
            if (d < 0) {  // a new distinct row
                slot_hash_[s] = h;
                slot_row_[s] = count();
                of_row_[static_cast<std::size_t>(i)] = count();
                first_.push_back(i);
                break;
            }
            if (slot_hash_[s] == h && (bytes == 0 || std::memcmp(x.data() + first_[static_cast<std::size_t>(d)] * F, row, bytes) == 0)) {
                of_row_[static_cast<std::size_t>(i)] = d;
                break;
            }
        }
    }
    compact_ = detail::float_gemm_kernel() && 8 * count() <= 7 * R;
    if (!compact_) return;
    resize_large(gathered_, count(), F);
    if (bytes == 0) return;
    for (Eigen::Index d = 0; d < count(); ++d)
        std::memcpy(gathered_.data() + d * F, x.data() + first_[static_cast<std::size_t>(d)] * F, bytes);
}

namespace {

void check_rows(const char* what, const char* matrix, Eigen::Index got, Eigen::Index found) {
    if (got != found)
        throw ShapeError(std::string("DistinctRows::") + what + ": " + matrix + " has " + std::to_string(got) +
                         " rows, the last find() had " + std::to_string(found));
}

}  // namespace

void DistinctRows::times(const Matrix& x, const Matrix& B, Matrix& C, bool accumulate) {
    check_rows("times", "x", x.rows(), rows());
    if (!compact_) {
        gemm_nn(x, B, C, accumulate);
        return;
    }
    gemm_nn(gathered_, B, product_);
    const Eigen::Index N = B.cols();
    if (!accumulate) resize_large(C, rows(), N);
    detail::kernel_row_chunks(rows(), [&](Eigen::Index r0, Eigen::Index rn) {
        for (Eigen::Index i = r0; i < r0 + rn; ++i) {
            const float* p = product_.data() + of_row_[static_cast<std::size_t>(i)] * N;
            float* c = C.data() + i * N;
            if (accumulate) {
                for (Eigen::Index j = 0; j < N; ++j) c[j] += p[j];  // the kernel's C + (x·B) row
            } else {
                std::memcpy(c, p, static_cast<std::size_t>(N) * sizeof(float));
            }
        }
    });
}

void DistinctRows::transpose_times_add(const Matrix& x, const Matrix& dy, Matrix& G) const {
    check_rows("transpose_times_add", "x", x.rows(), rows());
    check_rows("transpose_times_add", "dy", dy.rows(), rows());
    if (!compact_) {
        gemm_tn(x, dy, G, /*accumulate=*/true);
        return;
    }
    const Eigen::Index N = dy.cols();
    resize_large(summed_, count(), N);
    summed_.setZero();
    for (Eigen::Index i = 0; i < rows(); ++i) {
        float* s = summed_.data() + of_row_[static_cast<std::size_t>(i)] * N;
        const float* d = dy.data() + i * N;
        for (Eigen::Index j = 0; j < N; ++j) s[j] += d[j];
    }
    gemm_tn(gathered_, summed_, G, /*accumulate=*/true);
}

}  // namespace gatkit
