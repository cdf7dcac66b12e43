// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/hloverify.h"

#include "core/util/error.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <unordered_map>
#include <vector>

namespace tgraph {

namespace {

// How many operands an opcode takes (docs/formats.md §8.6): at least `min`, at most `max`
// (-1 = no bound), and an even or odd number when `parity` says so.
struct OperandRule
{
    int min = 0;
    int max = -1;
    enum Parity : uint8_t { Any, Even, Odd } parity = Any;
};

const OperandRule* operandRule(std::string_view opcode)
{
    static const std::unordered_map<std::string_view, OperandRule> rules = [] {
        std::unordered_map<std::string_view, OperandRule> r;
        auto exactly = [&r](int n, std::initializer_list<std::string_view> opcodes) {
            for (std::string_view op : opcodes)
                r[op] = { n, n, OperandRule::Any };
        };
        exactly(0, { "constant", "iota", "parameter", "partition-id", "replica-id", "rng-get-and-update-state" });
        exactly(1,
            { "abs", "acos", "acosh", "all-gather-done", "all-reduce-done", "asin", "asinh", "async-done", "atan",
                "atanh", "bitcast", "bitcast-convert", "broadcast", "cbrt", "ceil", "cholesky",
                "collective-permute-done", "convert", "copy", "copy-done", "copy-start", "cosh", "cosine",
                "count-leading-zeros", "domain", "erf", "exponential", "exponential-minus-one", "fft", "floor",
                "get-dimension-size", "get-tuple-element", "imag", "is-finite", "log", "log-plus-one", "logistic",
                "negate", "not", "opt-barrier", "popcnt", "real", "reduce-precision", "reshape", "reverse",
                "rng-bit-generator", "round-nearest-afz", "round-nearest-even", "rsqrt", "sign", "sine", "sinh",
                "shuffle", "slice", "sqrt", "tan", "tanh", "topk", "transpose", "while" });
        exactly(2,
            { "add", "add-dependency", "and", "atan2", "compare", "complex", "divide", "gather", "maximum", "minimum",
                "mulhi", "multiply", "or", "pad", "power", "remainder", "rng", "set-dimension-size", "shift-left",
                "shift-right-arithmetic", "shift-right-logical", "stochastic-convert", "subtract", "triangular-solve",
                "xor" });
        exactly(3, { "batch-norm-training", "clamp", "ragged-dot", "select", "select-and-scatter" });
        exactly(4, { "scaled-dot" });
        exactly(5, { "batch-norm-grad", "batch-norm-inference" });
        exactly(6, { "ragged-all-to-all" });
        // A dot takes two more operands per sparsity descriptor (checked in checkOperandCounts); a
        // convolution may take block scales or sparsity metadata after lhs and rhs (current XLA).
        r["convolution"] = { 2, -1, OperandRule::Any };
        r["concatenate"] = { 1, -1, OperandRule::Any };
        r["sort"] = { 1, -1, OperandRule::Any };
        r["map"] = { 1, -1, OperandRule::Any };
        r["dynamic-reshape"] = { 1, -1, OperandRule::Any };
        r["dynamic-slice"] = { 2, -1, OperandRule::Any }; // operand, then start indices
        r["dynamic-update-slice"] = { 3, -1, OperandRule::Any }; // operand, update, then start indices
        r["reduce"] = { 2, -1, OperandRule::Even }; // inputs, then one init value each
        r["reduce-window"] = { 2, -1, OperandRule::Even };
        r["scatter"] = { 3, -1, OperandRule::Odd }; // inputs, indices, then one update each
        return r;
    }();
    const auto it = rules.find(opcode);
    return it == rules.end() ? nullptr : &it->second;
}

// Element-wise opcodes: every operand has the result's dimensions (select and clamp also take scalars).
bool isElementwise(std::string_view opcode)
{
    static const std::unordered_map<std::string_view, bool> opcodes = [] {
        std::unordered_map<std::string_view, bool> s;
        for (std::string_view op : { "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil",
                 "convert", "copy", "cosh", "cosine", "count-leading-zeros", "erf", "exponential",
                 "exponential-minus-one", "floor", "imag", "is-finite", "log", "log-plus-one", "logistic", "negate",
                 "not", "popcnt", "real", "reduce-precision", "round-nearest-afz", "round-nearest-even", "rsqrt",
                 "sign", "sine", "sinh", "sqrt", "tan", "tanh", "add", "and", "atan2", "complex", "compare", "divide",
                 "maximum", "minimum", "mulhi", "multiply", "or", "power", "remainder", "shift-left",
                 "shift-right-arithmetic", "shift-right-logical", "subtract", "xor", "select", "clamp" })
            s.emplace(op, true);
        return s;
    }();
    return opcodes.count(opcode) > 0;
}

constexpr uint32_t kNone = UINT32_MAX;
constexpr size_t kPathShown = 8; // names of a cycle written out in an error

class Verifier
{
public:
    Verifier(const HloModule& module, const std::string& file)
        : m(module)
        , m_file(file)
    { }

