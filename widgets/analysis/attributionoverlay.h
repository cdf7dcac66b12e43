// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/graph/nodeoverlay.h"

#include "core/results/attribution.h"

namespace tgraph::widgets {

// Graph overlays of an explanation (config A vs B) on the diverging map, blue where a node favours
// A and red where it favours B, values per full-graph node id (`nodeCount` = the file's nodes).
namespace AttributionOverlay {

enum class Quantity {
    ShareDifference, // share A − share B on every node the model saw (< 0 = the node makes A look faster)
    Effect, // −effect on the configurable nodes whose layout differs (< 0 = A's layout of it is faster)
};

NodeOverlay make(const tgraph::Attribution& attribution, int64_t nodeCount, Quantity quantity);

} // namespace AttributionOverlay

} // namespace tgraph::widgets
