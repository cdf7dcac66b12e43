// SPDX-License-Identifier: Apache-2.0
#include "core/view/nodehierarchy.h"

#include "core/view/graphdocument.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace tgraph {

namespace {

std::string rangeTitle(const std::string& name, int64_t from, int64_t to, int64_t of)
{
    return name + " [" + std::to_string(from + 1) + "\u2013" + std::to_string(to) + " of " + std::to_string(of) + "]";
}

// A chunk of an .npz graph, whose segments have no names worth repeating: its node ids.
std::string nodeRangeTitle(int64_t first, int64_t last)
{
    return "nodes " + std::to_string(first) + "\u2013" + std::to_string(last);
}

} // namespace

NodeHierarchy::NodeHierarchy(const GraphDocument& document, const GraphSource& source)
{
    const int64_t globalCount = document.nodeCount();
    m_groupOfNode.assign(size_t(globalCount), -1);

    // Members of each computation in this source, ascending.
    std::vector<std::vector<int64_t>> members(document.computations.size());
    for (int64_t local = 0; local < source.nodeCount(); ++local) {
        const int64_t node = source.toGlobal(local);
        members[size_t(document.computationOfNode[size_t(node)])].push_back(node);
    }

    // 1. One group per non-empty computation, split into chunks when it is big.
    std::vector<int32_t> groupOfComputation(document.computations.size(), -1);
    for (size_t c = 0; c < document.computations.size(); ++c) {
        std::vector<int64_t>& nodes = members[c];
        if (nodes.empty())
            continue;
        const DocumentComputation& comp = document.computations[c];
        Group group;
        group.computation = int32_t(c);
        group.title = comp.name;
        const bool ownerHere = comp.embedded && comp.owner >= 0 && source.contains(comp.owner);
        group.kind = ownerHere ? GroupKind::Embedded : GroupKind::Computation;
        group.owner = ownerHere ? comp.owner : -1;
        const auto index = int32_t(m_groups.size());
        groupOfComputation[c] = index;
        const auto count = int64_t(nodes.size());
        if (count <= kChunkSize) {
            for (const int64_t node : nodes)
                m_groupOfNode[size_t(node)] = index;
            group.nodes = std::move(nodes);
            m_groups.push_back(std::move(group));
            continue;
        }
        m_groups.push_back(std::move(group));
        // Leaves of kChunkSize nodes, then levels of at most kChunkSize chunks each.
        std::vector<int32_t> level;
        std::vector<std::pair<int64_t, int64_t>> spans; // member index range of each chunk in `level`
        for (int64_t begin = 0; begin < count; begin += kChunkSize) {
            const int64_t end = std::min(count, begin + kChunkSize);
            Group chunk;
            chunk.kind = GroupKind::Chunk;
            chunk.computation = int32_t(c);
            chunk.title = document.module ? rangeTitle(comp.name, begin, end, count)
                                          : nodeRangeTitle(nodes[size_t(begin)], nodes[size_t(end - 1)]);
            const auto chunkIndex = int32_t(m_groups.size());
            for (int64_t k = begin; k < end; ++k) {
                chunk.nodes.push_back(nodes[size_t(k)]);
                m_groupOfNode[size_t(nodes[size_t(k)])] = chunkIndex;
            }
            m_groups.push_back(std::move(chunk));
            level.push_back(chunkIndex);
            spans.emplace_back(begin, end);
        }
        while (int64_t(level.size()) > kChunkSize) {
            std::vector<int32_t> upper;
            std::vector<std::pair<int64_t, int64_t>> upperSpans;
            for (size_t begin = 0; begin < level.size(); begin += size_t(kChunkSize)) {
                const size_t end = std::min(level.size(), begin + size_t(kChunkSize));
                Group chunk;
                chunk.kind = GroupKind::Chunk;
                chunk.computation = int32_t(c);
                chunk.title = document.module
                    ? rangeTitle(comp.name, spans[begin].first, spans[end - 1].second, count)
                    : nodeRangeTitle(nodes[size_t(spans[begin].first)], nodes[size_t(spans[end - 1].second - 1)]);
                const auto chunkIndex = int32_t(m_groups.size());
                for (size_t k = begin; k < end; ++k) {
                    chunk.children.push_back(level[k]);
                    m_groups[size_t(level[k])].parent = chunkIndex;
                }
                m_groups.push_back(std::move(chunk));
                upper.push_back(chunkIndex);
                upperSpans.emplace_back(spans[begin].first, spans[end - 1].second);
            }
            level = std::move(upper);
            spans = std::move(upperSpans);
        }
        for (const int32_t chunk : level) {
            m_groups[size_t(chunk)].parent = index;
            m_groups[size_t(index)].children.push_back(chunk);
        }
    }

    // 2. Embedded computations hang under their owner's innermost group, after the owner.
    for (size_t g = 0; g < m_groups.size(); ++g) {
        Group& group = m_groups[g];
        if (group.kind != GroupKind::Embedded)
            continue;
        int32_t parent = m_groupOfNode[size_t(group.owner)];
        // A cycle (owner inside this group) cannot come from XLA's call graph; keep it top level.
        for (int32_t p = parent, steps = 0; p >= 0 && steps < int32_t(m_groups.size());
             p = m_groups[size_t(p)].parent, ++steps)
            if (p == int32_t(g))
                parent = -1;
        if (parent < 0) {
            group.kind = GroupKind::Computation;
            group.owner = -1;
            continue;
        }
        group.parent = parent;
        m_owned.emplace_back(group.owner, int32_t(g));
    }
    std::sort(m_owned.begin(), m_owned.end());
    // Children of groups with direct nodes: their embedded groups in owner order.
    for (const auto& [owner, g] : m_owned)
        m_groups[size_t(m_groups[size_t(g)].parent)].children.push_back(g);

    // 3. Top level: the entry first, then the other computations in module order.
    for (size_t c = 0; c < document.computations.size(); ++c) {
        const int32_t g = groupOfComputation[c];
        if (g >= 0 && m_groups[size_t(g)].parent < 0) {
            if (document.computations[c].entry)
                m_roots.insert(m_roots.begin(), g);
            else
                m_roots.push_back(g);
        }
    }

    // 4. Totals, children before parents (post-order from the roots).
    std::vector<std::pair<int32_t, bool>> stack;
    for (const int32_t root : m_roots)
        stack.emplace_back(root, false);
    while (!stack.empty()) {
        auto [g, done] = stack.back();
        stack.pop_back();
        Group& group = m_groups[size_t(g)];
        if (done) {
            group.total = int64_t(group.nodes.size());
            for (const int32_t child : group.children)
                group.total += m_groups[size_t(child)].total;
            continue;
        }
        stack.emplace_back(g, true);
        for (const int32_t child : group.children)
            stack.emplace_back(child, false);
    }
}

