// SPDX-License-Identifier: Apache-2.0
#pragma once

// A module diff priced by the analytical simulator (docs/diff.md §8, docs/simulator.md): both
// modules priced at their own (default) layouts, per instruction as LayoutSimulator::breakdown
// gives it (executions of while bodies counted, fused instructions priced inside their fusion,
// so 0 themselves), and the differences: a matched pair B - A, an added instruction +B, a removed
// one -A. Every instruction of A and of B is in exactly one of those, so the deltas add up to the
// difference of the totals; the same per row of HloDiff::computations. An estimate of a model,
// not a measurement.

#include "core/diff/hlodiff.h"
#include "core/sim/simulator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tgraph {

struct HloDiffCost
{
    std::vector<double> costA; // ns per instruction of A
    std::vector<double> costB; // ns per instruction of B
    double totalA = 0; // the sum of costA (LayoutSimulator::runtime without its 1 ns floor)
    double totalB = 0;
    // Per row of HloDiff::computations: the cost of its computation of A / of B (0 when none).
    std::vector<double> computationA;
    std::vector<double> computationB;

    double delta() const { return totalB - totalA; }
    double computationDelta(size_t row) const { return computationB[row] - computationA[row]; }
    // The delta of an instruction of A: its pair's B - A, or -A when it was removed.
    double deltaOfA(const HloDiff& diff, uint32_t a) const;
    // The delta of an instruction of B: its pair's B - A, or +B when it was added.
    double deltaOfB(const HloDiff& diff, uint32_t b) const;
    double pairDelta(const HloDiff& diff, size_t pair) const
    {
        return costB[diff.pairs[pair].b] - costA[diff.pairs[pair].a];
    }
};

// Prices both sides (one LayoutSimulator per module, no configurable nodes). `diff` must be the
// diff of `a` and `b`.
HloDiffCost priceHloDiff(
    const HloDiff& diff, const HloModule& a, const HloModule& b, const SimulatorParams& params = {});

// The per-instruction costs of one module at its default layouts.
std::vector<double> defaultLayoutCosts(const HloModule& module, const SimulatorParams& params = {});

} // namespace tgraph
