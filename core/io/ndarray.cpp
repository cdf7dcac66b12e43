// SPDX-License-Identifier: Apache-2.0
#include "core/io/ndarray.h"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <sys/mman.h>

namespace tgraph {

void* allocateArrayMemory(size_t bytes)
{
    constexpr size_t kHuge = size_t(2) << 20;
    void* p;
    if (bytes >= 2 * kHuge) {
        p = std::aligned_alloc(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
        if (p)
            ::madvise(p, bytes, MADV_HUGEPAGE); // a hint; harmless where THP is off
    } else {
        p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    }
    if (!p)
        throw std::bad_alloc();
    return p;
}

void ArrayMemoryDeleter::operator()(void* p) const noexcept { std::free(p); }

int64_t shapeElementCount(const std::vector<int64_t>& shape)
{
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0)
            throw std::overflow_error("negative dimension " + std::to_string(d) + " in shape " + shapeToString(shape));
        if (__builtin_mul_overflow(n, d, &n))
            throw std::overflow_error("shape " + shapeToString(shape) + " has more elements than fit in 64 bits");
    }
    return n;
}

std::string shapeToString(const std::vector<int64_t>& shape)
{
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1)
        s += ",";
    return s + ")";
}

} // namespace tgraph
