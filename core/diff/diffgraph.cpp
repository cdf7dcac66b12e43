// SPDX-License-Identifier: Apache-2.0
#include "core/diff/diffgraph.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace tgraph {

namespace {

// Instruction ids -> positions: the identity for text input, a hash map otherwise.
class IdIndex
{
public:
    explicit IdIndex(const HloModule& m)
    {
        for (size_t i = 0; i < m.instructions.size(); ++i)
            if (m.instructions[i].id != int64_t(i)) {
                m_identity = false;
                break;
            }
        m_size = m.instructions.size();
        if (!m_identity) {
            m_map.reserve(m.instructions.size());
            for (size_t i = 0; i < m.instructions.size(); ++i)
                m_map.emplace(m.instructions[i].id, uint32_t(i)); // the first of a repeated id wins
        }
    }
    int64_t find(int64_t id) const
    {
        if (m_identity)
            return id >= 0 && uint64_t(id) < m_size ? id : -1;
        const auto it = m_map.find(id);
        return it == m_map.end() ? -1 : int64_t(it->second);
    }

private:
    bool m_identity = true;
    size_t m_size = 0;
    std::unordered_map<int64_t, uint32_t> m_map;
};

} // namespace

HloDiffGraph::HloDiffGraph(const HloModule& m)
    : m_module(m)
{
    const size_t n = m.instructions.size();
    const size_t computations = m.computations.size();
    if (computations == 0 && n > 0) // the readers never make one; a caller's hand-made module might
        throw std::invalid_argument("HLO module '" + std::string(m.name) + "' has instructions but no computation");
    m_entry = m.entryIndex();
    m_computationOf.assign(n, 0);
    m_flags.assign(n, 0);
    for (size_t c = 0; c < computations; ++c) {
        const HloComputation& comp = m.computations[c];
        const size_t end = std::min<size_t>(n, size_t(comp.firstInstruction) + comp.instructionCount);
        for (size_t i = comp.firstInstruction; i < end; ++i)
            m_computationOf[i] = uint32_t(c);
    }
    for (size_t i = 0; i < n; ++i) {
        const HloInstruction& inst = m.instructions[i];
        uint8_t flags = 0;
        if (inst.opcode == "parameter")
            flags |= kParameter;
        if (inst.opcode == "fusion")
            flags |= kFusion;
        if (inst.opcode == "call")
            flags |= kCall;
        if (inst.shape < m.shapes.size() && m.shapes[inst.shape].elementType == PrimitiveType::Tuple)
            flags |= kTuple;
        m_flags[i] = flags;
    }

    // Operands and called computations, as positions.
    const IdIndex ids(m);
    std::unordered_map<int64_t, uint32_t> computationById;
    for (size_t c = 0; c < computations; ++c)
        computationById.emplace(m.computations[c].id, uint32_t(c));
    m_operandStart.assign(n + 1, 0);
    m_calleeStart.assign(n + 1, 0);
    m_operands.reserve(n * 2);
    std::vector<uint32_t> callers(computations, 0);
    m_transparentCaller.assign(computations, -1);
    m_fused.assign(computations, false);
    for (size_t i = 0; i < n; ++i) {
        const HloInstruction& inst = m.instructions[i];
        for (const int64_t id : m.span(inst.operandIds))
            if (const int64_t p = ids.find(id); p >= 0)
                m_operands.push_back(uint32_t(p));
        m_operandStart[i + 1] = uint32_t(m_operands.size());
        for (const int64_t id : m.span(inst.calledComputationIds))
            if (const auto it = computationById.find(id); it != computationById.end()) {
                m_callees.push_back(it->second);
                ++callers[it->second];
                if (m_flags[i] & kFusion)
                    m_fused[it->second] = true;
                if (m_flags[i] & (kFusion | kCall))
                    m_transparentCaller[it->second] = int64_t(i);
            }
        m_calleeStart[i + 1] = uint32_t(m_callees.size());
    }
    for (size_t c = 0; c < computations; ++c) {
        if (m.computations[c].isFusion)
            m_fused[c] = true;
        // Seen through only when its one caller is a fusion or a call calling nothing else.
        const int64_t caller = m_transparentCaller[c];
        if (caller >= 0 && (callers[c] != 1 || callees(uint32_t(caller)).size() != 1))
            m_transparentCaller[c] = -1;
    }

    // Live computations: the entry and what it calls, transitively.
    m_live.assign(computations, false);
    std::vector<uint32_t> reach;
    if (m_entry >= 0 && size_t(m_entry) < computations) {
        m_live[size_t(m_entry)] = true;
        reach.push_back(uint32_t(m_entry));
    }
    while (!reach.empty()) {
        const HloComputation& comp = m.computations[reach.back()];
        reach.pop_back();
        const size_t end = std::min<size_t>(n, size_t(comp.firstInstruction) + comp.instructionCount);
        for (size_t i = comp.firstInstruction; i < end; ++i)
            for (const uint32_t c : callees(uint32_t(i)))
                if (!m_live[c]) {
                    m_live[c] = true;
                    reach.push_back(c);
                }
    }

    // Roots and parameters by number.
    m_roots.assign(computations, -1);
    m_parameterStart.assign(computations + 1, 0);
    for (size_t c = 0; c < computations; ++c) {
        const HloComputation& comp = m.computations[c];
        const size_t first = comp.firstInstruction;
        const size_t end = std::min<size_t>(n, first + comp.instructionCount);
        if (const int64_t r = ids.find(comp.rootId); r >= 0 && size_t(r) >= first && size_t(r) < end)
            m_roots[c] = r;
        else if (end > first)
            m_roots[c] = int64_t(end - 1);
        // Parameter numbers beyond the computation's size cannot be valid: not indexed.
        const size_t base = m_parameters.size();
        for (size_t i = first; i < end; ++i)
            if (m_flags[i] & kParameter) {
                const int64_t number = m.instructions[i].parameterNumber;
                if (number < 0 || size_t(number) >= end - first)
                    continue;
                if (m_parameters.size() < base + size_t(number) + 1)
                    m_parameters.resize(base + size_t(number) + 1, -1);
                if (m_parameters[base + size_t(number)] < 0)
                    m_parameters[base + size_t(number)] = int64_t(i);
            }
        m_parameterStart[c + 1] = uint32_t(m_parameters.size());
    }

    // The data flow: operands resolved through fusion boundaries, and the users of each.
    m_flowStart.assign(n + 1, 0);
    m_flow.reserve(m_operands.size());
    for (size_t i = 0; i < n; ++i) {
        for (const uint32_t o : operands(uint32_t(i)))
            m_flow.push_back(resolve(o));
        m_flowStart[i + 1] = uint32_t(m_flow.size());
    }
    m_userStart.assign(n + 1, 0);
    for (const uint32_t o : m_flow)
        ++m_userStart[o + 1];
    for (size_t i = 0; i < n; ++i)
        m_userStart[i + 1] += m_userStart[i];
    m_users.resize(m_flow.size());
    std::vector<uint32_t> fill(m_userStart.begin(), m_userStart.end() - 1);
    for (size_t i = 0; i < n; ++i) {
        const auto flow = flowOperands(uint32_t(i));
        for (size_t k = 0; k < flow.size(); ++k)
            m_users[fill[flow[k]]++] = { uint32_t(i), uint32_t(k) };
    }
}

