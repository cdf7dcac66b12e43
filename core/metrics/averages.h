// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tgraph {

// The one way metrics are averaged over graphs (docs/model.md §7.6), by the trainer's evaluations,
// `tgraph eval` and the studio's stored inference runs alike: a value that is NaN or infinite is
// undefined for that graph (a tau with all runtimes equal, an OPA without a comparable pair) and is
// left out, never counted as 0; the mean of no defined value is NaN.
template <class Row>
double meanOfDefined(const std::vector<Row>& rows, double Row::*field)
{
    double sum = 0;
    int64_t count = 0;
    for (const Row& row : rows)
        if (std::isfinite(row.*field)) {
            sum += row.*field;
            ++count;
        }
    return count ? sum / double(count) : std::numeric_limits<double>::quiet_NaN();
}

} // namespace tgraph
