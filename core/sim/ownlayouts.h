// SPDX-License-Identifier: Apache-2.0
#pragma once

// An HLO module at its own layouts as a layout graph the layout model scores (docs/diff.md §11):
// the featurizer's graph of the module without tuning runs (docs/formats.md §2.6: its
// convolutions, dots and reshapes configurable) with two configurations, row 0 the compiler
// default (every value -1, docs/model.md §1.1) and row 1 the layouts the module's text or protobuf
// gives, written as a tuning run writes the layouts it chose (docs/formats.md §5.1).

#include "core/graph/graph.h"
#include "core/hlo/featurizer.h"
#include "core/hlo/hlomodule.h"

#include <string>

namespace tgraph {

// The configuration row of the module's own layouts: (1, Nc, 18) for `configurableNodes`. Per
// tensor (output, operand 0, operand 1), as many most-minor dimensions as a layout choice pins
// (layoutChoices: two for convolutions and dots, all for reshapes, none above rank 6), taken from
// the tensor's minor-to-major; -1 where the tensor has no layout (a tuple, a missing operand).
NdArray<float> ownLayoutRow(const HloModule& module, const std::vector<int64_t>& configurableNodes);

// The graph: featurizeLayout of the module without runs, configurations {default, own}, runtimes
// 0 (not measured). InputError naming `file` when the module cannot be featurized or has no
// configurable node (nothing for the layout model to score).
LayoutGraph featurizeOwnLayouts(const HloModule& module, const std::string& file, const FeaturizeOptions& options = {});

// The configuration of featurizeOwnLayouts' graph that holds the own layouts.
constexpr int64_t kOwnLayoutConfig = 1;

} // namespace tgraph
