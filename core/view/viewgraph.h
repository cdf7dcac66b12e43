// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

// What a graph view draws: a bounded selection of a graph's nodes, boxes standing for collapsed
// groups, markers for neighbours left out, the edges between them and the clusters around them.
// Nodes are named by their id in the full graph whichever source (full or pruned) they came from.
struct ViewNode
{
    enum class Kind : uint8_t {
        Node, // one node of the graph
        Group, // a collapsed group (computation or chunk) of `count` nodes
        More, // `count` neighbours of `node` that were left out
        Alias, // a stand-in for view node `aliasOf` next to one of its users or operands
    };
    Kind kind = Kind::Node;
    int64_t node = -1; // Node: its id; More: the node whose neighbours were left out
    int32_t group = -1; // Group: NodeHierarchy group index
    int32_t cluster = -1; // innermost ViewGraph cluster, -1 = top level
    int64_t count = 1;
    bool expandable = false; // Node: has embedded computations to expand
    bool focus = false; // the neighbourhood's centre, a path's end
    int32_t aliasOf = -1; // Alias: the view node it stands for (same `node` / `group`)
};

// Producer -> consumer; `count` edges of the graph merged into one (between collapsed groups).
struct ViewEdge
{
    int32_t from = 0;
    int32_t to = 0;
    int32_t count = 1;
};

struct ViewCluster
{
    int32_t parent = -1;
    int32_t group = -1; // NodeHierarchy group it shows open, -1 for a plain computation cluster
    std::string title;
};

struct ViewGraph
{
    std::vector<ViewNode> nodes;
    std::vector<ViewEdge> edges;
    std::vector<ViewCluster> clusters; // parents before children
    bool truncated = false; // a cap left nodes out
    std::string note; // what was left out and why, for the view's status line

    // View index of graph node `node` shown as a Node, -1 when it is not shown.
    int32_t indexOfNode(int64_t node) const;
    // View index of the box of group `group`, -1 when it is not shown as a box.
    int32_t indexOfGroup(int32_t group) const;
    int64_t nodesShown() const; // Kind::Node entries
};

// Long edges from nodes with many users (a parameter read by 250 ops) or many operands (a tuple
// of 250 values) make Graphviz slow and the drawing unreadable (TensorBoard draws such nodes as
// "auxiliary" stubs). Keeps the first `keep` edges of every node with more than `maxEdges` users
// or operands and routes the others through Alias nodes placed next to the other end.
void aliasHighDegreeNodes(ViewGraph& view, int maxEdges = 12, int keep = 4);

// When one top-level cluster holds every node (a module with only its entry computation open), the
// frame says nothing and keeps Graphviz from packing the disconnected parts of the graph into a
// compact drawing: removes it (its children become top level). Returns its title, empty when
// nothing was removed.
std::string dropSoleOuterCluster(ViewGraph& view);

} // namespace tgraph