    void run()
    {
        indexInstructions();
        indexComputations();
        resolveOperands();
        findOperandCycles();
        checkOperandOrder();
        resolveCalls();
        findRecursion();
        checkCallOrder();
        checkOperandCounts();
    }

private:
    // ---- places and names -------------------------------------------------------------------
    static std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

    // Where instruction `pos` is, as the InputError's place.
    std::string place(size_t pos) const
    {
        const HloInstruction& i = m.instructions[pos];
        if (i.line > 0)
            return "line " + std::to_string(i.line) + ", column " + std::to_string(i.column);
        std::string out = "module " + quoted(m.name);
        if (m_computationOf[pos] != kNone)
            out += ", computation " + quoted(m.computations[m_computationOf[pos]].name);
        return out + ", instruction " + quoted(i.name) + " (id " + std::to_string(i.id) + ")";
    }

    std::string computationPlace(size_t c) const
    {
        const HloComputation& comp = m.computations[c];
        if (comp.line > 0)
            return "line " + std::to_string(comp.line);
        return "module " + quoted(m.name) + ", computation " + quoted(comp.name) + " (id " + std::to_string(comp.id)
            + ")";
    }

    // An instruction mentioned in a problem: its name and its line (text) or id (protobuf).
    std::string mention(size_t pos) const
    {
        const HloInstruction& i = m.instructions[pos];
        return quoted(i.name)
            + (i.line > 0 ? " (line " + std::to_string(i.line) + ")" : " (id " + std::to_string(i.id) + ")");
    }

    std::string mentionComputation(size_t c) const
    {
        const HloComputation& comp = m.computations[c];
        return quoted(comp.name)
            + (comp.line > 0 ? " (line " + std::to_string(comp.line) + ")" : " (id " + std::to_string(comp.id) + ")");
    }

    [[noreturn]] void fail(size_t pos, const std::string& problem) const
    {
        throw InputError(m_file, place(pos), problem);
    }

    // "a -> b -> a", at most kPathShown names.
    template <class Name> static std::string path(const std::vector<uint32_t>& cycle, Name name)
    {
        std::string out;
        const size_t shown = std::min(cycle.size(), kPathShown);
        for (size_t k = 0; k < shown; ++k)
            out += name(cycle[k]) + " -> ";
        if (shown < cycle.size())
            out += "... (" + std::to_string(cycle.size() - shown) + " more) -> ";
        return out + name(cycle.front());
    }

