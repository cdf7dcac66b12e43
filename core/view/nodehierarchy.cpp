// SPDX-License-Identifier: Apache-2.0
#include "core/view/nodehierarchy.h"

#include "core/hlo/hlomodule.h"
#include "core/view/graphdocument.h"
#include "core/view/opnamescope.h"
#include "core/view/rangecuts.h"

#include <algorithm>
#include <deque>
#include <queue>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace tgraph {

namespace {

std::string rangeTitle(const std::string& name, int64_t from, int64_t to, int64_t of)
{
    return name + " [" + std::to_string(from + 1) + "\u2013" + std::to_string(to) + " of " + std::to_string(of) + "]";
}

// "layer_11" -> "layer_#": what similar groups have in common.
std::string digitsAsHash(std::string_view title)
{
    std::string out;
    out.reserve(title.size());
    for (size_t i = 0; i < title.size(); ++i) {
        if (title[i] >= '0' && title[i] <= '9') {
            while (i + 1 < title.size() && title[i + 1] >= '0' && title[i + 1] <= '9')
                ++i;
            out += '#';
        } else {
            out += title[i];
        }
    }
    return out;
}

std::string joinPath(std::span<const std::string_view> parts)
{
    std::string out;
    for (const std::string_view part : parts) {
        if (!out.empty())
            out += '/';
        out += part;
    }
    return out;
}

// A scope of the trie buildScopes makes: its parent scope and its own path component.
struct ScopeKey
{
    int32_t parent;
    std::string_view name;
    bool operator==(const ScopeKey& other) const { return parent == other.parent && name == other.name; }
};
struct ScopeKeyHash
{
    size_t operator()(const ScopeKey& k) const
    {
        return std::hash<std::string_view>()(k.name) * 1000003u ^ size_t(uint32_t(k.parent));
    }
};

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

