// SPDX-License-Identifier: Apache-2.0
#pragma once

// Several models made one ensemble weights file (model/nn/ensemblefile.h, docs/formats.md §12):
// `tgraph weights combine`, and the OUT/ensemble.npz of `tgraph train --seeds` and `--folds`.

#include "core/graph/graph.h"
#include "core/util/json.h"

#include <string>
#include <vector>

namespace tgraph::model {

struct CombinedEnsemble
{
    std::string path;
    GraphKind kind = GraphKind::Layout;
    Json info; // what ensemble.info holds
};

// The members of `inputs`, in order: a weights file or a checkpoint (its weights keys only; its
// seed, fold and best tau go into the description) is one member, an ensemble.json manifest of
// `tgraph train --folds` its checkpoints, an ensemble file its members. Every member is loaded with
// every check of a weights file, members of different kinds (layout, tile) are refused naming the
// file (and member), and `out` is written atomically with each member's arrays copied unchanged.
// `madeBy` ("tgraph weights combine") goes into the description. Sources inside `out`'s folder are
// described by their paths relative to it.
CombinedEnsemble combineWeights(
    const std::vector<std::string>& inputs, const std::string& out, const std::string& madeBy);

// What a weights file, checkpoint or ensemble file holds, torch-free where it can be: its kind,
// whether it is a checkpoint or an ensemble, and one description per model as in ensemble.info
// (model, options, parameters, and a checkpoint's seed, fold, step and best tau). Every model is
// loaded with every check.
struct WeightsSummary
{
    std::string format; // "weights", "checkpoint" or "ensemble"
    GraphKind kind = GraphKind::Layout;
    Json info; // an ensemble's ensemble.info; {"members": [one entry]} otherwise
};
WeightsSummary summarizeWeights(const std::string& path);

} // namespace tgraph::model
