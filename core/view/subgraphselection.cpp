// SPDX-License-Identifier: Apache-2.0
#include "core/view/subgraphselection.h"

#include "core/view/graphdocument.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace tgraph {

namespace {

constexpr int64_t kUnreached = std::numeric_limits<int64_t>::max();

// Adds `nodes` (full-graph ids) with one cluster per computation and the source's edges among them.
ViewGraph viewOf(const GraphDocument& document, const GraphSource& source, const std::vector<int64_t>& nodes)
{
    ViewGraph view;
    std::map<int32_t, int32_t> clusterOf; // computation -> cluster
    std::unordered_map<int64_t, int32_t> index;
    std::vector<int64_t> sorted = nodes;
    std::sort(sorted.begin(), sorted.end());
    for (const int64_t node : sorted) {
        const int32_t computation = document.computationOfNode[size_t(node)];
        auto [it, added] = clusterOf.emplace(computation, int32_t(view.clusters.size()));
        if (added)
            view.clusters.push_back({ -1, -1, document.computations[size_t(computation)].name });
        ViewNode v;
        v.node = node;
        v.cluster = it->second;
        index.emplace(node, int32_t(view.nodes.size()));
        view.nodes.push_back(v);
    }
    // One computation only: no box around everything.
    if (view.clusters.size() == 1) {
        view.clusters.clear();
        for (ViewNode& v : view.nodes)
            v.cluster = -1;
    }
    for (const int64_t node : sorted) {
        const int64_t local = source.toLocal(node);
        for (const int64_t operand : source.topology.operandsOf(local)) {
            const auto it = index.find(source.toGlobal(operand));
            if (it != index.end())
                view.edges.push_back({ it->second, index[node], 1 });
        }
    }
    return view;
}

int64_t checkedLocal(const GraphSource& source, int64_t node)
{
    const int64_t local = source.toLocal(node);
    if (local < 0)
        throw std::invalid_argument("node " + std::to_string(node) + " is not in this graph");
    return local;
}

// Hop distances from `start` (local ids) following operands (backward) or users (forward).
std::vector<int64_t> distances(const GraphTopology& topology, int64_t start, bool forward)
{
    std::vector<int64_t> dist(size_t(topology.nodeCount()), kUnreached);
    std::deque<int64_t> queue { start };
    dist[size_t(start)] = 0;
    while (!queue.empty()) {
        const int64_t n = queue.front();
        queue.pop_front();
        for (const int64_t next : forward ? topology.usersOf(n) : topology.operandsOf(n)) {
            if (dist[size_t(next)] == kUnreached) {
                dist[size_t(next)] = dist[size_t(n)] + 1;
                queue.push_back(next);
            }
        }
    }
    return dist;
}

} // namespace

ViewGraph neighbourhoodView(
    const GraphDocument& document, const GraphSource& source, int64_t center, const NeighbourhoodOptions& options)
{
    const int64_t start = checkedLocal(source, center);
    const int radius = std::clamp(options.radius, 1, 3);
    const int64_t maxNodes = std::max<int64_t>(options.maxNodes, 1);
    std::unordered_map<int64_t, int> depth { { start, 0 } }; // local id -> hops
    std::vector<int64_t> order { start };
    struct Omitted
    {
        int64_t node; // local
        int64_t count;
        bool users;
    };
    std::vector<Omitted> omitted;
    bool capped = false;
    for (size_t i = 0; i < order.size(); ++i) {
        const int64_t n = order[i];
        const int d = depth[n];
        if (d >= radius)
            continue;
        for (const bool users : { false, true }) {
            const auto next = users ? source.topology.usersOf(n) : source.topology.operandsOf(n);
            int64_t taken = 0;
            int64_t left = 0;
            for (const int64_t m : next) {
                if (depth.count(m))
                    continue;
                if (taken >= options.maxNeighbours || int64_t(order.size()) >= maxNodes) {
                    capped |= int64_t(order.size()) >= maxNodes;
                    ++left;
                    continue;
                }
                depth.emplace(m, d + 1);
                order.push_back(m);
                ++taken;
            }
            if (left > 0)
                omitted.push_back({ n, left, users });
        }
    }
    std::vector<int64_t> nodes;
    for (const int64_t local : order)
        nodes.push_back(source.toGlobal(local));
    ViewGraph view = viewOf(document, source, nodes);
    const int32_t centre = view.indexOfNode(center);
    view.nodes[size_t(centre)].focus = true;
    int64_t hidden = 0;
    for (const Omitted& o : omitted) {
        const int32_t at = view.indexOfNode(source.toGlobal(o.node));
        ViewNode more;
        more.kind = ViewNode::Kind::More;
        more.node = source.toGlobal(o.node);
        more.count = o.count;
        more.cluster = view.nodes[size_t(at)].cluster;
        const auto index = int32_t(view.nodes.size());
        view.nodes.push_back(more);
        view.edges.push_back(o.users ? ViewEdge { at, index, 1 } : ViewEdge { index, at, 1 });
        hidden += o.count;
    }
    view.truncated = capped;
    view.note = std::to_string(order.size()) + " nodes within " + std::to_string(radius) + " hop"
        + (radius == 1 ? "" : "s") + " of " + document.nodeName(center);
    if (hidden > 0)
        view.note += "; " + std::to_string(hidden) + " neighbours left out"
            + (capped ? " (the view holds at most " + std::to_string(maxNodes) + " nodes)"
                      : " (at most " + std::to_string(options.maxNeighbours) + " per node)");
    return view;
}

