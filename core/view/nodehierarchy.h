// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/view/viewgraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

struct GraphDocument;
struct GraphSource;

// The nesting the graph views collapse and expand: computations (segments for .npz graphs), the
// computations embedded in an instruction (fusion bodies, reducers) under that instruction, and,
// for computations too big to lay out at once, chunks of consecutive instructions (like Model
// Explorer's artificial layers), nested as deep as needed to keep every level small.
class NodeHierarchy
{
public:
    enum class GroupKind : uint8_t {
        Computation, // drawn as a box when collapsed
        Embedded, // folded into its owner instruction when collapsed
        Chunk, // consecutive instructions of a big computation, a box when collapsed
    };
    struct Group
    {
        GroupKind kind = GroupKind::Computation;
        int32_t parent = -1; // enclosing group, -1 = top level
        int32_t computation = -1; // GraphDocument::computations index
        int64_t owner = -1; // Embedded: the instruction (node id) it is folded into
        std::string title;
        std::vector<int64_t> nodes; // direct member node ids (empty when split into chunks)
        std::vector<int32_t> children; // chunks, or groups embedded in the member nodes, in node order
        int64_t total = 0; // nodes inside, nested groups included
    };

    // Leaves and inner levels of a chunked computation hold at most this many entries.
    static constexpr int64_t kChunkSize = 120;

    NodeHierarchy() = default;
    // The hierarchy of `source`'s nodes (the full graph or the pruned one) of `document`.
    NodeHierarchy(const GraphDocument& document, const GraphSource& source);

    const std::vector<Group>& groups() const { return m_groups; }
    const std::vector<int32_t>& roots() const { return m_roots; } // entry first
    // Innermost group of a node in this source (node id), -1 when the node is not in it.
    int32_t groupOfNode(int64_t node) const;
    // The groups embedded in instruction `node` (expanded by double-clicking it).
    std::vector<int32_t> groupsOwnedBy(int64_t node) const;
    // `group` and its ancestors, outermost first: what must be expanded for its members to show.
    std::vector<int32_t> ancestry(int32_t group) const;

    // The view with the groups whose flag is set in `expanded` (indexed by group) open and the
    // others collapsed to a box or folded into their owner. Edges between collapsed groups are
    // merged (ViewEdge::count).
    ViewGraph view(
        const GraphDocument& document, const GraphSource& source, const std::vector<uint8_t>& expanded) const;
    // Expansion flags that open groups breadth-first, top level first, while the view stays within
    // `budget` nodes (a whole graph that fits is opened completely).
    std::vector<uint8_t> expandWithin(int64_t budget) const;
    // How many nodes view() would show with these flags.
    int64_t visibleCount(const std::vector<uint8_t>& expanded) const;

private:
    int64_t openCost(int32_t group) const;

    std::vector<Group> m_groups;
    std::vector<int32_t> m_roots;
    std::vector<int32_t> m_groupOfNode; // innermost group per node id of the full graph, -1 = not here
    std::vector<std::pair<int64_t, int32_t>> m_owned; // (owner node, embedded group), sorted
};

} // namespace tgraph
