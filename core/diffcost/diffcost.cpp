// SPDX-License-Identifier: Apache-2.0
#include "core/diffcost/diffcost.h"

#include <stdexcept>

namespace tgraph {

std::vector<double> defaultLayoutCosts(const HloModule& module, const SimulatorParams& params)
{
    if (module.instructions.empty())
        return {};
    const LayoutSimulator simulator(module, {}, params);
    return simulator.breakdown(nullptr);
}

double HloDiffCost::deltaOfA(const HloDiff& diff, uint32_t a) const
{
    const int32_t pair = diff.pairOfA[a];
    return pair >= 0 ? pairDelta(diff, size_t(pair)) : -costA[a];
}

double HloDiffCost::deltaOfB(const HloDiff& diff, uint32_t b) const
{
    const int32_t pair = diff.pairOfB[b];
    return pair >= 0 ? pairDelta(diff, size_t(pair)) : costB[b];
}

HloDiffCost priceHloDiff(const HloDiff& diff, const HloModule& a, const HloModule& b, const SimulatorParams& params)
{
    if (diff.instructionsA != a.instructions.size() || diff.instructionsB != b.instructions.size())
        throw std::invalid_argument("priceHloDiff: the diff is not one of these modules");
    HloDiffCost out;
    out.costA = defaultLayoutCosts(a, params);
    out.costB = defaultLayoutCosts(b, params);
    for (const double ns : out.costA)
        out.totalA += ns;
    for (const double ns : out.costB)
        out.totalB += ns;
    auto computationCost = [](const HloModule& m, const std::vector<double>& cost, int32_t c) {
        if (c < 0)
            return 0.0;
        const HloComputation& comp = m.computations[size_t(c)];
        double sum = 0;
        for (uint32_t k = 0; k < comp.instructionCount; ++k)
            sum += cost[comp.firstInstruction + k];
        return sum;
    };
    out.computationA.reserve(diff.computations.size());
    out.computationB.reserve(diff.computations.size());
    for (const HloComputationDiff& row : diff.computations) {
        out.computationA.push_back(computationCost(a, out.costA, row.a));
        out.computationB.push_back(computationCost(b, out.costB, row.b));
    }
    return out;
}

} // namespace tgraph
