// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/smoothing.h"

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

std::vector<double> debiasedEma(const std::vector<double>& values, double weight)
{
    const double w = std::isnan(weight) ? 0.0 : std::clamp(weight, 0.0, 0.999);
    std::vector<double> out = values;
    // TensorBoard compares with ==, so a series holding a NaN is never "constant".
    const bool constant = std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
    if (constant || w == 0)
        return out;
    double last = 0;
    double wPowK = 1; // w^k after k finite values
    for (double& v : out) {
        if (!std::isfinite(v))
            continue;
        last = last * w + (1 - w) * v;
        wPowK *= w;
        v = last / (1 - wPowK);
    }
    return out;
}

} // namespace tgraph::widgets