    // 1. One group per non-empty computation, holding its scopes (modules) or blocks (.npz
    //    graphs), split into chunks where a level is big.
    std::vector<int32_t> groupOfComputation(document.computations.size(), -1);
    std::vector<int32_t> scratch;
    for (size_t c = 0; c < document.computations.size(); ++c) {
        const std::vector<int64_t>& nodes = members[c];
        if (nodes.empty())
            continue;
        const DocumentComputation& comp = document.computations[c];
        Group group;
        group.computation = int32_t(c);
        group.title = comp.name;
        group.path = comp.name;
        const bool ownerHere = comp.embedded && comp.owner >= 0 && source.contains(comp.owner);
        group.kind = ownerHere ? GroupKind::Embedded : GroupKind::Computation;
        group.owner = ownerHere ? comp.owner : -1;
        const int32_t index = addGroup(std::move(group));
        groupOfComputation[c] = index;
        if (!document.module) {
            buildBlocks(document, source, index, nodes, scratch);
        } else if (!comp.embedded) {
            buildScopes(document, source, index, nodes, scratch);
        } else {
            std::vector<Member> list;
            list.reserve(nodes.size());
            for (const int64_t node : nodes)
                list.push_back({ node, -1, node });
            attachMembers(index, list);
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
    // After the scopes, blocks and chunks of the owner's group: its embedded groups in owner order.
    for (const auto& [owner, g] : m_owned)
        m_groups[size_t(m_groups[size_t(g)].parent)].children.push_back(g);

    // 3. Top level: the entry first, then the other computations in module order.
    for (size_t c = 0; c < document.computations.size(); ++c) {
        const int32_t g = groupOfComputation[c];
        if (g >= 0 && m_groups[size_t(g)].parent < 0) {
            if (document.computations[c].entry) {
                m_roots.insert(m_roots.begin(), g);
                m_entryRoot = g;
            } else {
                m_roots.push_back(g);
            }
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

    // 5. What each group holds: node range, main opcodes, block titles, repeated siblings.
    summarize(document, source);
}

int32_t NodeHierarchy::addGroup(Group group)
{
    m_groups.push_back(std::move(group));
    return int32_t(m_groups.size() - 1);
}

void NodeHierarchy::attachMembers(int32_t index, const std::vector<Member>& members)
{
    const auto adopt = [this](int32_t parent, const Member& m) {
        if (m.group >= 0) {
            m_groups[size_t(m.group)].parent = parent;
            m_groups[size_t(parent)].children.push_back(m.group);
        } else {
            m_groups[size_t(parent)].nodes.push_back(m.node);
            m_groupOfNode[size_t(m.node)] = parent;
        }
    };
    const auto count = int64_t(members.size());
    if (count <= kChunkSize) {
        for (const Member& m : members)
            adopt(index, m);
        return;
    }
    const std::string name = m_groups[size_t(index)].title;
    const std::string path = m_groups[size_t(index)].path;
    const int32_t computation = m_groups[size_t(index)].computation;
    const auto chunk = [&](int64_t from, int64_t to) {
        Group g;
        g.kind = GroupKind::Chunk;
        g.computation = computation;
        g.title = rangeTitle(name, from, to, count);
        g.path = rangeTitle(path, from, to, count);
        return addGroup(std::move(g));
    };
    // Leaves of kChunkSize members, then levels of at most kChunkSize chunks each.
    std::vector<int32_t> level;
    std::vector<std::pair<int64_t, int64_t>> spans; // member index range of each chunk in `level`
    for (int64_t begin = 0; begin < count; begin += kChunkSize) {
        const int64_t end = std::min(count, begin + kChunkSize);
        const int32_t chunkIndex = chunk(begin, end);
        for (int64_t k = begin; k < end; ++k)
            adopt(chunkIndex, members[size_t(k)]);
        level.push_back(chunkIndex);
        spans.emplace_back(begin, end);
    }
    while (int64_t(level.size()) > kChunkSize) {
        std::vector<int32_t> upper;
        std::vector<std::pair<int64_t, int64_t>> upperSpans;
        for (size_t begin = 0; begin < level.size(); begin += size_t(kChunkSize)) {
            const size_t end = std::min(level.size(), begin + size_t(kChunkSize));
            const int32_t chunkIndex = chunk(spans[begin].first, spans[end - 1].second);
            for (size_t k = begin; k < end; ++k)
                adopt(chunkIndex, { -1, level[k], -1 });
            upper.push_back(chunkIndex);
            upperSpans.emplace_back(spans[begin].first, spans[end - 1].second);
        }
        level = std::move(upper);
        spans = std::move(upperSpans);
    }
    for (const int32_t c : level)
        adopt(index, { -1, c, -1 });
}

void NodeHierarchy::buildScopes(const GraphDocument& document, const GraphSource& source, int32_t root,
    const std::vector<int64_t>& nodes, std::vector<int32_t>& position)
{
    const HloModule& module = *document.module;
    const int32_t computation = m_groups[size_t(root)].computation;
    std::vector<std::string_view> parts;

    std::string_view op;
    // The scope components every scoped instruction of the computation shares.
    std::vector<std::string_view> prefix;
    bool anyScoped = false, havePrefix = false;
    for (const int64_t node : nodes) {
        opNameScope(module.opName(size_t(node)), parts, &op);
        if (parts.empty() && !op.empty()) {
            anyScoped = true; // a top-level op name (below)
            continue;
        }
        if (parts.empty())
            continue;
        if (!havePrefix) {
            prefix = parts;
            anyScoped = havePrefix = true;
            continue;
        }
        size_t k = 0;
        while (k < prefix.size() && k < parts.size() && prefix[k] == parts[k])
            ++k;
        prefix.resize(k);
    }
    if (!anyScoped) {
        std::vector<Member> list;
        list.reserve(nodes.size());
        for (const int64_t node : nodes)
            list.push_back({ node, -1, node });
        attachMembers(root, list);
        return;
    }

    // The trie of the scopes below that prefix; entry 0 is the computation itself. A scope's
    // parent comes before it.
    std::vector<int32_t> parentOf { -1 };
    std::vector<std::string_view> nameOf { {} };
    std::vector<uint8_t> topLevelOp { 0 }; // a scope named by a top-level op name: its path is that name
    std::unordered_map<ScopeKey, int32_t, ScopeKeyHash> index;
    std::vector<int32_t> scopeOf(nodes.size(), 0);
    std::string_view previousName;
    int32_t previousScope = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string_view name = module.opName(size_t(nodes[i]));
        if (i > 0 && name == previousName) { // frameworks emit several instructions per op
            scopeOf[i] = previousScope;
            continue;
        }
        opNameScope(name, parts, &op);
        int32_t at = 0;
        const auto enter = [&](std::string_view component) {
            const auto [it, added] = index.emplace(ScopeKey { at, component }, int32_t(parentOf.size()));
            if (added) {
                parentOf.push_back(at);
                nameOf.push_back(component);
                topLevelOp.push_back(0);
            }
            at = it->second;
        };
        if (parts.empty() && !op.empty()) {
            // An op name without a scope ("XLA_Args", TensorFlow's top-level ops) groups the
            // instructions that share it, right below the computation.
            enter(op);
            topLevelOp[size_t(at)] = 1;
        }
        for (size_t k = prefix.size(); k < parts.size(); ++k)
            enter(parts[k]);
        scopeOf[i] = at;
        previousName = name;
        previousScope = at;
    }
    const size_t scopes = parentOf.size();

    // Scopes holding a single instruction are no groups: it joins the nearest scope that is one.
    std::vector<int64_t> total(scopes, 0);
    for (const int32_t s : scopeOf)
        ++total[size_t(s)];
    for (size_t s = scopes - 1; s > 0; --s)
        total[size_t(parentOf[s])] += total[s];
    std::vector<int32_t> target(scopes, 0); // the scope a scope's instructions go to
    for (size_t s = 1; s < scopes; ++s)
        target[s] = total[s] >= 2 ? int32_t(s) : target[size_t(parentOf[s])];
    std::vector<int32_t> endsIn(nodes.size()); // the scope each instruction ends in
    for (size_t i = 0; i < nodes.size(); ++i)
        endsIn[i] = target[size_t(scopeOf[i])];

    // An instruction without an op_name whose users are all in one scope (a layer's constants,
    // broadcasts and weights) joins that scope; those used by several scopes or by none (the
    // root, inputs shared by layers) stay at the computation's level. Users come after their
    // operands: last one first, so that chains of such instructions follow their user.
    if (position.empty())
        position.assign(size_t(document.nodeCount()), -1);
    for (size_t i = 0; i < nodes.size(); ++i)
        position[size_t(nodes[i])] = int32_t(i);
    for (size_t i = nodes.size(); i-- > 0;) {
        const auto instruction = size_t(nodes[i]);
        if (!module.opName(instruction).empty())
            continue;
        int32_t common = -1;
        for (const int64_t user : source.topology.usersOf(source.toLocal(nodes[i]))) {
            const int32_t j = position[size_t(source.toGlobal(user))];
            const int32_t scope = j >= 0 ? endsIn[size_t(j)] : 0;
            if (common >= 0 && scope != common) {
                common = 0;
                break;
            }
            common = scope;
        }
        if (common > 0)
            endsIn[i] = common;
    }
    for (const int64_t node : nodes)
        position[size_t(node)] = -1;

    std::vector<int64_t> direct(scopes, 0);
    std::vector<int64_t> first(scopes, INT64_MAX);
    for (size_t i = 0; i < nodes.size(); ++i) {
        const auto t = size_t(endsIn[i]);
        ++direct[t];
        first[t] = std::min(first[t], nodes[i]);
    }
    std::vector<int32_t> keptChildren(scopes, 0);
    for (size_t s = scopes - 1; s > 0; --s) {
        if (target[s] != int32_t(s))
            continue;
        ++keptChildren[size_t(parentOf[s])];
        first[size_t(parentOf[s])] = std::min(first[size_t(parentOf[s])], first[s]);
    }

    // Groups; a scope without instructions of its own and a single child scope merges into that
    // child ("a/b"). holder: the scope whose group holds a scope's members.
    std::vector<int32_t> groupOf(scopes, -1);
    std::vector<int32_t> holder(scopes, 0);
    std::vector<std::string> title(scopes), path(scopes);
    groupOf[0] = root;
    path[0] = joinPath(prefix);
    for (size_t s = 1; s < scopes; ++s) {
        if (target[s] != int32_t(s))
            continue;
        const auto p = size_t(parentOf[s]);
        const std::string own(nameOf[s]);
        path[s] = path[p].empty() || topLevelOp[s] ? own : path[p] + "/" + own;
        title[s] = p != 0 && groupOf[p] < 0 ? title[p] + "/" + own : own;
        if (direct[s] == 0 && keptChildren[s] == 1) {
            holder[s] = holder[p];
            continue;
        }
        Group group;
        group.kind = GroupKind::Scope;
        group.computation = computation;
        group.title = title[s];
        group.path = path[s];
        groupOf[s] = addGroup(std::move(group));
        holder[s] = int32_t(s);
    }

    // Members of every group, in node order.
    std::vector<std::vector<Member>> lists(scopes);
    for (size_t i = 0; i < nodes.size(); ++i)
        lists[size_t(endsIn[i])].push_back({ nodes[i], -1, nodes[i] });
    for (size_t s = 1; s < scopes; ++s)
        if (groupOf[s] >= 0)
            lists[size_t(holder[size_t(parentOf[s])])].push_back({ -1, groupOf[s], first[s] });
    const auto byFirst = [](const Member& a, const Member& b) { return a.first < b.first; };
    for (size_t s = 0; s < scopes; ++s) {
        if (groupOf[s] < 0)
            continue;
        std::vector<Member>& list = lists[s];
        std::sort(list.begin(), list.end(), byFirst);
        // A wide level of several scopes and many loose instructions (parameters, constants,
        // TensorFlow's top-level ops): the loose ones go into one box.
        const auto loose = std::count_if(list.begin(), list.end(), [](const Member& m) { return m.group < 0; });
        if (int64_t(list.size()) > kWideLevel && loose >= 2 && int64_t(list.size()) - loose >= 2) {
            const Group& level = m_groups[size_t(groupOf[s])];
            Group other;
            other.kind = GroupKind::Chunk;
            other.computation = computation;
            other.title = "other instructions";
            other.path = level.path + " \u00b7 other instructions";
            const int32_t box = addGroup(std::move(other));
            std::vector<Member> outside, inside;
            for (const Member& m : list)
                (m.group < 0 ? inside : outside).push_back(m);
            attachMembers(box, inside);
            outside.push_back({ -1, box, inside.front().first });
            std::sort(outside.begin(), outside.end(), byFirst);
            list = std::move(outside);
        }
        attachMembers(groupOf[s], list);
    }
}

void NodeHierarchy::buildBlocks(const GraphDocument& document, const GraphSource& source, int32_t root,
    const std::vector<int64_t>& nodes, std::vector<int32_t>& position)
{
    const auto n = int64_t(nodes.size());
    if (n <= kChunkSize) {
        for (const int64_t node : nodes) {
            m_groups[size_t(root)].nodes.push_back(node);
            m_groupOfNode[size_t(node)] = root;
        }
        return;
    }
    // Edges inside the computation, as pairs of member positions.
    if (position.empty())
        position.assign(size_t(document.nodeCount()), -1);
    for (int64_t i = 0; i < n; ++i)
        position[size_t(nodes[size_t(i)])] = int32_t(i);
    std::vector<std::pair<int64_t, int64_t>> edges;
    for (int64_t i = 0; i < n; ++i)
        for (const int64_t operand : source.topology.operandsOf(source.toLocal(nodes[size_t(i)])))
            if (const int32_t j = position[size_t(source.toGlobal(operand))]; j >= 0)
                edges.emplace_back(j, i);
    for (const int64_t node : nodes)
        position[size_t(node)] = -1;
    const std::vector<int32_t> widths = cutWidths(n, edges);

    const int32_t computation = m_groups[size_t(root)].computation;
    const std::string path = m_groups[size_t(root)].path;
    struct Range
    {
        int32_t group;
        int64_t begin;
        int64_t end;
    };
    std::vector<Range> stack { { root, 0, n } };
    while (!stack.empty()) {
        const Range range = stack.back();
        stack.pop_back();
        std::vector<int64_t> cuts
            = narrowCuts(widths, range.begin, range.end, partsFor(range.end - range.begin, kChunkSize));
        cuts.insert(cuts.begin(), range.begin);
        cuts.push_back(range.end);
        for (size_t k = 0; k + 1 < cuts.size(); ++k) {
            const int64_t from = cuts[k], to = cuts[k + 1];
            Group block;
            block.kind = GroupKind::Block;
            block.computation = computation;
            block.parent = range.group;
            block.path = path + " \u00b7 nodes " + std::to_string(nodes[size_t(from)]) + "\u2013"
                + std::to_string(nodes[size_t(to - 1)]);
            const int32_t index = addGroup(std::move(block));
            m_groups[size_t(range.group)].children.push_back(index);
            if (to - from > kChunkSize) {
                stack.push_back({ index, from, to });
                continue;
            }
            for (int64_t i = from; i < to; ++i) {
                m_groups[size_t(index)].nodes.push_back(nodes[size_t(i)]);
                m_groupOfNode[size_t(nodes[size_t(i)])] = index;
            }
        }
    }
}

void NodeHierarchy::summarize(const GraphDocument& document, const GraphSource& source)
{
    // Opcodes as small numbers: by the module's opcode text, or the .npz graph's opcode id.
    std::unordered_map<std::string_view, int32_t> byText;
    std::unordered_map<int64_t, int32_t> byId;
    std::vector<std::string> names;
    const auto opcodeClass = [&](int64_t node) {
        if (document.module) {
            const std::string_view text = document.module->instructions[size_t(node)].opcode;
            const auto [it, added] = byText.emplace(text, int32_t(names.size()));
            if (added)
                names.emplace_back(text);
            return it->second;
        }
        const auto [it, added] = byId.emplace(document.opcodeId(node), int32_t(names.size()));
        if (added)
            names.push_back(document.opcodeName(node));
        return it->second;
    };
    std::vector<std::vector<std::pair<int32_t, int64_t>>> counts(m_groups.size());
    for (int64_t local = 0; local < source.nodeCount(); ++local) {
        const int64_t node = source.toGlobal(local);
        const int32_t opcode = opcodeClass(node);
        for (int32_t g = groupOfNode(node); g >= 0; g = m_groups[size_t(g)].parent) {
            Group& group = m_groups[size_t(g)];
            group.first = group.first < 0 ? node : std::min(group.first, node);
            group.last = std::max(group.last, node);
            auto& list = counts[size_t(g)];
            auto it = std::find_if(list.begin(), list.end(), [opcode](const auto& e) { return e.first == opcode; });
            if (it == list.end())
                list.emplace_back(opcode, 1);
            else
                ++it->second;
            if (group.kind == GroupKind::Embedded) // its nodes are not shown with its owner's
                break;
        }
    }
    for (size_t g = 0; g < m_groups.size(); ++g) {
        auto& list = counts[g];
        const size_t top = std::min<size_t>(3, list.size());
        std::partial_sort(list.begin(), list.begin() + ptrdiff_t(top), list.end(), [&](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : names[size_t(a.first)] < names[size_t(b.first)];
        });
        Group& group = m_groups[g];
        for (size_t k = 0; k < top; ++k)
            group.opcodes.push_back({ names[size_t(list[k].first)], list[k].second });
        if (group.kind == GroupKind::Block) {
            for (size_t k = 0; k < std::min<size_t>(2, top); ++k)
                group.title += (k ? " \u00b7 " : "") + group.opcodes[k].name + " \u00d7"
                    + std::to_string(group.opcodes[k].count);
            if (group.title.empty())
                group.title = "nodes";
        }
    }

    // Siblings with the same kind and title up to digits repeat each other (chunks do not count).
    const auto markRepeats = [this](const std::vector<int32_t>& siblings) {
        std::unordered_map<std::string, int> seen;
        for (const int32_t g : siblings)
            if (m_groups[size_t(g)].kind != GroupKind::Chunk)
                ++seen[std::to_string(int(m_groups[size_t(g)].kind)) + digitsAsHash(m_groups[size_t(g)].title)];
        for (const int32_t g : siblings) {
            Group& group = m_groups[size_t(g)];
            group.repeats = group.kind != GroupKind::Chunk
                && seen[std::to_string(int(group.kind)) + digitsAsHash(group.title)] > 1;
        }
    };
    markRepeats(m_roots);
    for (const Group& group : m_groups)
        if (group.children.size() > 1)
            markRepeats(group.children);
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

std::vector<uint8_t> NodeHierarchy::firstViewExpansion(int64_t budget) const
{
    budget = std::max<int64_t>(budget, 1);
    std::vector<uint8_t> expanded(m_groups.size(), 0);
    int64_t everything = 0;
    for (const int32_t root : m_roots)
        everything += m_groups[size_t(root)].total;
    if (everything <= budget) { // the whole graph fits: open it all
        std::fill(expanded.begin(), expanded.end(), uint8_t(1));
        return expanded;
    }
    // Biggest box first (the entry computation before anything); on ties the shallower, earlier one.
    using Candidate = std::tuple<bool, int64_t, int, int32_t>; // entry, total, -depth, -index
    std::priority_queue<Candidate> queue;
    const auto offer = [&](int32_t g) {
        if (m_groups[size_t(g)].kind != GroupKind::Embedded)
            queue.emplace(g == m_entryRoot, m_groups[size_t(g)].total, -depthOf(g), -g);
    };
    for (const int32_t root : m_roots)
        offer(root);
    int64_t visible = int64_t(m_roots.size());
    std::vector<int32_t> tooBig; // boxes whose opening did not fit
    while (!queue.empty()) {
        const int32_t g = -std::get<3>(queue.top());
        queue.pop();
        const int64_t added = openCost(g) - 1;
        if (visible + added > budget) {
            tooBig.push_back(g);
            continue;
        }
        expanded[size_t(g)] = 1;
        visible += added;
        for (const int32_t child : m_groups[size_t(g)].children)
            offer(child);
    }
    // A view of a few giant boxes says nothing: open the cheapest ones anyway, past the budget.
    const int64_t enough = std::min<int64_t>(8, budget);
    std::sort(tooBig.begin(), tooBig.end(),
        [this](int32_t a, int32_t b) { return std::make_pair(openCost(a), a) < std::make_pair(openCost(b), b); });
    for (const int32_t g : tooBig) {
        if (visible >= enough)
            break;
        expanded[size_t(g)] = 1;
        visible += openCost(g) - 1;
    }
    return expanded;
}

int NodeHierarchy::depthOf(int32_t group) const
{
    int depth = 0;
    for (int32_t g = m_groups[size_t(group)].parent; g >= 0; g = m_groups[size_t(g)].parent)
        depth += m_groups[size_t(g)].kind != GroupKind::Chunk;
    return depth;
}

std::vector<int32_t> NodeHierarchy::similarGroups(int32_t group) const
{
    if (group < 0 || size_t(group) >= m_groups.size())
        return {};
    const Group& wanted = m_groups[size_t(group)];
    if (wanted.kind == GroupKind::Chunk)
        return { group };
    const std::string key = digitsAsHash(wanted.title);
    const int depth = depthOf(group);
    std::vector<int32_t> out;
    for (size_t g = 0; g < m_groups.size(); ++g) {
        const Group& other = m_groups[g];
        if (other.kind == wanted.kind && depthOf(int32_t(g)) == depth && digitsAsHash(other.title) == key)
            out.push_back(int32_t(g));
    }
    return out;
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
            // An open chunk or block is only a cut through a computation: its members join the
            // enclosing frame, so a computation drawn whole is laid out as one dataflow.
            if (group.kind == GroupKind::Chunk || group.kind == GroupKind::Block) {
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
            // The group's nodes (each followed by the groups embedded in it), then its other children.
            if (f.next >= group.nodes.size()) {
                const size_t c = f.next - group.nodes.size();
                if (c >= group.children.size()) {
                    stack.pop_back();
                    continue;
                }
                ++f.next;
                const int32_t child = group.children[c];
                if (m_groups[size_t(child)].kind != GroupKind::Embedded) // those come with their owner
                    place(child, f.cluster);
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