ViewGraph pathsView(
    const GraphDocument& document, const GraphSource& source, int64_t from, int64_t to, const PathOptions& options)
{
    int64_t a = checkedLocal(source, from);
    int64_t b = checkedLocal(source, to);
    std::vector<int64_t> forward = distances(source.topology, a, true);
    if (forward[size_t(b)] == kUnreached) { // maybe `to` feeds `from`
        std::swap(a, b);
        forward = distances(source.topology, a, true);
    }
    if (forward[size_t(b)] == kUnreached) {
        ViewGraph view = viewOf(document, source, { from, to });
        for (ViewNode& v : view.nodes)
            v.focus = true;
        view.note = "no dataflow path between " + document.nodeName(from) + " and " + document.nodeName(to);
        return view;
    }
    const std::vector<int64_t> backward = distances(source.topology, b, false);
    struct OnPath
    {
        int64_t through; // length of the shortest path through the node
        int64_t fromStart;
        int64_t local;
    };
    std::vector<OnPath> onPath;
    for (int64_t n = 0; n < source.nodeCount(); ++n)
        if (forward[size_t(n)] != kUnreached && backward[size_t(n)] != kUnreached)
            onPath.push_back({ forward[size_t(n)] + backward[size_t(n)], forward[size_t(n)], n });
    const auto total = int64_t(onPath.size());
    const int64_t maxNodes = std::max<int64_t>(options.maxNodes, 2);
    // The two ends first, then the nodes of the shortest paths, nearest the start first.
    const auto rank = [a, b](const OnPath& p) { return p.local == a || p.local == b ? 0 : 1; };
    std::sort(onPath.begin(), onPath.end(), [&](const OnPath& x, const OnPath& y) {
        return std::make_tuple(rank(x), x.through, x.fromStart, x.local)
            < std::make_tuple(rank(y), y.through, y.fromStart, y.local);
    });
    if (total > maxNodes)
        onPath.resize(size_t(maxNodes));
    std::vector<int64_t> nodes;
    for (const OnPath& p : onPath)
        nodes.push_back(source.toGlobal(p.local));
    ViewGraph view = viewOf(document, source, nodes);
    view.nodes[size_t(view.indexOfNode(source.toGlobal(a)))].focus = true;
    view.nodes[size_t(view.indexOfNode(source.toGlobal(b)))].focus = true;
    view.truncated = total > maxNodes;
    view.note = std::to_string(total) + " nodes on paths from " + document.nodeName(source.toGlobal(a)) + " to "
        + document.nodeName(source.toGlobal(b)) + " (shortest: " + std::to_string(forward[size_t(b)]) + " hops)";
    if (view.truncated)
        view.note += "; showing the " + std::to_string(maxNodes) + " nearest the shortest paths";
    return view;
}

ViewGraph wholeGraphView(const GraphDocument& document, const GraphSource& source)
{
    std::vector<int64_t> nodes;
    nodes.reserve(size_t(source.nodeCount()));
    for (int64_t n = 0; n < source.nodeCount(); ++n)
        nodes.push_back(source.toGlobal(n));
    return viewOf(document, source, nodes);
}

} // namespace tgraph