    // ---- indexes ----------------------------------------------------------------------------
    void indexInstructions()
    {
        const size_t n = m.instructions.size();
        m_computationOf.assign(n, kNone);
        for (size_t c = 0; c < m.computations.size(); ++c) {
            const HloComputation& comp = m.computations[c];
            const size_t end = std::min<size_t>(size_t(comp.firstInstruction) + comp.instructionCount, n);
            for (size_t p = comp.firstInstruction; p < end; ++p)
                m_computationOf[p] = uint32_t(c);
        }
        for (size_t p = 0; p < n; ++p)
            if (m_computationOf[p] == kNone)
                fail(p, "instruction " + quoted(m.instructions[p].name) + " belongs to no computation");
        // Text modules number instructions by position: then no map is needed.
        m_idsArePositions = true;
        for (size_t p = 0; p < n && m_idsArePositions; ++p)
            m_idsArePositions = m.instructions[p].id == int64_t(p);
        if (m_idsArePositions)
            return;
        m_positionOfId.reserve(n);
        for (size_t p = 0; p < n; ++p) {
            const auto [it, fresh] = m_positionOfId.emplace(m.instructions[p].id, uint32_t(p));
            if (!fresh)
                fail(p,
                    "instruction id " + std::to_string(m.instructions[p].id) + " is used twice (also by "
                        + mention(it->second) + ")");
        }
    }

    uint32_t positionOfId(int64_t id) const
    {
        if (m_idsArePositions)
            return id >= 0 && size_t(id) < m.instructions.size() ? uint32_t(id) : kNone;
        const auto it = m_positionOfId.find(id);
        return it == m_positionOfId.end() ? kNone : it->second;
    }

    void indexComputations()
    {
        m_parameters.assign(m.computations.size(), 0);
        m_parameterOf.assign(m.computations.size(), {});
        for (size_t c = 0; c < m.computations.size(); ++c) {
            const HloComputation& comp = m.computations[c];
            const auto [it, fresh] = m_computationOfId.emplace(comp.id, uint32_t(c));
            if (!fresh)
                throw InputError(m_file, computationPlace(c),
                    "computation id " + std::to_string(comp.id) + " is used twice (also by computation "
                        + mentionComputation(it->second) + ")");
            for (size_t p = comp.firstInstruction; p < size_t(comp.firstInstruction) + comp.instructionCount
                 && p < m.instructions.size();
                 ++p) {
                const HloInstruction& i = m.instructions[p];
                if (i.opcode != "parameter")
                    continue;
                ++m_parameters[c];
                // by parameter number; a number out of range or given twice leaves shapes unchecked
                if (i.parameterNumber >= 0 && i.parameterNumber < int64_t(comp.instructionCount)) {
                    auto& slots = m_parameterOf[c];
                    if (slots.size() <= size_t(i.parameterNumber))
                        slots.resize(size_t(i.parameterNumber) + 1, kNone);
                    slots[size_t(i.parameterNumber)] = slots[size_t(i.parameterNumber)] == kNone ? uint32_t(p) : kNone;
                }
            }
            const uint32_t root = positionOfId(comp.rootId);
            if (root == kNone || m_computationOf[root] != c)
                throw InputError(m_file, computationPlace(c),
                    "root id " + std::to_string(comp.rootId) + " is not an instruction of computation "
                        + quoted(comp.name));
        }
    }

    // Operand positions, CSR: operands of instruction p are m_operands[m_operandStart[p] .. m_operandStart[p+1]).
    void resolveOperands()
    {
        const size_t n = m.instructions.size();
        m_operandStart.assign(n + 1, 0);
        m_operands.reserve(n * 2);
        for (size_t p = 0; p < n; ++p) {
            m_operandStart[p] = uint32_t(m_operands.size());
            for (int64_t id : m.span(m.instructions[p].operandIds)) {
                const uint32_t q = positionOfId(id);
                if (q == kNone)
                    fail(p, "operand id " + std::to_string(id) + " is not an instruction of the module");
                if (m_computationOf[q] != m_computationOf[p])
                    fail(p,
                        "operand " + mention(q) + " is an instruction of computation "
                            + quoted(m.computations[m_computationOf[q]].name) + ", not of "
                            + quoted(m.computations[m_computationOf[p]].name));
                m_operands.push_back(q);
            }
        }
        m_operandStart[n] = uint32_t(m_operands.size());
    }

