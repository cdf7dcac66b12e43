// SPDX-License-Identifier: Apache-2.0
#pragma once

// The history of one instruction across the stages of a module (docs/diff.md §10): the stages in
// pass order, each pair of neighbours diffed (diffHloModules), and one instruction followed
// through the matches forward and backward from the stage it was picked in, so that it reads
// which pass created it, changed it (and in what), fused it, renamed it or removed it.

#include "core/diff/hlodiff.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

class ProgressSink;

// What happened to the instruction between stage `stage - 1` and `stage`.
struct InstructionEvent
{
    enum class Kind : uint8_t {
        Created, // absent before, present after (no match in the previous stage)
        Changed, // matched, with change kinds (fused-into / fused-out-of among them)
        Renamed, // matched without a change, under another name
        Removed, // present before, no match after
    };
    Kind kind = Kind::Changed;
    size_t stage = 0; // the later stage of the pair (>= 1)
    uint16_t kinds = 0; // hloChangeBit()s of Changed
    std::string nameBefore; // "" for Created
    std::string nameAfter; // "" for Removed

    bool has(HloChangeKind kind) const { return (kinds & hloChangeBit(kind)) != 0; }
};
// "created", "changed", "renamed", "removed".
const char* instructionEventKindName(InstructionEvent::Kind kind);

struct InstructionHistory
{
    size_t anchorStage = 0; // where the instruction was picked
    std::string anchorName;
    // Per stage: the instruction's position in that stage's module, -1 where it does not exist
    // (before it was created, after it was removed); its name and opcode there ("" when absent).
    std::vector<int64_t> positions;
    std::vector<std::string> names;
    std::vector<std::string> opcodes;
    std::vector<InstructionEvent> events; // in stage order

    // The first and last stage holding it.
    size_t firstStage() const;
    size_t lastStage() const;
};

// The diffs of neighbours: element i is diffHloModules(stages[i], stages[i + 1]) (none for fewer
// than two stages). Cancellable through `progress`.
std::vector<HloDiff> diffNeighbourStages(std::span<const HloModule* const> stages, ProgressSink* progress = nullptr);

// Follows the instruction named `name` in stages[anchor] through `diffs` (as diffNeighbourStages
// returns them). InputError when `anchor` is out of range, the diffs do not fit the stages, or the
// anchor stage has no instruction of that name.
InstructionHistory traceInstruction(
    std::span<const HloModule* const> stages, std::span<const HloDiff> diffs, size_t anchor, std::string_view name);

} // namespace tgraph
