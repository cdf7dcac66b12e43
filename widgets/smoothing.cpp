// SPDX-License-Identifier: Apache-2.0
#include "smoothing.h"

#include <algorithm>
#include <cmath>

std::vector<double> debiasedEma(const std::vector<double>& values, double weight)
{
    const double w = std::clamp(std::isnan(weight) ? 0.0 : weight, 0.0, 0.999);
    std::vector<double> out(values.size());
    double last = 0;
    double correction = 1; // w^k
    for (size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (!std::isfinite(v)) {
            out[i] = v;
            continue;
        }
        last = w * last + (1 - w) * v;
        correction *= w;
        out[i] = w == 0 ? v : last / (1 - correction);
    }
    return out;
}
