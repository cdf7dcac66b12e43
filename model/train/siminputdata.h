// SPDX-License-Identifier: Apache-2.0
#pragma once

// Training data for a model with simulator inputs (docs/model.md §4.9, `tgraph train
// --sim-inputs`): every layout graph gets the simulator's estimates of its configurations,
// priced on its file's HLO module (model/infer/siminputs.h), or the unpriced inputs when the
// module is not known.

#include "core/train/trainingset.h"

#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::model {

// Sets TrainingGraph::simInputs of every layout graph of `data` (for its rows as they are now:
// after de-duplication and config folds). Returns one "FILE: why" line per file whose module was
// not found. InputError for tile data or a graph not held in memory (--resident-graphs).
std::vector<std::string> attachSimulatorInputs(TrainingData& data, ProgressSink* progress = nullptr);

} // namespace tgraph::model