    // Depth-first search over the operand edges; a back edge closes a cycle.
    void findOperandCycles() const
    {
        const size_t n = m.instructions.size();
        enum : uint8_t { White, Grey, Black };
        std::vector<uint8_t> state(n, White);
        std::vector<std::pair<uint32_t, uint32_t>> stack; // instruction, next operand slot
        for (size_t start = 0; start < n; ++start) {
            if (state[start] != White)
                continue;
            stack.push_back({ uint32_t(start), m_operandStart[start] });
            state[start] = Grey;
            while (!stack.empty()) {
                auto& [p, next] = stack.back();
                if (next == m_operandStart[p + 1]) {
                    state[p] = Black;
                    stack.pop_back();
                    continue;
                }
                const uint32_t q = m_operands[next++];
                if (state[q] == White) {
                    state[q] = Grey;
                    stack.push_back({ q, m_operandStart[q] });
                } else if (state[q] == Grey) {
                    reportOperandCycle(stack, q);
                }
            }
        }
    }

    [[noreturn]] void reportOperandCycle(const std::vector<std::pair<uint32_t, uint32_t>>& stack, uint32_t q) const
    {
        // The stack from q to its top: each instruction uses the next, the last one uses q.
        std::vector<uint32_t> cycle;
        size_t k = stack.size();
        while (k > 0 && stack[k - 1].first != q)
            --k;
        for (size_t j = k - 1; j < stack.size(); ++j)
            cycle.push_back(stack[j].first);
        // Start the path at the instruction written first.
        std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
        if (cycle.size() == 1)
            fail(cycle.front(), quoted(m.instructions[cycle.front()].name) + " uses itself as an operand");
        fail(cycle.front(), "instructions form a cycle through their operands: " + path(cycle, [this](uint32_t p) {
            return mention(p);
        }) + " (each uses the next)");
    }

    // XLA resolves an operand when it reads the instruction: it must be defined earlier.
    void checkOperandOrder() const
    {
        for (size_t p = 0; p < m.instructions.size(); ++p)
            for (uint32_t k = m_operandStart[p]; k < m_operandStart[p + 1]; ++k)
                if (m_operands[k] > p)
                    fail(p,
                        "operand " + mention(m_operands[k]) + " of " + quoted(m.instructions[p].name)
                            + " is defined after its use; XLA accepts only operands defined earlier in the "
                              "computation");
    }

    // Callee computation indexes, CSR like the operands.
    void resolveCalls()
    {
        const size_t n = m.instructions.size();
        m_callStart.assign(n + 1, 0);
        for (size_t p = 0; p < n; ++p) {
            m_callStart[p] = uint32_t(m_calls.size());
            for (int64_t id : m.span(m.instructions[p].calledComputationIds)) {
                const auto it = m_computationOfId.find(id);
                if (it == m_computationOfId.end())
                    fail(p, "called computation id " + std::to_string(id) + " does not exist");
                m_calls.push_back(it->second);
            }
        }
        m_callStart[n] = uint32_t(m_calls.size());
    }

    // Depth-first search over the call graph (computation -> the computations its instructions call).
    void findRecursion() const
    {
        const size_t count = m.computations.size();
        enum : uint8_t { White, Grey, Black };
        std::vector<uint8_t> state(count, White);
        struct Frame
        {
            uint32_t computation;
            uint32_t instruction; // next instruction to look at
            uint32_t call; // next call slot of that instruction
        };
        std::vector<Frame> stack;
        auto enter = [&](uint32_t c) {
            state[c] = Grey;
            const uint32_t first = m.computations[c].firstInstruction;
            stack.push_back({ c, first, first < m_callStart.size() ? m_callStart[first] : 0 });
        };
        for (size_t start = 0; start < count; ++start) {
            if (state[start] != White)
                continue;
            enter(uint32_t(start));
            while (!stack.empty()) {
                Frame& f = stack.back();
                const HloComputation& comp = m.computations[f.computation];
                const uint32_t end = comp.firstInstruction + comp.instructionCount;
                while (f.instruction < end && f.call == m_callStart[f.instruction + 1]) {
                    ++f.instruction;
                    if (f.instruction < end)
                        f.call = m_callStart[f.instruction];
                }
                if (f.instruction >= end) {
                    state[f.computation] = Black;
                    stack.pop_back();
                    continue;
                }
                const uint32_t caller = f.instruction;
                const uint32_t callee = m_calls[f.call++];
                if (state[callee] == White)
                    enter(callee);
                else if (state[callee] == Grey)
                    reportRecursion(stack, callee, caller);
            }
        }
    }

