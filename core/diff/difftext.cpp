// SPDX-License-Identifier: Apache-2.0
#include "core/diff/diffreport.h"

#include "core/diff/diffgraph.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <cstdio>

namespace tgraph {

std::string hloDiffKindList(uint16_t kinds, const char* separator)
{
    std::string out;
    for (size_t k = 0; k < kHloChangeKindCount; ++k)
        if (kinds & hloChangeBit(HloChangeKind(k))) {
            if (!out.empty())
                out += separator;
            out += hloChangeKindName(HloChangeKind(k));
        }
    return out;
}

namespace {

std::string number(size_t n) { return std::to_string(n); }

std::string side(const char* letter, const std::string& label, const HloModule& m)
{
    return std::string(letter) + ": " + terminalText(label) + ": module " + terminalText(m.name) + " ("
        + hloSourceFormatName(m.format) + "), " + number(m.instructions.size()) + " instructions in "
        + number(m.computations.size()) + " computations\n";
}

std::string computationName(const HloModule& m, int32_t c)
{
    return c < 0 ? std::string("-") : terminalText(m.computations[size_t(c)].name);
}

// "more" line when a list was cut.
void cut(std::string& out, size_t shown, size_t total)
{
    if (shown < total)
        out += "  ... and " + number(total - shown) + " more (--limit 0 lists all)\n";
}

std::string operandNames(const HloDiffGraph& g, uint32_t i)
{
    if (g.isParameter(i))
        return "(" + std::to_string(g.instruction(i).parameterNumber) + ")";
    std::string out = "(";
    const auto operands = g.operands(i);
    for (size_t k = 0; k < operands.size(); ++k) {
        if (k == 6) {
            out += ", ...";
            break;
        }
        out += (k ? ", " : "") + terminalText(g.instruction(operands[k]).name);
    }
    return out + ")";
}

} // namespace

std::string formatHloDiffText(const HloDiffReport& r)
{
    const HloDiff& d = r.diff;
    const HloDiffGraph A(r.a), B(r.b);
    const size_t limit = r.limit ? r.limit : SIZE_MAX;
    std::string out = side("A", r.labelA, r.a) + side("B", r.labelB, r.b);
    out += d.same() ? "the same: " : "different: ";
    out += "matched " + number(d.matched()) + " (unchanged " + number(d.unchanged()) + ", changed "
        + number(d.changed.size()) + "), removed " + number(d.removed.size()) + ", added " + number(d.added.size())
        + "\n";
    out += "matched by:";
    for (size_t s = 1; s < kHloMatchStageCount; ++s)
        out += std::string(s > 1 ? "," : "") + " " + hloMatchStageName(HloMatchStage(s)) + " "
            + number(d.matchedByStage[s]);
    out += "\nchanges by kind:";
    for (size_t k = 0; k < kHloChangeKindCount; ++k)
        out += std::string(k ? "," : "") + " " + hloChangeKindName(HloChangeKind(k)) + " " + number(d.byKind[k].size());
    out += "\n";

    // Computations with something to say.
    std::vector<const HloComputationDiff*> rows;
    for (const HloComputationDiff& c : d.computations)
        if (c.a < 0 || c.b < 0 || c.changed || c.removed || c.added || c.movedIn || c.movedOut)
            rows.push_back(&c);
    out += "\ncomputations: " + number(d.computations.size()) + ", " + number(d.computations.size() - rows.size())
        + " without a difference\n";
    if (!rows.empty()) {
        char line[160];
        std::snprintf(line, sizeof line, "  %8s %8s %9s %8s %8s %8s %9s %9s  %s\n", "A instr.", "B instr.", "unchanged",
            "changed", "removed", "added", "moved out", "moved in", "A -> B");
        out += line;
    }
    for (size_t k = 0; k < rows.size() && k < limit; ++k) {
        const HloComputationDiff& c = *rows[k];
        char line[160];
        std::snprintf(line, sizeof line, "  %8u %8u %9u %8u %8u %8u %9u %9u  ", c.instructionsA, c.instructionsB,
            c.unchanged, c.changed, c.removed, c.added, c.movedOut, c.movedIn);
        out += line + computationName(r.a, c.a) + " -> " + computationName(r.b, c.b) + (c.fusion ? " (fusion)" : "")
            + (c.reachable ? "" : " (not called)") + "\n";
    }
    cut(out, std::min(rows.size(), limit), rows.size());

    out += "\nchanged: " + number(d.changed.size()) + "\n";
    for (size_t k = 0; k < d.changed.size() && k < limit; ++k) {
        const HloDiffPair& p = d.pairs[d.changed[k]];
        const HloInstruction& x = r.a.instructions[p.a];
        const HloInstruction& y = r.b.instructions[p.b];
        out += "  ~ " + terminalText(x.name);
        if (x.name != y.name)
            out += " -> " + terminalText(y.name);
        out += "  [" + hloDiffKindList(p.kinds) + "]";
        if (p.has(HloChangeKind::Opcode))
            out += "  " + terminalText(x.opcode) + " -> " + terminalText(y.opcode);
        if (p.has(HloChangeKind::Shape) || p.has(HloChangeKind::Layout))
            out += "  " + r.a.shapeToText(x.shape) + " -> " + r.b.shapeToText(y.shape);
        if (p.has(HloChangeKind::Operands))
            out += "  " + operandNames(A, p.a) + " -> " + operandNames(B, p.b);
        const std::string_view ca = r.a.computations[A.computationOf(p.a)].name;
        const std::string_view cb = r.b.computations[B.computationOf(p.b)].name;
        out += "  in " + terminalText(ca);
        if (ca != cb)
            out += " -> " + terminalText(cb);
        out += " (by " + std::string(hloMatchStageName(p.stage)) + ")\n";
    }
    cut(out, std::min(d.changed.size(), limit), d.changed.size());

    auto list = [&](const char* title, const char* mark, const std::vector<uint32_t>& items, const HloDiffGraph& g) {
        out += std::string("\n") + title + ": " + number(items.size()) + "\n";
        for (size_t k = 0; k < items.size() && k < limit; ++k) {
            const HloInstruction& inst = g.instruction(items[k]);
            out += std::string("  ") + mark + " " + terminalText(inst.name) + " = " + g.module().shapeToText(inst.shape)
                + " " + terminalText(inst.opcode) + operandNames(g, items[k]) + "  in "
                + terminalText(g.module().computations[g.computationOf(items[k])].name) + "\n";
        }
        cut(out, std::min(items.size(), limit), items.size());
    };
    list("removed", "-", d.removed, A);
    list("added", "+", d.added, B);
    return out;
}

} // namespace tgraph
