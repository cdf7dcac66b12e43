// SPDX-License-Identifier: Apache-2.0
// The history of one instruction across the stages of a module (core/diff/instructionhistory.h,
// docs/diff.md §10): four stages written here as a layout pass, a fusion pass and a clean-up would
// leave them; an instruction followed forward from the first stage and backward from the last
// lands on the same positions, its events agree with the diffs of the neighbours, a created, a
// renamed and a removed instruction, and the refusals (unknown name, stage out of range, diffs
// that do not fit).

#include "core/diff/instructionhistory.h"
#include "core/hlo/hlotext.h"
#include "core/util/error.h"
#include "passstages.h"

#include <QtTest>

#include <string>
#include <vector>

using namespace tgraph;

using namespace passstages;

namespace {

int64_t find(const HloModule& m, std::string_view name)
{
    for (size_t i = 0; i < m.instructions.size(); ++i)
        if (m.instructions[i].name == name)
            return int64_t(i);
    return -1;
}

} // namespace

class TestInstructionHistory : public QObject
{
    Q_OBJECT

    std::vector<HloModule> m_modules;
    std::vector<const HloModule*> m_stages;
    std::vector<HloDiff> m_diffs;

    InstructionHistory trace(size_t anchor, std::string_view name)
    {
        return traceInstruction(m_stages, m_diffs, anchor, name);
    }

private Q_SLOTS:
    void initTestCase()
    {
        int n = 0;
        for (const char* text : { kStage0, kStage1, kStage2, kStage3 })
            m_modules.push_back(parseHloText(text, "stage" + std::to_string(n++) + ".txt"));
        for (const HloModule& m : m_modules)
            m_stages.push_back(&m);
        m_diffs = diffNeighbourStages(m_stages);
        QCOMPARE(m_diffs.size(), m_stages.size() - 1);
        for (size_t i = 0; i < m_diffs.size(); ++i) {
            QCOMPARE(m_diffs[i].instructionsA, m_modules[i].instructions.size());
            QCOMPARE(m_diffs[i].instructionsB, m_modules[i + 1].instructions.size());
        }
        QVERIFY(diffNeighbourStages(std::span<const HloModule* const>(m_stages.data(), 1)).empty());
    }

    void layoutThenFused()
    {
        const InstructionHistory h = trace(0, "mul");
        QCOMPARE(h.anchorStage, size_t(0));
        QCOMPARE(h.firstStage(), size_t(0));
        QCOMPARE(h.lastStage(), size_t(3));
        QCOMPARE(h.names, (std::vector<std::string> { "mul", "mul", "multiply.1", "multiply.1" }));
        for (size_t s = 0; s < m_stages.size(); ++s) {
            QCOMPARE(h.positions[s], find(*m_stages[s], h.names[s]));
            QCOMPARE(h.opcodes[s], std::string("multiply"));
        }
        QCOMPARE(h.events.size(), size_t(2));
        QCOMPARE(h.events[0].kind, InstructionEvent::Kind::Changed);
        QCOMPARE(h.events[0].stage, size_t(1));
        QVERIFY(h.events[0].has(HloChangeKind::Layout));
        QVERIFY(!h.events[0].has(HloChangeKind::FusedInto));
        QCOMPARE(h.events[1].kind, InstructionEvent::Kind::Changed);
        QCOMPARE(h.events[1].stage, size_t(2));
        QVERIFY(h.events[1].has(HloChangeKind::FusedInto));
        QCOMPARE(h.events[1].nameBefore, std::string("mul"));
        QCOMPARE(h.events[1].nameAfter, std::string("multiply.1"));
        // Each event's kinds are those of the pair the neighbours' own diff gives.
        for (const InstructionEvent& e : h.events) {
            const HloDiff d = diffHloModules(*m_stages[e.stage - 1], *m_stages[e.stage]);
            const int32_t pair = d.pairOfA[size_t(h.positions[e.stage - 1])];
            QVERIFY(pair >= 0);
            QCOMPARE(d.pairs[size_t(pair)].kinds, e.kinds);
            QCOMPARE(int64_t(d.pairs[size_t(pair)].b), h.positions[e.stage]);
        }
    }

