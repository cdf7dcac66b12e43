// SPDX-License-Identifier: Apache-2.0
#pragma once

// Simulator inputs (docs/model.md §4.9) attached to the layout graphs a model with
// ModelOptions::simInputs scores: the graph file's HLO module is found (moduleOfGraphFile,
// explainsimulator.h), the analytical simulator prices every configuration, and
// core/sim/siminputs.h turns the prices into the model's 5 columns per configurable node.
// Torch-free.

#include "core/graph/graph.h"
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
// nullopt-like: `simulator` null with `why` set when the file's module is not found.
GraphSimulator simulatorOfGraphFile(const LayoutGraph& graph, const std::string& path, std::string* why);

// Sets graph.simInputs (C, Nc, 5) for the unpruned `graph` read from `path`. When its module is
// not found the inputs are the unpriced ones (core/sim/siminputs.h: the model was trained to read
// them as "no estimate"), false is returned and `why` says where the module was looked for.
bool attachSimulatorInputs(LayoutGraph& graph, const std::string& path, std::string* why, ProgressSink* progress = nullptr);

// The same for a caller that holds the graph's module (an HLO file or tuning record opened
// directly): priced on `module` when given, else as above. Returns "" when the models take no
// simulator inputs, else where the module came from or "unpriced: WHY" (GraphScores::simInputs).
std::string attachSimulatorInputsFor(bool modelsTakeThem, LayoutGraph& graph, const std::string& path,
    const std::shared_ptr<const HloModule>& module, ProgressSink* progress = nullptr);

} // namespace tgraph::model