int32_t NodeHierarchy::groupOfNode(int64_t node) const
{
    return node >= 0 && size_t(node) < m_groupOfNode.size() ? m_groupOfNode[size_t(node)] : -1;
}

std::vector<int32_t> NodeHierarchy::groupsOwnedBy(int64_t node) const
{
    std::vector<int32_t> out;
    auto it = std::lower_bound(m_owned.begin(), m_owned.end(), std::make_pair(node, int32_t(-1)));
    for (; it != m_owned.end() && it->first == node; ++it)
        out.push_back(it->second);
    return out;
}

std::vector<int32_t> NodeHierarchy::ancestry(int32_t group) const
{
    std::vector<int32_t> out;
    for (int32_t g = group; g >= 0; g = m_groups[size_t(g)].parent)
        out.push_back(g);
    std::reverse(out.begin(), out.end());
    return out;
}

int64_t NodeHierarchy::openCost(int32_t group) const
{
    const Group& g = m_groups[size_t(group)];
    int64_t cost = int64_t(g.nodes.size());
    for (const int32_t child : g.children)
        cost += m_groups[size_t(child)].kind == GroupKind::Embedded ? 0 : 1;
    return cost;
}

int64_t NodeHierarchy::visibleCount(const std::vector<uint8_t>& expanded) const
{
    const auto isOpen = [&](int32_t g) { return size_t(g) < expanded.size() && expanded[size_t(g)]; };
    int64_t count = 0;
    std::vector<int32_t> stack;
    for (const int32_t root : m_roots) {
        if (isOpen(root))
            stack.push_back(root);
        else
            ++count;
    }
    while (!stack.empty()) {
        const int32_t g = stack.back();
        stack.pop_back();
        count += int64_t(m_groups[size_t(g)].nodes.size());
        for (const int32_t child : m_groups[size_t(g)].children) {
            if (isOpen(child))
                stack.push_back(child);
            else if (m_groups[size_t(child)].kind != GroupKind::Embedded)
                ++count;
        }
    }
    return count;
}

std::vector<uint8_t> NodeHierarchy::expandWithin(int64_t budget) const
{
    std::vector<uint8_t> expanded(m_groups.size(), 0);
    int64_t visible = int64_t(m_roots.size());
    std::deque<int32_t> queue(m_roots.begin(), m_roots.end());
    while (!queue.empty()) {
        const int32_t g = queue.front();
        queue.pop_front();
        const bool embedded = m_groups[size_t(g)].kind == GroupKind::Embedded;
        const int64_t added = openCost(g) - (embedded ? 0 : 1);
        if (visible + added > budget)
            continue;
        expanded[size_t(g)] = 1;
        visible += added;
        for (const int32_t child : m_groups[size_t(g)].children)
            queue.push_back(child);
    }
    return expanded;
}