    template <class Frame>
    [[noreturn]] void reportRecursion(const std::vector<Frame>& stack, uint32_t callee, uint32_t caller) const
    {
        const HloInstruction& call = m.instructions[caller];
        const uint32_t own = m_computationOf[caller];
        if (callee == own)
            fail(caller,
                "computation " + quoted(m.computations[own].name) + " calls itself through " + quoted(call.name)
                    + "; XLA refuses recursive calls");
        std::vector<uint32_t> cycle;
        size_t k = stack.size();
        while (k > 0 && stack[k - 1].computation != callee)
            --k;
        for (size_t j = k - 1; j < stack.size(); ++j)
            cycle.push_back(stack[j].computation);
        fail(caller,
            "recursive calls: computation " + quoted(m.computations[callee].name) + " is reachable from itself: "
                + path(cycle, [this](uint32_t c) { return quoted(m.computations[c].name); })
                + " (each calls the next; the last call is " + quoted(call.name) + "); XLA refuses recursive calls");
    }

    // XLA resolves a called computation when it reads the call: it must be defined earlier.
    void checkCallOrder() const
    {
        for (size_t p = 0; p < m.instructions.size(); ++p)
            for (uint32_t k = m_callStart[p]; k < m_callStart[p + 1]; ++k)
                if (m_calls[k] > m_computationOf[p])
                    fail(p,
                        "called computation " + mentionComputation(m_calls[k]) + " is defined after its caller "
                            + quoted(m.computations[m_computationOf[p]].name)
                            + "; XLA accepts only computations defined earlier in the module");
    }

    // ---- what the opcode fixes --------------------------------------------------------------
    static std::string operands(size_t count)
    {
        return std::to_string(count) + (count == 1 ? " operand" : " operands");
    }

    // What the opcode fixes, looked up once per distinct opcode (readers intern opcode names, so
    // the same opcode has the same address).
    struct OpcodeChecks
    {
        std::string_view opcode;
        const OperandRule* rule = nullptr;
        bool elementwise = false;
        bool tuple = false;
        bool callsWithOperands = false; // call, fusion, while, conditional
        bool appliesComputation = false; // sort, map, reduce, reduce-window, scatter, ...
        bool dot = false; // two operands, plus one sparsity metadata operand per descriptor
    };
    const OpcodeChecks& checksOf(std::string_view opcode)
    {
        auto it = m_checks.find(opcode.data());
        if (it == m_checks.end() || it->second.opcode != opcode) {
            OpcodeChecks c;
            c.opcode = opcode;
            c.rule = operandRule(opcode);
            c.elementwise = isElementwise(opcode);
            c.tuple = opcode == "tuple";
            c.dot = opcode == "dot";
            c.callsWithOperands
                = opcode == "call" || opcode == "fusion" || opcode == "while" || opcode == "conditional";
            c.appliesComputation = opcode == "sort" || opcode == "map" || opcode == "reduce"
                || opcode == "reduce-window" || opcode == "scatter" || opcode == "select-and-scatter"
                || opcode == "all-reduce" || opcode == "all-reduce-start" || opcode == "reduce-scatter";
            it = m_checks.insert_or_assign(opcode.data(), c).first;
        }
        return it->second;
    }

