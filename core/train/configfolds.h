// SPDX-License-Identifier: Apache-2.0
#pragma once

// Folds over configurations (docs/model.md §4.4.1): for data of so few graphs that graph-level folds
// (§4.4) cannot work -- a single real tuning record, one published module -- each training graph's
// configurations are cut into K folds; one fold is held out for validation, the other K - 1 train.

#include "core/train/trainingset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

struct ConfigFoldOptions
{
    int folds = 0; // K >= 2; 0 = off
    int fold = 0; // the held-out fold, 0..K-1
    uint32_t seed = 0; // the split seed (kfoldAssignment per graph)
};

// Splits every training graph of `data` in place: the graph keeps the configurations outside fold
// `fold` (it still trains), and a validation graph with the same nodes and the held-out
// configurations is appended right after the training graphs (name "NAME [held-out fold k/K]").
// Fold membership is kfoldAssignment(C, K, seed) over the graph's configurations as loaded (after
// the training split's de-duplication, so no configuration is on both sides). Valid-split graphs
// of the input are dropped (recorded in data.skipped): validation is the held-out configurations.
// Layout graphs only. InputError naming the file when a graph has fewer than 2 * K configurations
// (every side needs 2 to be ranked) or is a tile graph.
void holdOutConfigFold(TrainingData& data, const ConfigFoldOptions& options);

} // namespace tgraph
