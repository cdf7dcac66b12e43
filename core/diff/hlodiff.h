// SPDX-License-Identifier: Apache-2.0
#pragma once

// The difference between two HLO modules A and B (docs/diff.md): every instruction of A matched
// to at most one of B, in stages (by name, by op metadata, by exact subgraph, top-down from
// matched users, bottom-up from matched operands), then each matched pair classified (unchanged,
// or changed in opcode, shape, layout, operands, attributes, and moved into or out of a fusion)
// and the unmatched ones listed as removed (A) or added (B). Plain data, made for viewers: the
// match of every instruction, the pairs by kind, and one summary row per pair of computations.

#include "core/hlo/hlomodule.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tgraph {

class ProgressSink;

// How a pair was matched (docs/diff.md §2), in the order the stages run.
enum class HloMatchStage : uint8_t {
    None, // unmatched
    Name, // the same instruction name
    Metadata, // the same op_name, op_type, opcode and shape (layout aside), once on each side
    Subgraph, // the same bottom-up hash (opcode, shape, operands' hashes), once on each side
    TopDown, // an operand of a matched pair at the same position, with the same opcode
    BottomUp, // the one user of a matched pair at the same operand position with the same opcode
};
inline constexpr size_t kHloMatchStageCount = 6;
// "name", "metadata", "subgraph", "top-down", "bottom-up" ("none" for None).
const char* hloMatchStageName(HloMatchStage stage);

// What differs between the two instructions of a matched pair (docs/diff.md §3).
enum class HloChangeKind : uint8_t {
    Opcode,
    Shape, // element type or dimensions
    Layout, // element type and dimensions equal, the minor-to-major order differs
    Operands, // an operand is not the match of the other side's operand at that position
    Attributes, // dimensions, window, slices, padding, dot and convolution numbers, other attributes
    FusedInto, // outside a fusion in A, inside one in B (or inside another fusion than A's)
    FusedOutOf, // inside a fusion in A, outside in B
};
inline constexpr size_t kHloChangeKindCount = 7;
// "opcode", "shape", "layout", "operands", "attributes", "fused-into", "fused-out-of".
const char* hloChangeKindName(HloChangeKind kind);
inline constexpr uint16_t hloChangeBit(HloChangeKind kind) { return uint16_t(1u << unsigned(kind)); }

// Which stages run; all by default (turning one off shows what the others find alone).
struct HloDiffOptions
{
    std::array<bool, kHloMatchStageCount> stages { false, true, true, true, true, true };
    ProgressSink* progress = nullptr; // optional; cancellable
};

// A matched pair: instruction positions in HloModule::instructions of A and of B.
struct HloDiffPair
{
    uint32_t a = 0;
    uint32_t b = 0;
    uint16_t kinds = 0; // hloChangeBit()s; 0 = unchanged
    HloMatchStage stage = HloMatchStage::None;

    bool has(HloChangeKind kind) const { return (kinds & hloChangeBit(kind)) != 0; }
};

// One row per computation of A or B: a computation of A paired with the computation of B that
// holds most of its instructions' matches (then by name), or alone.
struct HloComputationDiff
{
    int32_t a = -1; // position in A's computations, -1 = only in B
    int32_t b = -1; // position in B's computations, -1 = only in A
    bool fusion = false; // a fused computation on either side
    bool reachable = true; // reached from the entry (both sides alike: §2.5 of docs/diff.md)
    uint32_t instructionsA = 0;
    uint32_t instructionsB = 0;
    uint32_t unchanged = 0; // pairs inside this pair of computations without a change
    uint32_t changed = 0; // pairs inside this pair of computations with a change
    uint32_t removed = 0; // instructions of A here without a match
    uint32_t added = 0; // instructions of B here without a match
    uint32_t movedOut = 0; // instructions of A here matched into another computation of B
    uint32_t movedIn = 0; // instructions of B here matched from another computation of A
};

struct HloDiff
{
    size_t instructionsA = 0;
    size_t instructionsB = 0;
    // Per instruction: the position of its match on the other side, -1 when it has none, and the
    // index of its pair in `pairs` (-1 when none).
    std::vector<int32_t> matchOfA;
    std::vector<int32_t> matchOfB;
    std::vector<int32_t> pairOfA;
    std::vector<int32_t> pairOfB;
    std::vector<HloDiffPair> pairs; // in A's order
    std::vector<uint32_t> changed; // indices into pairs with kinds != 0, in A's order
    std::array<std::vector<uint32_t>, kHloChangeKindCount> byKind; // indices into pairs, per kind
    std::vector<uint32_t> removed; // positions in A without a match, in A's order
    std::vector<uint32_t> added; // positions in B without a match, in B's order
    std::array<size_t, kHloMatchStageCount> matchedByStage {};
    std::vector<HloComputationDiff> computations; // A's order, then B's computations alone

    size_t matched() const { return pairs.size(); }
    size_t unchanged() const { return pairs.size() - changed.size(); }
    // No instruction added, removed or changed (names may differ).
    bool same() const { return changed.empty() && added.empty() && removed.empty(); }
};

// Matches and classifies; deterministic. Linear in the modules' sizes but for the hash maps (two
// 200 000-instruction modules: docs/benchmarks.md). Throws Cancelled when the progress sink asks.
HloDiff diffHloModules(const HloModule& a, const HloModule& b, const HloDiffOptions& options = {});

} // namespace tgraph