    void checkOperandCounts()
    {
        for (size_t p = 0; p < m.instructions.size(); ++p) {
            const HloInstruction& inst = m.instructions[p];
            const size_t count = inst.operandIds.count;
            const OpcodeChecks& checks = checksOf(inst.opcode);
            auto who = [&inst] { return quoted(inst.name) + ": " + std::string(inst.opcode); };
            if (checks.dot)
                checkDotOperands(p, who);
            else if (const OperandRule* rule = checks.rule) {
                if (rule->min == rule->max && int64_t(count) != rule->min)
                    fail(p, who() + " takes " + operands(size_t(rule->min)) + ", got " + std::to_string(count));
                if (int64_t(count) < rule->min)
                    fail(
                        p, who() + " takes at least " + operands(size_t(rule->min)) + ", got " + std::to_string(count));
                if (rule->max >= 0 && int64_t(count) > rule->max)
                    fail(p, who() + " takes at most " + operands(size_t(rule->max)) + ", got " + std::to_string(count));
                if (rule->parity == OperandRule::Even && count % 2 != 0)
                    fail(p,
                        who() + " takes an even number of operands (inputs, then as many init values), got "
                            + std::to_string(count));
                if (rule->parity == OperandRule::Odd && count % 2 == 0)
                    fail(p,
                        who() + " takes an odd number of operands (inputs, indices, then as many updates), got "
                            + std::to_string(count));
            }
            const HloShape& result = m.shapes[inst.shape];
            if (checks.tuple && result.elementType == PrimitiveType::Tuple && result.tupleCount != count)
                fail(p,
                    quoted(inst.name) + ": tuple shape has " + std::to_string(result.tupleCount) + " elements but "
                        + operands(count));
            if (checks.callsWithOperands)
                checkCalleeParameters(p, who());
            if (checks.appliesComputation)
                checkAppliedComputation(p, who());
            if (checks.elementwise)
                checkElementwise(p);
        }
    }

    // A dot takes lhs and rhs, then one metadata operand per sparsity descriptor (the XLA versions
    // with sparse dots, docs/formats.md §8.6), at most one descriptor per operand.
    template <class Who> void checkDotOperands(size_t p, const Who& who) const
    {
        const HloInstruction& inst = m.instructions[p];
        const size_t count = inst.operandIds.count;
        size_t descriptors = 0;
        const HloInstructionDetails& details = m.detailsOf(inst);
        if (details.dotDims >= 0 && size_t(details.dotDims) < m.dotDims.size())
            descriptors = m.dotDims[size_t(details.dotDims)].sparsity.count / 4;
        if (descriptors > 2)
            fail(p,
                who() + " has " + std::to_string(descriptors)
                    + " sparsity descriptors; it takes one per operand at most");
        if (count == 2 + descriptors)
            return;
        if (descriptors == 0)
            fail(p, who() + " takes 2 operands, got " + std::to_string(count));
        fail(p,
            who() + " with " + std::to_string(descriptors) + " sparsity "
                + (descriptors == 1 ? "descriptor" : "descriptors") + " takes " + std::to_string(2 + descriptors)
                + " operands (lhs, rhs, then one metadata operand per descriptor), got " + std::to_string(count));
    }

