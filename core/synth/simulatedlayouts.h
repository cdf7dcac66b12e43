// SPDX-License-Identifier: Apache-2.0
#pragma once
// Simulated layouts of a measured graph's own module (docs/model.md §4.7): the graph's nodes and
// configurable nodes kept, its configurations replaced by `count` sampled ones priced by the
// analytical simulator (docs/simulator.md). What `tgraph train --pretrain-sim N` trains on first.
#include "core/graph/graph.h"
#include "core/hlo/hlomodule.h"
#include "core/sim/layoutcandidates.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <string>

namespace tgraph {

// `graph` (as read from `file`, unpruned: node i is instruction i of `module`) with up to `count`
// distinct configurations sampled over its configurable nodes with `sampler` (row 0 the compiler
// default) and their noise-free simulated runtimes in ns (max(1, round)). meta_synthetic records
// the generator, `file`, the sampler, the seed and the simulator parameters. InputError naming
// `file` when the graph has no configurable node or a configurable node outside the module.
LayoutGraph simulatedLayouts(const LayoutGraph& graph, const HloModule& module, const std::string& file, int64_t count,
    LayoutSampler sampler, uint64_t seed, const SimulatorParams& params = {});

} // namespace tgraph
