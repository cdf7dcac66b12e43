// SPDX-License-Identifier: Apache-2.0
#include "core/diff/diffgraph.h"
#include "core/diff/diffreport.h"

#include <string>

namespace tgraph {

namespace {

std::string text(std::string_view s) { return std::string(s); }

Json sideJson(const std::string& label, const HloModule& m)
{
    Json j = Json::object();
    j["file"] = label;
    j["module"] = text(m.name);
    j["format"] = hloSourceFormatName(m.format);
    j["instructions"] = m.instructions.size();
    j["computations"] = m.computations.size();
    return j;
}

Json instructionJson(const HloDiffGraph& g, uint32_t i)
{
    const HloInstruction& inst = g.instruction(i);
    Json j = Json::object();
    j["name"] = text(inst.name);
    j["opcode"] = text(inst.opcode);
    j["shape"] = g.module().shapeToText(inst.shape);
    j["computation"] = text(g.module().computations[g.computationOf(i)].name);
    return j;
}

Json computationName(const HloModule& m, int32_t c)
{
    return c < 0 ? Json(nullptr) : Json(text(m.computations[size_t(c)].name));
}

} // namespace

Json hloDiffJson(const HloDiffReport& r)
{
    const HloDiff& d = r.diff;
    const HloDiffGraph A(r.a), B(r.b);
    Json j = Json::object();
    j["format"] = "tgraph-hlo-diff";
    j["version"] = 1;
    j["a"] = sideJson(r.labelA, r.a);
    j["b"] = sideJson(r.labelB, r.b);
    j["same"] = d.same();
    j["matched"] = d.matched();
    j["unchanged"] = d.unchanged();
    Json stages = Json::object();
    for (size_t s = 1; s < kHloMatchStageCount; ++s)
        stages[hloMatchStageName(HloMatchStage(s))] = d.matchedByStage[s];
    j["matched_by"] = std::move(stages);
    Json kinds = Json::object();
    for (size_t k = 0; k < kHloChangeKindCount; ++k)
        kinds[hloChangeKindName(HloChangeKind(k))] = d.byKind[k].size();
    j["changes_by_kind"] = std::move(kinds);

    Json changed = Json::array();
    for (const uint32_t index : d.changed) {
        const HloDiffPair& p = d.pairs[index];
        const HloInstruction& x = r.a.instructions[p.a];
        const HloInstruction& y = r.b.instructions[p.b];
        Json c = Json::object();
        c["a"] = text(x.name);
        c["b"] = text(y.name);
        Json names = Json::array();
        for (size_t k = 0; k < kHloChangeKindCount; ++k)
            if (p.has(HloChangeKind(k)))
                names.push_back(hloChangeKindName(HloChangeKind(k)));
        c["kinds"] = std::move(names);
        c["matched_by"] = hloMatchStageName(p.stage);
        c["a_opcode"] = text(x.opcode);
        c["b_opcode"] = text(y.opcode);
        c["a_shape"] = r.a.shapeToText(x.shape);
        c["b_shape"] = r.b.shapeToText(y.shape);
        c["a_computation"] = text(r.a.computations[A.computationOf(p.a)].name);
        c["b_computation"] = text(r.b.computations[B.computationOf(p.b)].name);
        changed.push_back(std::move(c));
    }
    j["changed"] = std::move(changed);
    Json removed = Json::array();
    for (const uint32_t i : d.removed)
        removed.push_back(instructionJson(A, i));
    j["removed"] = std::move(removed);
    Json added = Json::array();
    for (const uint32_t i : d.added)
        added.push_back(instructionJson(B, i));
    j["added"] = std::move(added);

    Json computations = Json::array();
    for (const HloComputationDiff& c : d.computations) {
        Json row = Json::object();
        row["a"] = computationName(r.a, c.a);
        row["b"] = computationName(r.b, c.b);
        row["fusion"] = c.fusion;
        row["reachable"] = c.reachable;
        row["a_instructions"] = c.instructionsA;
        row["b_instructions"] = c.instructionsB;
        row["unchanged"] = c.unchanged;
        row["changed"] = c.changed;
        row["removed"] = c.removed;
        row["added"] = c.added;
        row["moved_out"] = c.movedOut;
        row["moved_in"] = c.movedIn;
        computations.push_back(std::move(row));
    }
    j["computations"] = std::move(computations);
    return j;
}

} // namespace tgraph
