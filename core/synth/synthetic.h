// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"

#include <cstdint>

namespace tgraph {

// Parameters of a synthetic layout graph. Until the simulator issue brings HLO generators and a
// cost simulator, this makes graphs with TpuGraphs structure (topologically ordered DAG,
// convolution/dot/reshape configurable nodes, -1..5 layout rows, duplicate configs) for the demo,
// tests and benchmarks. Runtimes follow a simple additive cost of the layout choices plus noise.
struct SyntheticLayoutSpec
{
    int64_t nodes = 1000;
    int64_t configurableNodes = 40;
    int64_t configs = 200;
    double duplicateFraction = 0.05; // share of configs that copy an earlier row
    uint64_t seed = 1;
};

LayoutGraph makeSyntheticLayoutGraph(const SyntheticLayoutSpec& spec);

} // namespace tgraph
