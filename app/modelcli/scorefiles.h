// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `tgraph predict` and `tgraph eval` share: the options naming the models and the graphs,
// loading the ensemble, scoring every graph file with a progress bar, and the score files.

#include "core/results/scores.h"

#include <functional>
#include <string>
#include <vector>

namespace tgraph::cli {

class ArgParser;

// --weights (repeatable), --data (and FILE... positionals), --batch-configs, --tta, --tta-seed,
// --threads, --repad, -o, --kaggle-csv, --collection-id; and the competition's form: --tree DIR with
// --weights-for ID=W per collection, scoring the `treeSplit` split ("test" for predict, "valid"
// for eval; --split changes it) of each named collection (docs/formats.md §16.5).
void addScoringOptions(ArgParser& p, const char* treeSplit);
// Usage problems of those options ("" when fine).
std::string checkScoringOptions(const ArgParser& p);

// Loads the ensemble, lists the graphs, opens the outputs (an unwritable one fails before any
// work), scores each graph, hands it to `onGraph`, writes it to the outputs, and commits them at
// the end. With `csvToStdout`, no -o and no --kaggle-csv, the CSV goes to stdout. InputError and
// Cancelled propagate (outputs are then removed). Returns which products ran and why
// (model::precisionSummary).
std::string scoreFiles(
    const ArgParser& p, bool csvToStdout, const std::function<void(const tgraph::GraphScores&)>& onGraph);

// With --tree: the collections scored, in the competition's order (tile:xla first).
std::vector<std::string> treeCollections(const ArgParser& p);

} // namespace tgraph::cli