    void backwardMeetsForward()
    {
        // Picked in the last stage under its fused name, followed back to the first.
        const InstructionHistory back = trace(3, "multiply.1");
        const InstructionHistory forward = trace(0, "mul");
        QCOMPARE(back.positions, forward.positions);
        QCOMPARE(back.names, forward.names);
        QCOMPARE(back.events.size(), forward.events.size());
        for (size_t i = 0; i < back.events.size(); ++i) {
            QCOMPARE(back.events[i].stage, forward.events[i].stage);
            QCOMPARE(back.events[i].kinds, forward.events[i].kinds);
        }
        // From the middle too.
        QCOMPARE(trace(1, "mul").positions, forward.positions);
    }

    void createdByTheFusionPass()
    {
        const InstructionHistory h = trace(3, "fusion");
        QCOMPARE(h.firstStage(), size_t(2));
        QCOMPARE(h.positions[0], int64_t(-1));
        QCOMPARE(h.positions[1], int64_t(-1));
        QVERIFY(h.names[1].empty());
        QVERIFY(!h.events.empty());
        QCOMPARE(h.events.front().kind, InstructionEvent::Kind::Created);
        QCOMPARE(h.events.front().stage, size_t(2));
        QVERIFY(h.events.front().nameBefore.empty());
    }

    void removedByTheCleanUp()
    {
        const InstructionHistory h = trace(0, "neg");
        QCOMPARE(h.lastStage(), size_t(2));
        QCOMPARE(h.positions[3], int64_t(-1));
        QCOMPARE(h.events.back().kind, InstructionEvent::Kind::Removed);
        QCOMPARE(h.events.back().stage, size_t(3));
        QCOMPARE(h.events.back().nameBefore, std::string("neg"));
        QVERIFY(h.events.back().nameAfter.empty());
        // Its operand became the fusion in stage 2, which stands for the fused root (the add) in
        // the diff's data flow: no change there, the removal is its one event.
        QCOMPARE(h.events.size(), size_t(1));
    }

    void renamedOnly()
    {
        const InstructionHistory h = trace(0, "p1");
        QCOMPARE(h.lastStage(), size_t(3));
        QCOMPARE(h.events.size(), size_t(1));
        QCOMPARE(h.events[0].kind, InstructionEvent::Kind::Renamed);
        QCOMPARE(h.events[0].stage, size_t(1));
        QCOMPARE(h.events[0].nameAfter, std::string("arg1"));
        QCOMPARE(h.events[0].kinds, uint16_t(0));
        // An instruction nothing touched has no event at all.
        QVERIFY(trace(0, "p0").events.empty());
        QCOMPARE(trace(0, "p0").lastStage(), size_t(3));
    }

    void refusals()
    {
        QVERIFY_THROWS_EXCEPTION(InputError, trace(0, "no_such_instruction"));
        QVERIFY_THROWS_EXCEPTION(InputError, trace(4, "mul"));
        const std::vector<HloDiff> fewer(1);
        QVERIFY_THROWS_EXCEPTION(InputError, traceInstruction(m_stages, fewer, 0, "mul"));
        // Diffs of other modules than the stages'.
        std::vector<HloDiff> swapped;
        for (size_t i = m_stages.size() - 1; i > 0; --i)
            swapped.push_back(diffHloModules(*m_stages[i], *m_stages[i - 1]));
        QVERIFY_THROWS_EXCEPTION(InputError, traceInstruction(m_stages, swapped, 0, "mul"));
        try {
            trace(0, "no_such_instruction");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("no_such_instruction") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestInstructionHistory)
#include "tst_instructionhistory.moc"
