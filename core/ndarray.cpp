// SPDX-License-Identifier: Apache-2.0
#include "ndarray.h"

#include <stdexcept>

namespace tgraph {

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