    // call, while, conditional and fusion pass their operands to the computations they call.
    void checkCalleeParameters(size_t p, const std::string& who) const
    {
        const HloInstruction& inst = m.instructions[p];
        const size_t count = inst.operandIds.count;
        const uint32_t first = m_callStart[p];
        const size_t callees = m_callStart[p + 1] - first;
        auto parameters = [&](size_t k) { return m_parameters[m_calls[first + k]]; };
        auto callee = [&](size_t k) { return quoted(m.computations[m_calls[first + k]].name); };
        if (inst.opcode == "call" && callees == 1 && parameters(0) != count)
            fail(p,
                who + " passes " + operands(count) + " to computation " + callee(0) + ", which has "
                    + std::to_string(parameters(0)) + " parameters");
        if (inst.opcode == "fusion" && callees == 1 && parameters(0) > count)
            fail(p,
                who + " passes " + operands(count) + " to computation " + callee(0) + ", which has "
                    + std::to_string(parameters(0)) + " parameters");
        if (inst.opcode == "conditional" && callees > 0 && count != callees + 1)
            fail(p,
                who + " with " + std::to_string(callees) + " branch computations takes " + operands(callees + 1)
                    + " (the branch selector, then one per branch), got " + std::to_string(count));
        if (inst.opcode == "while" || inst.opcode == "conditional")
            for (size_t k = 0; k < callees; ++k)
                if (parameters(k) != 1)
                    fail(p,
                        who + " calls computation " + callee(k) + " with one operand, but it has "
                            + std::to_string(parameters(k)) + " parameters");
        // The shapes passed: operand k is parameter k of a call or fusion; a while's one operand is
        // the parameter of its body and condition (and its result's shape); a conditional's operand
        // k + 1 is the parameter of branch k. Layouts may differ (XLA compares shapes without them).
        if ((inst.opcode == "call" || inst.opcode == "fusion") && callees == 1 && parameters(0) == count)
            for (size_t k = 0; k < count; ++k)
                checkPassedShape(p, who, m_operands[m_operandStart[p] + k], m_calls[first], k);
        if (inst.opcode == "while" && count == 1) {
            const uint32_t operand = m_operands[m_operandStart[p]];
            for (size_t k = 0; k < callees; ++k)
                checkPassedShape(p, who, operand, m_calls[first + k], 0);
            if (!sameShape(m.instructions[operand].shape, inst.shape))
                fail(p,
                    who + " has shape " + m.shapeToText(inst.shape) + " but its operand " + mention(operand)
                        + " (the loop's initial value) has shape " + m.shapeToText(m.instructions[operand].shape));
        }
        if (inst.opcode == "conditional" && count == callees + 1)
            for (size_t k = 0; k < callees; ++k)
                checkPassedShape(p, who, m_operands[m_operandStart[p] + k + 1], m_calls[first + k], 0);
    }

    // Operand `operand` passed as parameter `number` of computation `c`: the same shape.
    void checkPassedShape(size_t p, const std::string& who, uint32_t operand, uint32_t c, size_t number) const
    {
        const auto& slots = m_parameterOf[c];
        const uint32_t parameter = number < slots.size() ? slots[number] : kNone;
        if (parameter == kNone)
            return;
        const uint32_t given = m.instructions[operand].shape;
        const uint32_t expected = m.instructions[parameter].shape;
        if (!sameShape(given, expected))
            fail(p,
                who + " passes " + mention(operand) + " of shape " + m.shapeToText(given) + " as parameter "
                    + std::to_string(number) + " of computation " + quoted(m.computations[c].name) + ", which has shape "
                    + m.shapeToText(expected));
    }

    // Equal element types and dimensions, element by element for tuples, layouts aside.
    bool sameShape(uint32_t a, uint32_t b) const
    {
        if (a == b)
            return true;
        const HloShape& x = m.shapes[a];
        const HloShape& y = m.shapes[b];
        if (x.elementType != y.elementType)
            return false;
        if (x.elementType == PrimitiveType::Tuple) {
            if (x.tupleCount != y.tupleCount)
                return false;
            for (uint32_t k = 0; k < x.tupleCount; ++k)
                if (!sameShape(x.firstTupleShape + k, y.firstTupleShape + k))
                    return false;
            return true;
        }
        const auto dx = m.span(x.dims);
        const auto dy = m.span(y.dims);
        return std::equal(dx.begin(), dx.end(), dy.begin(), dy.end());
    }

