// SPDX-License-Identifier: Apache-2.0
#pragma once

// One HLO module as the matcher sees it (docs/diff.md §2): instructions by position (ids
// resolved), each one's computation, its operands and users as flat lists, and the data flow
// seen through fusions and calls: inside a computation called by exactly one `fusion` or `call`
// instruction, a parameter stands for that caller's operand, and outside it the caller (unless
// its result is a tuple) stands for the computation's root. So `subtract(p, multiply(q, r))` reads
// the same whether its two instructions sit in the entry computation, were fused into a kernel or
// were inlined from a called function.

#include "core/hlo/hlomodule.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tgraph {

class HloDiffGraph
{
public:
    explicit HloDiffGraph(const HloModule& module);

    struct Use
    {
        uint32_t user = 0;
        uint32_t position = 0; // operand position in the user
    };

    const HloModule& module() const { return m_module; }
    uint32_t size() const { return uint32_t(m_computationOf.size()); }
    const HloInstruction& instruction(uint32_t i) const { return m_module.instructions[i]; }
    uint32_t computationOf(uint32_t i) const { return m_computationOf[i]; }
    bool fused(uint32_t computation) const { return m_fused[computation]; }
    bool inFusion(uint32_t i) const { return m_fused[m_computationOf[i]]; }
    bool entry(uint32_t computation) const { return int64_t(computation) == m_entry; }
    // Reached from the entry computation through called computations. XLA dumps keep computations
    // a pass left behind (a fused computation whose kernel was merged into another): not live.
    bool live(uint32_t i) const { return m_live[m_computationOf[i]]; }
    bool liveComputation(uint32_t computation) const { return m_live[computation]; }
    bool isParameter(uint32_t i) const { return m_flags[i] & kParameter; }
    bool isFusion(uint32_t i) const { return m_flags[i] & kFusion; }
    bool hasTupleShape(uint32_t i) const { return m_flags[i] & kTuple; }

    // Operands as written (positions; references to unknown ids are left out).
    std::span<const uint32_t> operands(uint32_t i) const { return slice(m_operandStart, m_operands, i); }
    // Operands in the data flow (each resolved through fusion boundaries, see above).
    std::span<const uint32_t> flowOperands(uint32_t i) const { return slice(m_flowStart, m_flow, i); }
    // Users in the data flow, with the operand position at which they use `i`.
    std::span<const Use> flowUsers(uint32_t i) const
    {
        return { m_users.data() + m_userStart[i], m_userStart[i + 1] - m_userStart[i] };
    }
    // Called computations (positions in HloModule::computations).
    std::span<const uint32_t> callees(uint32_t i) const { return slice(m_calleeStart, m_callees, i); }
    // The root instruction of a computation (its root id, else its last instruction); -1 if empty.
    int64_t root(uint32_t computation) const { return m_roots[computation]; }
    // Parameter `number` of a computation, -1 when it has none.
    int64_t parameter(uint32_t computation, int64_t number) const;
    // One more than the largest parameter number parameter() finds in a computation.
    int64_t parameterCount(uint32_t computation) const
    {
        return int64_t(m_parameterStart[computation + 1] - m_parameterStart[computation]);
    }
    // The `fusion` or `call` instruction a computation is seen through, -1 when it is not (called
    // by none or several instructions, or by something else).
    int64_t transparentCaller(uint32_t computation) const { return m_transparentCaller[computation]; }

private:
    static constexpr uint8_t kParameter = 1, kFusion = 2, kTuple = 4, kCall = 8;
    static std::span<const uint32_t> slice(
        const std::vector<uint32_t>& start, const std::vector<uint32_t>& values, uint32_t i)
    {
        return { values.data() + start[i], start[i + 1] - start[i] };
    }
    uint32_t resolve(uint32_t i) const;

    const HloModule& m_module;
    int64_t m_entry = -1;
    std::vector<uint32_t> m_computationOf;
    std::vector<uint8_t> m_flags;
    std::vector<bool> m_fused;
    std::vector<bool> m_live; // per computation
    std::vector<int64_t> m_roots;
    std::vector<int64_t> m_transparentCaller;
    std::vector<uint32_t> m_parameterStart; // per computation, into m_parameters (by number)
    std::vector<int64_t> m_parameters;
    std::vector<uint32_t> m_operandStart, m_operands;
    std::vector<uint32_t> m_flowStart, m_flow;
    std::vector<uint32_t> m_calleeStart, m_callees;
    std::vector<uint32_t> m_userStart;
    std::vector<Use> m_users;
};

} // namespace tgraph
