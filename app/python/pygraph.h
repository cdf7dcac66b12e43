// SPDX-License-Identifier: Apache-2.0
#pragma once
// tgraph.Graph (docs/python.md §3): a layout or tile graph held by C++, its arrays reached by the
// npz's own keys as read-only numpy views of the C++ buffers.
#include "core/graph/graph.h"
#include "core/hlo/hlomodule.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tgraph::python {

namespace py = pybind11;

struct GraphData
{
    GraphKind kind = GraphKind::Layout;
    LayoutGraph layout; // kind == Layout
    TileGraph tile; // kind == Tile
    std::string source; // the file, or what the graph was made from ("<module NAME>"), for messages
    // A graph made by prune(): the node maps (oldToNew: -1 for dropped nodes).
    std::optional<std::vector<int64_t>> oldToNew, newToOld;
    // The HLO module a featurized graph comes from (the simulator side of explain()).
    std::shared_ptr<const ModuleTuningData> module;

    int64_t nodeCount() const { return kind == GraphKind::Layout ? layout.nodeCount() : tile.nodeCount(); }
    int64_t configCount() const { return kind == GraphKind::Layout ? layout.configCount() : tile.configCount(); }
};

using GraphPtr = std::shared_ptr<GraphData>;

GraphPtr makeGraph(LayoutGraph graph, std::string source);
GraphPtr makeGraph(TileGraph graph, std::string source);

void bindGraph(py::module_& module);

} // namespace tgraph::python