int64_t HloDiffGraph::parameter(uint32_t computation, int64_t number) const
{
    const uint32_t begin = m_parameterStart[computation], end = m_parameterStart[computation + 1];
    if (number < 0 || uint64_t(number) >= end - begin)
        return -1;
    return m_parameters[begin + size_t(number)];
}

uint32_t HloDiffGraph::resolve(uint32_t i) const
{
    // Each step crosses one fusion boundary; a module nests fusions a few levels deep at most, so
    // the bound only guards against crafted input (verified modules have no cycles).
    for (int step = 0; step < 64; ++step) {
        if (isParameter(i)) {
            const int64_t caller = m_transparentCaller[m_computationOf[i]];
            const int64_t number = m_module.instructions[i].parameterNumber;
            if (caller < 0 || number < 0)
                return i;
            const auto ops = operands(uint32_t(caller));
            if (uint64_t(number) >= ops.size())
                return i;
            i = ops[size_t(number)];
            continue;
        }
        if ((m_flags[i] & (kFusion | kCall)) && !hasTupleShape(i)) {
            const auto called = callees(i);
            if (called.size() != 1 || m_transparentCaller[called[0]] != int64_t(i) || m_roots[called[0]] < 0)
                return i;
            const uint32_t root = uint32_t(m_roots[called[0]]);
            if (hasTupleShape(root))
                return i;
            i = root;
            continue;
        }
        return i;
    }
    return i;
}

} // namespace tgraph
