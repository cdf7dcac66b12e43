// SPDX-License-Identifier: Apache-2.0
#pragma once
// One module's layout graph with simulated runtimes: what `tgraph simulate MODULE -o G.npz`
// writes and `tgraph.simulate(module)` returns (docs/simulator.md, docs/python.md §4.2).
#include "core/graph/graph.h"
#include "core/hlo/hlomodule.h"
#include "core/sim/layoutcandidates.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

struct SimulatedGraph
{
    LayoutGraph graph; // meta_synthetic set; runtimes in ns
    bool measuredConfigs = false; // a tuning record's configurations, priced (else sampled ones)
    std::vector<double> measuredNs; // measuredConfigs: the record's runtimes, per configuration
    std::vector<double> simulatedNs; // measuredConfigs: the noise-free simulated runtimes
    int64_t sampled = 0; // sampled configurations (failed ones included)
    int64_t failed = 0; // sampled configurations whose simulated compilation failed (dropped)
    int64_t defaultNs = 0; // sampled: the measurement of the compiler default (row 0)
};

// A module with layout tuning runs: its configurations priced by the simulator (runtimes
// max(1, round(ns))). A module without runs: `count` configurations sampled with `sampler` (guided
// by the simulator's cost), measured with noise and failures for `seed`, failed ones dropped.
// InputError naming `file` and the module for tile-size runs or a module with no configurable node.
SimulatedGraph simulateModuleGraph(const ModuleTuningData& data, const std::string& file, int64_t count,
    LayoutSampler sampler, uint64_t seed, const SimulatorParams& params);

} // namespace tgraph
