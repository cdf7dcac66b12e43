// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/view/viewgraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

struct GraphDocument;
struct GraphSource;

// The nesting the graph views collapse and expand (docs/studio.md §1.2): computations (segments for
// .npz graphs); inside a computation that is not embedded, the name scopes of its instructions'
// op_names (like Model Explorer's layers); the computations embedded in an instruction (fusion
// bodies, reducers) under that instruction; for .npz graphs, which have no names, blocks of the
// node order cut where few edges cross; and, for levels too big to lay out at once, chunks of
// consecutive members, nested as deep as needed to keep every level small.
class NodeHierarchy
{
public:
    enum class GroupKind : uint8_t {
        Computation, // drawn as a box when collapsed, a frame when open
        Embedded, // folded into its owner instruction when collapsed
        Chunk, // consecutive members of a big level, a box when collapsed; open, its members join the parent
        Scope, // instructions sharing an op_name scope ("encoder/layer_3/attn"): a box, or a frame when open
        Block, // a part of an .npz graph between narrow cuts: a box; open, its members join the parent
    };
    struct OpcodeCount
    {
        std::string name; // GraphDocument::opcodeName
        int64_t count = 0;
    };
    struct Group
    {
        GroupKind kind = GroupKind::Computation;
        int32_t parent = -1; // enclosing group, -1 = top level
        int32_t computation = -1; // GraphDocument::computations index
        int64_t owner = -1; // Embedded: the instruction (node id) it is folded into
        // Short name for a box or a frame: the computation's name, the scope's last component(s)
        // below the prefix its computation's scopes share ("layer_3/attn"), a chunk's parent and
        // range ("attn [1–120 of 300]"), a block's main opcodes ("convolution ×12 · add ×40").
        std::string title;
        // Full name for tooltips and breadcrumbs: the scope's whole path (shared prefix included),
        // the computation's name, a chunk's or block's parent path and range.
        std::string path;
        std::vector<int64_t> nodes; // direct member node ids, ascending
        // Child groups: scopes, blocks and chunks in node order, then the groups embedded in the
        // member nodes in owner order.
        std::vector<int32_t> children;
        int64_t total = 0; // nodes inside, nested groups included
        // Smallest and largest node id inside, and the most frequent opcodes (up to three, most
        // frequent first); the nodes of embedded groups count only for those groups.
        int64_t first = -1;
        int64_t last = -1;
        std::vector<OpcodeCount> opcodes;
        bool repeats = false; // a sibling is similar (see similarGroups)
    };

    // Leaves and inner levels hold at most this many entries (nodes plus child groups).
    static constexpr int64_t kChunkSize = 120;
    // A level of scopes with more members than this puts its instructions outside any scope into
    // one box ("other instructions"), so that it opens on its scopes and that box.
    static constexpr int64_t kWideLevel = 32;

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
    // What a breadcrumb bar shows for `group`: its ancestry (each title reads on its own).
    std::vector<int32_t> breadcrumbs(int32_t group) const { return ancestry(group); }
    // Groups "of the same kind" as `group`, itself included, in index order: the groups of its kind
    // at its depth (chunks not counted) whose titles are equal once every run of digits reads '#'
    // ("layer_3" ~ "layer_11", "Conv2d_9_pointwise" ~ "Conv2d_10_pointwise"; for blocks, the same
    // main opcodes). What "expand all groups of this kind" opens.
    std::vector<int32_t> similarGroups(int32_t group) const;

    // The view with the groups whose flag is set in `expanded` (indexed by group) open and the
    // others collapsed to a box or folded into their owner. Edges between collapsed groups are
    // merged (ViewEdge::count).
    ViewGraph view(
        const GraphDocument& document, const GraphSource& source, const std::vector<uint8_t>& expanded) const;
    // Expansion flags that open groups breadth-first, top level first, while the view stays within
    // `budget` nodes (a whole graph that fits is opened completely).
    std::vector<uint8_t> expandWithin(int64_t budget) const;
    // Expansion flags for the first view of a graph, within `budget` boxes and nodes: a whole
    // graph that fits is opened completely; otherwise the entry computation opens first, then
    // always the biggest box whose opening still fits (embedded groups stay folded). When that
    // leaves fewer than min(8, budget) boxes while more exist, the cheapest boxes are opened anyway.
    std::vector<uint8_t> firstViewExpansion(int64_t budget) const;
    // How many nodes view() would show with these flags.
    int64_t visibleCount(const std::vector<uint8_t>& expanded) const;

private:
    struct Member
    {
        int64_t node = -1; // a node, or
        int32_t group = -1; // a child group
        int64_t first = -1; // the node, or the group's smallest node id: members are kept in this order
    };
    int64_t openCost(int32_t group) const;
    int32_t addGroup(Group group);
    void attachMembers(int32_t group, const std::vector<Member>& members);
    void buildScopes(const GraphDocument& document, const GraphSource& source, int32_t group,
        const std::vector<int64_t>& nodes, std::vector<int32_t>& scratch);
    void buildBlocks(const GraphDocument& document, const GraphSource& source, int32_t group,
        const std::vector<int64_t>& nodes, std::vector<int32_t>& scratch);
    void summarize(const GraphDocument& document, const GraphSource& source);
    int depthOf(int32_t group) const;

    std::vector<Group> m_groups;
    std::vector<int32_t> m_roots;
    int32_t m_entryRoot = -1; // the entry computation's group when it is top level
    std::vector<int32_t> m_groupOfNode; // innermost group per node id of the full graph, -1 = not here
    std::vector<std::pair<int64_t, int32_t>> m_owned; // (owner node, embedded group), sorted
};

} // namespace tgraph
