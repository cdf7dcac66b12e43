// SPDX-License-Identifier: Apache-2.0
#include "core/graph/graphtopology.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tgraph {

namespace {

// Compressed rows: offsets[n + 1] and the targets of each row sorted and deduplicated.
void buildRows(int64_t nodes, const std::vector<std::pair<int64_t, int64_t>>& pairs, std::vector<int64_t>& offsets,
    std::vector<int64_t>& targets)
{
    offsets.assign(size_t(nodes) + 1, 0);
    for (const auto& [row, target] : pairs)
        ++offsets[size_t(row) + 1];
    for (size_t i = 1; i < offsets.size(); ++i)
        offsets[i] += offsets[i - 1];
    targets.assign(pairs.size(), 0);
    std::vector<int64_t> fill(offsets.begin(), offsets.end() - 1);
    for (const auto& [row, target] : pairs)
        targets[size_t(fill[size_t(row)]++)] = target;
    // Sort and deduplicate each row, compacting in place.
    int64_t write = 0;
    for (int64_t r = 0; r < nodes; ++r) {
        const int64_t begin = offsets[size_t(r)];
        const int64_t end = offsets[size_t(r) + 1];
        std::sort(targets.begin() + begin, targets.begin() + end);
        offsets[size_t(r)] = write;
        for (int64_t k = begin; k < end; ++k)
            if (k == begin || targets[size_t(k)] != targets[size_t(k) - 1])
                targets[size_t(write++)] = targets[size_t(k)];
    }
    offsets[size_t(nodes)] = write;
    targets.resize(size_t(write));
}

} // namespace

GraphTopology::GraphTopology(const NdArray<int64_t>& edgeIndex, int64_t nodes)
{
    const int64_t e = edgeIndex.ndim() == 2 ? edgeIndex.dim(0) : 0;
    std::vector<std::pair<int64_t, int64_t>> uses; // (consumer, producer)
    uses.reserve(size_t(e));
    for (int64_t i = 0; i < e; ++i) {
        const int64_t u = edgeIndex(i, 0);
        const int64_t v = edgeIndex(i, 1);
        if (u < 0 || v < 0 || u >= nodes || v >= nodes)
            throw std::invalid_argument("edge_index[" + std::to_string(i) + "] is outside the graph");
        if (u != v)
            uses.emplace_back(u, v);
    }
    buildRows(nodes, uses, m_operandOffsets, m_operands);
    for (auto& pair : uses)
        std::swap(pair.first, pair.second);
    buildRows(nodes, uses, m_userOffsets, m_users);
}

} // namespace tgraph