ViewGraph NodeHierarchy::view(
    const GraphDocument& document, const GraphSource& source, const std::vector<uint8_t>& expanded) const
{
    const auto isOpen = [&](int32_t g) { return size_t(g) < expanded.size() && expanded[size_t(g)]; };
    constexpr int32_t kOpen = -2; // the group is open: its nodes stand for themselves
    constexpr int32_t kDropped = -1; // folded into a collapsed owner: edges to it are not drawn
    constexpr int32_t kUnset = -3;
    std::vector<int32_t> state(m_groups.size(), kUnset); // kOpen, kDropped or a view index (box)
    std::vector<int32_t> nodeView(size_t(document.nodeCount()), -1);

    ViewGraph view;
    struct Frame
    {
        int32_t group;
        int32_t cluster; // the cluster the group's content goes into
        size_t next; // next node or child to emit
        size_t nextOwned; // with direct nodes: next embedded child (children are in owner order)
    };
    std::vector<Frame> stack;
    const auto place = [&](int32_t g, int32_t cluster) {
        const Group& group = m_groups[size_t(g)];
        if (isOpen(g)) {
            state[size_t(g)] = kOpen;
            // An open chunk is only a cut through a computation: its nodes join the enclosing box,
            // so a computation drawn whole is laid out as one dataflow.
            if (group.kind == GroupKind::Chunk) {
                stack.push_back({ g, cluster, 0, 0 });
                return;
            }
            view.clusters.push_back({ cluster, g, group.title });
            stack.push_back({ g, int32_t(view.clusters.size()) - 1, 0, 0 });
        } else if (group.kind == GroupKind::Embedded) {
            state[size_t(g)] = kDropped;
        } else {
            state[size_t(g)] = int32_t(view.nodes.size());
            ViewNode box;
            box.kind = ViewNode::Kind::Group;
            box.group = g;
            box.cluster = cluster;
            box.count = group.total;
            view.nodes.push_back(box);
        }
    };
    for (const int32_t root : m_roots) {
        place(root, -1);
        while (!stack.empty()) {
            Frame& f = stack.back();
            const Group& group = m_groups[size_t(f.group)];
            if (group.nodes.empty()) {
                if (f.next >= group.children.size()) {
                    stack.pop_back();
                    continue;
                }
                const int32_t child = group.children[f.next++];
                place(child, f.cluster);
                continue;
            }
            if (f.next >= group.nodes.size()) {
                stack.pop_back();
                continue;
            }
            const int64_t node = group.nodes[f.next];
            // Emit the node once, then the groups embedded in it, one per step.
            if (nodeView[size_t(node)] < 0) {
                ViewNode v;
                v.node = node;
                v.cluster = f.cluster;
                nodeView[size_t(node)] = int32_t(view.nodes.size());
                view.nodes.push_back(v);
            }
            const std::vector<int32_t> owned = groupsOwnedBy(node);
            view.nodes[size_t(nodeView[size_t(node)])].expandable = !owned.empty();
            if (f.nextOwned < owned.size()) {
                const int32_t child = owned[f.nextOwned++];
                place(child, f.cluster);
                continue;
            }
            ++f.next;
            f.nextOwned = 0;
        }
    }

    // Where each group's nodes end up: the outermost collapsed ancestor decides.
    std::vector<int32_t> resolved(m_groups.size(), kUnset);
    const auto resolve = [&](int32_t g) {
        std::vector<int32_t> chain;
        int32_t at = g;
        while (at >= 0 && resolved[size_t(at)] == kUnset) {
            chain.push_back(at);
            at = m_groups[size_t(at)].parent;
        }
        int32_t outer = at >= 0 ? resolved[size_t(at)] : kOpen;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            if (outer == kOpen)
                outer = state[size_t(*it)] == kUnset ? kOpen : state[size_t(*it)];
            resolved[size_t(*it)] = outer;
        }
        return resolved[size_t(g)];
    };
    const auto representative = [&](int64_t node) {
        const int32_t g = groupOfNode(node);
        if (g < 0)
            return int32_t(kDropped);
        const int32_t r = resolve(g);
        return r == kOpen ? nodeView[size_t(node)] : r;
    };

    std::unordered_map<uint64_t, size_t> edgeIndex;
    for (int64_t local = 0; local < source.nodeCount(); ++local) {
        const int32_t to = representative(source.toGlobal(local));
        if (to < 0)
            continue;
        for (const int64_t operand : source.topology.operandsOf(local)) {
            const int32_t from = representative(source.toGlobal(operand));
            if (from < 0 || from == to)
                continue;
            const uint64_t key = (uint64_t(uint32_t(from)) << 32) | uint32_t(to);
            const auto [it, added] = edgeIndex.emplace(key, view.edges.size());
            if (added)
                view.edges.push_back({ from, to, 1 });
            else
                ++view.edges[it->second].count;
        }
    }
    return view;
}

} // namespace tgraph
