// SPDX-License-Identifier: Apache-2.0
#pragma once

// Simulator inputs (docs/model.md §4.9) attached to the layout graphs a model with
// ModelOptions::simInputs scores: the graph file's HLO module is found (moduleOfGraphFile,
// explainsimulator.h), the analytical simulator prices every configuration, and
// core/sim/siminputs.h turns the prices into the model's 5 columns per configurable node.
// Torch-free.

#include "core/graph/graph.h"
#include "core/graph/prune.h"
#include "core/hlo/hlomodule.h"
#include "core/sim/simulator.h"

#include <memory>
#include <string>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::model {

// The simulator of a layout graph file's module (unpruned `graph` as read from `path`, its
// configurable nodes), with the parameters recorded in the file (simulatorParamsOf).
struct GraphSimulator
{
    std::shared_ptr<const HloModule> module;
    std::unique_ptr<LayoutSimulator> simulator;
    std::string source; // where the module came from
};
// Found as moduleOfGraphFile finds it; `simulator` null with `why` set when there is none.
GraphSimulator simulatorOfGraphFile(const LayoutGraph& graph, const std::string& path, std::string* why);

// (C, Nc, 5) for config rows `values` (C, Nc, 18): priced by `simulator` when it has one, else the
// unpriced inputs (the model was trained to read them as "no estimate"). `progress` advances per row.
NdArray<float> priceConfigRows(const GraphSimulator* simulator, const NdArray<float>& values, ProgressSink* progress = nullptr);

// The simulator explain and what-if price their configurations with (they make rows no file
// holds): on `module` when given (its configurable nodes are the file graph's, or the pruned
// graph's mapped back through newToOld), else on the module found for the file graph (`fileGraph`,
// else read from `path`). Its `simulator` is null with `why` set when there is none.
std::shared_ptr<const GraphSimulator> findGraphSimulator(const PrunedGraph& pruned, const std::string& path,
    const std::shared_ptr<const HloModule>& module, const LayoutGraph* fileGraph, std::string* why);

// Sets graph.simInputs (C, Nc, 5) of the unpruned `graph` read from `path` when the models take
// them (else clears them): priced on `module` when given (an HLO file or tuning record opened
// directly), else on the module found for the file, else unpriced. Returns "" when the models take
// none, else where the module came from or "unpriced: WHY" (GraphScores::simInputs).
std::string attachSimulatorInputsFor(bool modelsTakeThem, LayoutGraph& graph, const std::string& path,
    const std::shared_ptr<const HloModule>& module, ProgressSink* progress = nullptr);

} // namespace tgraph::model
