// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"

#include <string>
#include <vector>

namespace tgraph {

// A layout graph pruned to its configurable nodes and their 1-hop neighbours, with the node id
// maps the split before/after views and the explain overlay need.
struct PrunedGraph
{
    LayoutGraph graph;
    std::vector<int64_t> oldToNew; // size = original N; -1 for dropped nodes
    std::vector<int64_t> newToOld; // size = pruned N; ascending (topological order preserved)
};

// docs/model.md §2.2 exactly: keep edges with a configurable endpoint, keep their nodes in
// original order, remap ids. Edges between two non-configurable nodes are dropped. Configs and
// runtimes are unchanged; node_splits are mapped to the number of kept nodes before each split.
// Throws InputError (naming `file`) if a configurable node has no edge.
PrunedGraph pruneToConfigurable(const LayoutGraph& graph, const std::string& file = {});

} // namespace tgraph
