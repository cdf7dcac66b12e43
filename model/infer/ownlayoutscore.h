// SPDX-License-Identifier: Apache-2.0
#pragma once

// One HLO module scored by the layout model at its own layouts (docs/diff.md §11): featurized with
// the own-layout configuration beside the all-default one (core/sim/ownlayouts.h), pruned as
// training does, scored by every member; the own configuration's score. Used by `tgraph diff
// --weights` and, through model/facade, the studio's Diff page.

#include "model/infer/inference.h"

#include "core/hlo/featurizer.h"

#include <string>
#include <vector>

namespace tgraph {
struct HloModule;
}

namespace tgraph::model {

// InputError naming the first member's file for a tile model, and naming `file` for a module with
// nothing configurable.
double scoreOwnLayouts(std::vector<EnsembleMember>& members, const HloModule& module, const std::string& file,
    const FeaturizeOptions& options = {});

} // namespace tgraph::model
