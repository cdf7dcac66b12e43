// SPDX-License-Identifier: Apache-2.0
#include "core/graph/prune.h"

#include "core/util/error.h"

namespace tgraph {

PrunedGraph pruneToConfigurable(const LayoutGraph& g, const std::string& file)
{
    const int64_t n = g.nodeCount();
    const int64_t e = g.edgeCount();
    if (g.configurableCount() == 0)
        throw InputError(file, "node_config_ids", "the graph has no configurable nodes, so pruning would keep nothing");
    std::vector<uint8_t> configurable(size_t(n), 0);
    for (int64_t id : g.nodeConfigIds.values())
        configurable[size_t(id)] = 1;

    // 1. Keep edges with a configurable endpoint; 2. keep their endpoints.
    std::vector<uint8_t> keepEdge(size_t(e), 0);
    std::vector<uint8_t> keepNode(size_t(n), 0);
    int64_t keptEdges = 0;
    for (int64_t i = 0; i < e; ++i) {
        const int64_t u = g.edgeIndex(i, 0);
        const int64_t v = g.edgeIndex(i, 1);
        if (configurable[size_t(u)] || configurable[size_t(v)]) {
            keepEdge[size_t(i)] = 1;
            keepNode[size_t(u)] = keepNode[size_t(v)] = 1;
            ++keptEdges;
        }
    }
    // 3. Every configurable node must survive (it needs at least one edge).
    for (int64_t k = 0; k < g.configurableCount(); ++k) {
        const int64_t id = g.nodeConfigIds[k];
        if (!keepNode[size_t(id)])
            throw InputError(file, "node_config_ids[" + std::to_string(k) + "]",
                "configurable node " + std::to_string(id)
                    + " has no edges, so pruning to configurable nodes and their neighbours would drop it");
    }

    // 4. Remap ids by rank among kept nodes (original order preserved).
    PrunedGraph p;
    p.oldToNew.assign(size_t(n), -1);
    for (int64_t i = 0; i < n; ++i) {
        if (keepNode[size_t(i)]) {
            p.oldToNew[size_t(i)] = int64_t(p.newToOld.size());
            p.newToOld.push_back(i);
        }
    }
    const int64_t kept = int64_t(p.newToOld.size());

    LayoutGraph& out = p.graph;
    out.storage = g.storage;
    out.nodeFeat = NdArray<float>({ kept, kNodeFeatures });
    out.nodeOpcode = NdArray<int64_t>({ kept });
    for (int64_t i = 0; i < kept; ++i) {
        const int64_t old = p.newToOld[size_t(i)];
        std::copy_n(g.nodeFeat.row(old), kNodeFeatures, out.nodeFeat.row(i));
        out.nodeOpcode[i] = g.nodeOpcode[old];
    }
    out.edgeIndex = NdArray<int64_t>({ keptEdges, 2 });
    for (int64_t i = 0, j = 0; i < e; ++i) {
        if (!keepEdge[size_t(i)])
            continue;
        out.edgeIndex(j, 0) = p.oldToNew[size_t(g.edgeIndex(i, 0))];
        out.edgeIndex(j, 1) = p.oldToNew[size_t(g.edgeIndex(i, 1))];
        ++j;
    }
    out.nodeConfigIds = NdArray<int64_t>(g.nodeConfigIds.shape());
    for (int64_t k = 0; k < g.configurableCount(); ++k)
        out.nodeConfigIds[k] = p.oldToNew[size_t(g.nodeConfigIds[k])];
    // 5. Configs and runtimes are unchanged.
    out.nodeConfigFeat = g.nodeConfigFeat;
    out.simInputs = g.simInputs;
    out.configRuntime = g.configRuntime;
    // Splits (old ids) become the number of kept nodes before each split.
    std::vector<int64_t> keptBefore(size_t(n) + 1, 0);
    for (int64_t i = 0; i < n; ++i)
        keptBefore[size_t(i) + 1] = keptBefore[size_t(i)] + keepNode[size_t(i)];
    out.nodeSplits = NdArray<int64_t>(g.nodeSplits.shape());
    for (int64_t i = 0; i < g.nodeSplits.size(); ++i)
        out.nodeSplits[i] = keptBefore[size_t(std::clamp<int64_t>(g.nodeSplits[i], 0, n))];
    return p;
}

} // namespace tgraph
