// SPDX-License-Identifier: Apache-2.0
#pragma once

// The recipe `tgraph train --data DIR` picks when no training option is given (docs/model.md
// §4.8): a function from a description of the data to the options, chosen by the experiment of
// docs/benchmarks.md §17.

#include "model/train/pretrain.h"
#include "model/train/trainoptions.h"

#include "core/train/trainingset.h"

#include <cstdint>
#include <string>

namespace tgraph::model {

struct DataDescription
{
    GraphKind kind = GraphKind::Layout;
    int64_t trainGraphs = 0;
    int64_t maxConfigs = 0; // configurations of the largest training graph (after de-duplication)
    int64_t graphsWithModule = 0; // training graphs whose HLO module is known (pretrain.h); counted for few graphs only
    bool inMemory = true; // every graph held in memory (not --resident-graphs): simulator inputs can be attached
};

struct Recipe
{
    std::string name; // "tuning-record" or "collection"
    std::string why; // one line
    double learningRate = 1e-3;
    double epochs = 0; // 0 = the default length (docs/model.md §4.2)
    int64_t pretrainSim = 0; // --pretrain-sim N (0 = none)
    // Runs with seeds S, S+1, ... whose ensemble is the result (tgraph train --seeds, docs/model.md
    // §6.3); 1 = one run. Taken only where --seeds may be (TrainPlan::recipeMaySeed).
    int seeds = 1;
    // The simulator's estimates as model inputs (--sim-inputs, docs/model.md §4.9).
    bool simInputs = false;
};

// Few graphs (at most kFewGraphs) with few configurations each (at most kFewConfigs): the
// tuning-record recipe; anything else (a TpuGraphs collection, tile data): the paper's settings.
constexpr int64_t kFewGraphs = 8;
constexpr int64_t kFewConfigs = 5000;
Recipe chooseRecipe(const DataDescription& data);

// The description of loaded data (modules looked up only for at most kFewGraphs training graphs).
DataDescription describeData(const TrainingData& data);

// The recipe's options over `options` and `pretrain`.
void applyRecipe(const Recipe& recipe, TrainOptions* options, PretrainOptions* pretrain);

} // namespace tgraph::model
