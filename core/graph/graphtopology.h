// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/io/ndarray.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tgraph {

// Who uses whom, both ways, for walking a graph: operands (producers) and users (consumers) of
// every node, from a TpuGraphs edge_index whose rows are [consumer, producer]. Duplicate rows
// count once; self edges are ignored.
class GraphTopology
{
public:
    GraphTopology() = default;
    // Throws std::invalid_argument when an endpoint is outside [0, nodes).
    GraphTopology(const NdArray<int64_t>& edgeIndex, int64_t nodes);

    int64_t nodeCount() const { return int64_t(m_operandOffsets.empty() ? 0 : m_operandOffsets.size() - 1); }
    int64_t edgeCount() const { return int64_t(m_operands.size()); }
    // Producers whose results `node` consumes, ascending.
    std::span<const int64_t> operandsOf(int64_t node) const
    {
        return { m_operands.data() + m_operandOffsets[size_t(node)],
            size_t(m_operandOffsets[size_t(node) + 1] - m_operandOffsets[size_t(node)]) };
    }
    // Consumers of `node`'s result, ascending.
    std::span<const int64_t> usersOf(int64_t node) const
    {
        return { m_users.data() + m_userOffsets[size_t(node)],
            size_t(m_userOffsets[size_t(node) + 1] - m_userOffsets[size_t(node)]) };
    }

private:
    std::vector<int64_t> m_operandOffsets;
    std::vector<int64_t> m_operands;
    std::vector<int64_t> m_userOffsets;
    std::vector<int64_t> m_users;
};

} // namespace tgraph
