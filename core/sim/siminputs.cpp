// SPDX-License-Identifier: Apache-2.0
#include "core/sim/siminputs.h"

#include "core/util/progress.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace tgraph {

namespace {

float clamped(double v)
{
    if (!std::isfinite(v))
        return v > 0 ? kSimInputLimit : -kSimInputLimit;
    return float(std::clamp(v, -double(kSimInputLimit), double(kSimInputLimit)));
}

} // namespace

NdArray<float> simulatorInputs(const LayoutSimulator& simulator, const NdArray<float>& configs, ProgressScope* progress)
{
    const int64_t nc = simulator.configurableCount();
    if (configs.ndim() != 3 || configs.dim(1) != nc || configs.dim(2) != 18)
        throw std::invalid_argument("simulatorInputs: config rows must be (C, " + std::to_string(nc) + ", 18)");
    const int64_t c = configs.dim(0);
    const size_t count = size_t(nc);
    std::vector<double> ownDefault(count), regionDefault(count), own(count), region(count);
    const double totalDefault = simulator.configurableCosts(nullptr, ownDefault.data(), regionDefault.data());
    NdArray<float> out({ c, nc, kSimInputColumns });
    for (int64_t row = 0; row < c; ++row) {
        const double total = simulator.configurableCosts(configs.row(row), own.data(), region.data());
        const float whole = clamped(std::log(total / totalDefault));
        float* o = out.data() + row * nc * kSimInputColumns;
        for (int64_t k = 0; k < nc; ++k, o += kSimInputColumns) {
            const size_t i = size_t(k);
            o[0] = clamped(std::log((own[i] + 1.0) / (ownDefault[i] + 1.0)));
            o[1] = clamped(std::log((region[i] + 1.0) / (regionDefault[i] + 1.0)));
            o[2] = whole;
            o[3] = clamped((region[i] - regionDefault[i]) / totalDefault);
            o[4] = 1.0f;
        }
        if (progress)
            progress->advanceBy(1);
    }
    return out;
}

NdArray<float> unpricedSimInputs(int64_t configs, int64_t configurable)
{
    return NdArray<float>({ configs, configurable, kSimInputColumns }, 0.0f);
}

} // namespace tgraph
