// SPDX-License-Identifier: Apache-2.0
#pragma once

// The simulator's estimates as inputs of the layout model (docs/model.md §4.9, `tgraph train
// --sim-inputs`): per configuration and configurable node, what the analytical simulator
// (simulator.h) says that node's layout choice costs, so that the model learns the simulator's
// error instead of the whole runtime. Torch-free; the model layer attaches them to graphs whose
// HLO module is known.

#include "core/graph/graph.h"
#include "core/io/ndarray.h"
#include "core/sim/simulator.h"

#include <cstdint>

namespace tgraph {

class ProgressScope;

// Columns per (config, configurable node), each against the compiler-default config (every
// value -1) and clamped to +-kSimInputLimit:
//   0  ln((own + 1 ns) / (own_default + 1 ns))        the node's own cost
//   1  ln((region + 1 ns) / (region_default + 1 ns))  every instruction its layout reaches
//   2  ln(runtime / runtime_default)                  the whole program (same for all nodes)
//   3  (region - region_default) / runtime_default    the node's share of the program's change
//   4  1: priced by the simulator; 0: the module is unknown and columns 0-3 are 0 (unpricedInputs)
// (kSimInputColumns, core/graph/graph.h, counts them.)
constexpr float kSimInputLimit = 10.0f;

// (C, Nc, 5) for config rows `configs` (C, Nc, 18) of the simulator's configurable nodes.
// std::invalid_argument when the shape is not (C, Nc, 18) with the simulator's Nc. `progress`
// (optional) advances once per row.
NdArray<float> simulatorInputs(const LayoutSimulator& simulator, const NdArray<float>& configs, ProgressScope* progress = nullptr);

// (C, Nc, 5) of zeros: the inputs of a graph whose module is unknown.
NdArray<float> unpricedSimInputs(int64_t configs, int64_t configurable);

} // namespace tgraph
