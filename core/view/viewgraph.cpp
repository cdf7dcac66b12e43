// SPDX-License-Identifier: Apache-2.0
#include "core/view/viewgraph.h"

#include <vector>

namespace tgraph {

int32_t ViewGraph::indexOfNode(int64_t node) const
{
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].kind == ViewNode::Kind::Node && nodes[i].node == node)
            return int32_t(i);
    return -1;
}

int32_t ViewGraph::indexOfGroup(int32_t group) const
{
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].kind == ViewNode::Kind::Group && nodes[i].group == group)
            return int32_t(i);
    return -1;
}

int64_t ViewGraph::nodesShown() const
{
    int64_t n = 0;
    for (const ViewNode& v : nodes)
        n += v.kind == ViewNode::Kind::Node;
    return n;
}

void aliasHighDegreeNodes(ViewGraph& view, int maxEdges, int keep)
{
    const size_t n = view.nodes.size();
    std::vector<int32_t> users(n, 0), operands(n, 0);
    for (const ViewEdge& e : view.edges) {
        ++users[size_t(e.from)];
        ++operands[size_t(e.to)];
    }
    std::vector<int32_t> usersKept(n, 0), operandsKept(n, 0);
    const auto makeAlias = [&](int32_t original, int32_t cluster) {
        ViewNode alias = view.nodes[size_t(original)];
        alias.kind = ViewNode::Kind::Alias;
        alias.aliasOf = original;
        alias.cluster = cluster;
        alias.focus = false;
        alias.expandable = false;
        view.nodes.push_back(alias);
        return int32_t(view.nodes.size()) - 1;
    };
    for (ViewEdge& e : view.edges) {
        const auto from = size_t(e.from);
        const auto to = size_t(e.to);
        if (from >= n || to >= n)
            continue;
        if (users[from] > maxEdges && usersKept[from]++ >= keep) {
            // The producer appears again next to this user.
            e.from = makeAlias(e.from, view.nodes[to].cluster);
        } else if (operands[to] > maxEdges && operandsKept[to]++ >= keep) {
            // The consumer appears again next to this operand.
            e.to = makeAlias(e.to, view.nodes[from].cluster);
        }
    }
}

std::string dropSoleOuterCluster(ViewGraph& view)
{
    int32_t outer = -1;
    for (size_t c = 0; c < view.clusters.size(); ++c) {
        if (view.clusters[c].parent >= 0)
            continue;
        if (outer >= 0)
            return {}; // two top-level clusters
        outer = int32_t(c);
    }
    if (outer < 0)
        return {};
    for (const ViewNode& v : view.nodes)
        if (v.cluster < 0)
            return {}; // a node outside it
    std::string title = std::move(view.clusters[size_t(outer)].title);
    const auto renumber = [outer](int32_t c) { return c == outer ? -1 : (c > outer ? c - 1 : c); };
    view.clusters.erase(view.clusters.begin() + outer);
    for (ViewCluster& c : view.clusters)
        c.parent = renumber(c.parent);
    for (ViewNode& v : view.nodes)
        v.cluster = renumber(v.cluster);
    return title;
}

} // namespace tgraph