    // The computation an opcode applies to elements takes a fixed number of scalar parameters
    // (docs/formats.md §8.6): sort's comparator two per operand (lhs and rhs of each), map's one
    // per operand, reduce's and reduce-window's two per input (accumulator and element), scatter's
    // two per input, select-and-scatter's select and scatter two each, the all-reduce and
    // reduce-scatter reducer two.
    void checkAppliedComputation(size_t p, const std::string& who) const
    {
        const HloInstruction& inst = m.instructions[p];
        const size_t count = inst.operandIds.count;
        const uint32_t first = m_callStart[p];
        const size_t callees = m_callStart[p + 1] - first;
        size_t expected = 0;
        std::string why;
        if (inst.opcode == "sort") {
            expected = 2 * count;
            why = "two per operand";
        } else if (inst.opcode == "map") {
            expected = count;
            why = "one per operand";
        } else if (inst.opcode == "reduce" || inst.opcode == "reduce-window") {
            expected = count; // N inputs and N init values: 2N parameters
            why = "two per input";
        } else if (inst.opcode == "scatter") {
            expected = count - 1; // N inputs, the indices and N updates: 2N parameters
            why = "two per input";
        } else {
            expected = 2;
            why = "two";
        }
        if (callees != 1 && !(inst.opcode == "select-and-scatter" && callees == 2))
            return; // the number of callees is the reader's concern (an old text may omit them)
        for (size_t k = 0; k < callees; ++k) {
            const uint32_t c = m_calls[first + k];
            if (m_parameters[c] != expected)
                fail(p,
                    who + " with " + operands(count) + " applies computation " + quoted(m.computations[c].name)
                        + ", which has " + std::to_string(m_parameters[c])
                        + (m_parameters[c] == 1 ? " parameter" : " parameters") + "; it takes "
                        + std::to_string(expected) + " (" + why + ")");
        }
    }

    void checkElementwise(size_t p) const
    {
        const HloInstruction& inst = m.instructions[p];
        const HloShape& result = m.shapes[inst.shape];
        if (inst.opcode == "copy" && result.elementType == PrimitiveType::Tuple)
            return; // a copy of a tuple copies its buffers
        const bool scalarsAllowed = inst.opcode == "select" || inst.opcode == "clamp";
        const auto resultDims = m.span(result.dims);
        for (uint32_t k = m_operandStart[p]; k < m_operandStart[p + 1]; ++k) {
            const HloInstruction& operand = m.instructions[m_operands[k]];
            const HloShape& s = m.shapes[operand.shape];
            const auto dims = m.span(s.dims);
            const bool array = s.elementType != PrimitiveType::Tuple;
            const bool same = array && std::equal(dims.begin(), dims.end(), resultDims.begin(), resultDims.end());
            if (!same && !(scalarsAllowed && array && dims.empty()))
                fail(p,
                    quoted(inst.name) + ": " + std::string(inst.opcode) + " operand "
                        + std::to_string(k - m_operandStart[p]) + " (" + quoted(operand.name) + ") has shape "
                        + m.shapeToText(operand.shape) + " but the result is " + m.shapeToText(inst.shape));
        }
    }

    const HloModule& m;
    const std::string& m_file;
    std::vector<uint32_t> m_computationOf; // per instruction position
    bool m_idsArePositions = true;
    std::unordered_map<int64_t, uint32_t> m_positionOfId;
    std::unordered_map<int64_t, uint32_t> m_computationOfId;
    std::vector<size_t> m_parameters; // per computation
    std::vector<std::vector<uint32_t>> m_parameterOf; // per computation: parameter number -> position (kNone: unknown)
    std::vector<uint32_t> m_operandStart;
    std::vector<uint32_t> m_operands;
    std::vector<uint32_t> m_callStart;
    std::vector<uint32_t> m_calls;
    std::unordered_map<const char*, OpcodeChecks> m_checks;
};

} // namespace

void verifyHloModule(const HloModule& module, const std::string& file) { Verifier(module, file).run(); }

} // namespace tgraph
