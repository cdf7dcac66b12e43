// SPDX-License-Identifier: Apache-2.0
#pragma once

// Why the models rank config A against config B, through the facade (docs/architecture.md, room
// model/facade; docs/model.md §6.4): model/infer/explain.h's explanation of a layout graph and its
// what-if edits, for an Ensemble, with torch-free arguments and results (core/results).

#include "model/facade/ensemble.h"

#include "core/graph/prune.h"
#include "core/results/attribution.h"
#include "core/results/editedscore.h"
#include "core/results/explainoptions.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace tgraph {
class HloModule;
class ProgressSink;
} // namespace tgraph

namespace tgraph::facade {

// `fileGraph` pruned as training does (`pruned`), named `source` in errors: resolves the selectors
// (fastest / slowest by the ensemble's scores, default by compilerDefaultConfig), explains A against
// B and adds the simulator's side when the module is known (`module`, or options.moduleFile).
// `moduleNote`, when given, says why there is no simulator side ("" when there is). InputError
// naming `source` for bad indices, members that are not layout models or a graph they cannot take.
Attribution explainLayoutGraph(Ensemble& models, const LayoutGraph& fileGraph, const PrunedGraph& pruned,
    const std::string& source, const ConfigSelector& a, const ConfigSelector& b,
    const tgraph::ExplainFileOptions& options, std::shared_ptr<const HloModule> module = nullptr,
    std::string* moduleNote = nullptr, ProgressSink* progress = nullptr);

// What-if: row `base` of `pruned` with configurable node `configurable`'s 18 layout values replaced
// by `values`, scored in the same pass as `base` (the mean over members).
tgraph::EditedScore scoreEditedLayout(Ensemble& models, const PrunedGraph& pruned, int64_t base, int64_t configurable,
    const std::array<float, 18>& values, int64_t batchConfigs, const std::string& source,
    const LayoutGraph* fileGraph = nullptr, std::shared_ptr<const HloModule> module = nullptr);

} // namespace tgraph::facade
