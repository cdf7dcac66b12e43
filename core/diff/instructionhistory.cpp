// SPDX-License-Identifier: Apache-2.0
#include "core/diff/instructionhistory.h"

#include "core/util/error.h"
#include "core/util/progress.h"

#include <algorithm>

namespace tgraph {

const char* instructionEventKindName(InstructionEvent::Kind kind)
{
    switch (kind) {
    case InstructionEvent::Kind::Created:
        return "created";
    case InstructionEvent::Kind::Changed:
        return "changed";
    case InstructionEvent::Kind::Renamed:
        return "renamed";
    case InstructionEvent::Kind::Removed:
        return "removed";
    }
    return "?";
}

size_t InstructionHistory::firstStage() const
{
    const auto it = std::find_if(positions.begin(), positions.end(), [](int64_t p) { return p >= 0; });
    return it == positions.end() ? anchorStage : size_t(it - positions.begin());
}

size_t InstructionHistory::lastStage() const
{
    const auto it = std::find_if(positions.rbegin(), positions.rend(), [](int64_t p) { return p >= 0; });
    return it == positions.rend() ? anchorStage : size_t(positions.rend() - it) - 1;
}

std::vector<HloDiff> diffNeighbourStages(std::span<const HloModule* const> stages, ProgressSink* progress)
{
    std::vector<HloDiff> diffs;
    if (stages.size() < 2)
        return diffs;
    diffs.reserve(stages.size() - 1);
    ProgressScope scope(progress, "diffing neighbouring stages", stages.size() - 1);
    HloDiffOptions options;
    options.progress = progress;
    for (size_t i = 0; i + 1 < stages.size(); ++i) {
        diffs.push_back(diffHloModules(*stages[i], *stages[i + 1], options));
        scope.advanceTo(i + 1);
    }
    return diffs;
}

InstructionHistory traceInstruction(
    std::span<const HloModule* const> stages, std::span<const HloDiff> diffs, size_t anchor, std::string_view name)
{
    if (anchor >= stages.size())
        throw InputError("", "stage " + std::to_string(anchor),
            "no such stage (the module has " + std::to_string(stages.size()) + ")");
    if (diffs.size() + 1 != stages.size())
        throw InputError("", "",
            "the diffs (" + std::to_string(diffs.size()) + ") do not fit the stages (" + std::to_string(stages.size())
                + ")");
    for (size_t i = 0; i < diffs.size(); ++i)
        if (diffs[i].matchOfA.size() != stages[i]->instructions.size()
            || diffs[i].matchOfB.size() != stages[i + 1]->instructions.size())
            throw InputError("", "stage " + std::to_string(i + 1), "the diff does not fit the stages' modules");

    const HloModule& anchorModule = *stages[anchor];
    int64_t start = -1;
    for (size_t i = 0; i < anchorModule.instructions.size(); ++i)
        if (anchorModule.instructions[i].name == name) {
            start = int64_t(i);
            break;
        }
    if (start < 0)
        throw InputError(std::string(anchorModule.name), "stage " + std::to_string(anchor),
            "no instruction named '" + std::string(name) + "'");

    InstructionHistory history;
    history.anchorStage = anchor;
    history.anchorName = std::string(name);
    history.positions.assign(stages.size(), -1);
    history.names.assign(stages.size(), {});
    history.opcodes.assign(stages.size(), {});
    const auto place = [&](size_t stage, int64_t position) {
        history.positions[stage] = position;
        const HloInstruction& instruction = stages[stage]->instructions[size_t(position)];
        history.names[stage] = std::string(instruction.name);
        history.opcodes[stage] = std::string(instruction.opcode);
    };
    place(anchor, start);

    // Backward: from the anchor to the stage that created it.
    for (size_t stage = anchor; stage > 0; --stage) {
        const int32_t before = diffs[stage - 1].matchOfB[size_t(history.positions[stage])];
        if (before < 0)
            break;
        place(stage - 1, before);
    }
    // Forward: from the anchor to the stage that removed it.
    for (size_t stage = anchor; stage + 1 < stages.size(); ++stage) {
        const int32_t after = diffs[stage].matchOfA[size_t(history.positions[stage])];
        if (after < 0)
            break;
        place(stage + 1, after);
    }

    // The events between neighbours.
    for (size_t stage = 1; stage < stages.size(); ++stage) {
        const int64_t before = history.positions[stage - 1];
        const int64_t after = history.positions[stage];
        InstructionEvent event;
        event.stage = stage;
        event.nameBefore = history.names[stage - 1];
        event.nameAfter = history.names[stage];
        if (before < 0 && after >= 0) {
            event.kind = InstructionEvent::Kind::Created;
        } else if (before >= 0 && after < 0) {
            event.kind = InstructionEvent::Kind::Removed;
        } else if (before >= 0 && after >= 0) {
            const HloDiff& diff = diffs[stage - 1];
            const int32_t pair = diff.pairOfA[size_t(before)];
            event.kinds = pair >= 0 ? diff.pairs[size_t(pair)].kinds : 0;
            if (event.kinds != 0)
                event.kind = InstructionEvent::Kind::Changed;
            else if (event.nameBefore != event.nameAfter)
                event.kind = InstructionEvent::Kind::Renamed;
            else
                continue;
        } else {
            continue;
        }
        history.events.push_back(std::move(event));
    }
    return history;
}

} // namespace tgraph
