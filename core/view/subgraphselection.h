// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/view/viewgraph.h"

#include <cstdint>

namespace tgraph {

struct GraphDocument;
struct GraphSource;

struct NeighbourhoodOptions
{
    int radius = 2; // 1..3 hops, both directions
    int64_t maxNodes = 400; // the view never holds more nodes than this
    int64_t maxNeighbours = 16; // per node; the rest becomes one "N more" marker (like XLA's kMaxUsersToRender)
};

// The nodes within `radius` hops (operands and users) of node `center` (a full-graph id that must
// be in `source`), their edges, and markers for what was left out; clusters are computations.
ViewGraph neighbourhoodView(
    const GraphDocument& document, const GraphSource& source, int64_t center, const NeighbourhoodOptions& options = {});

struct PathOptions
{
    int64_t maxNodes = 100; // XLA's interactive_graphviz `allpaths` default
};

// The nodes on any dataflow path between `from` and `to` (either direction), capped: when there
// are more, the nodes on the shortest paths are kept first and the view says it is truncated.
ViewGraph pathsView(const GraphDocument& document, const GraphSource& source, int64_t from, int64_t to,
    const PathOptions& options = {});

// Every node of `source` with its computation clusters: the whole graph, for graphs small enough.
ViewGraph wholeGraphView(const GraphDocument& document, const GraphSource& source);

} // namespace tgraph
