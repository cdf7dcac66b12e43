// SPDX-License-Identifier: Apache-2.0
#pragma once

// The matching stages of docs/diff.md §2, on two modules' data-flow views.

#include "core/diff/diffgraph.h"
#include "core/diff/hlodiff.h"

#include <cstdint>
#include <vector>

namespace tgraph {

struct HloMatching
{
    std::vector<int32_t> matchOfA; // position in B, -1 = none
    std::vector<int32_t> matchOfB; // position in A, -1 = none
    std::vector<HloMatchStage> stageOfA;
};

// Every instruction of A matched to at most one of B and the other way round; the stages that
// options.stages turns off are skipped.
HloMatching matchInstructions(const HloDiffGraph& a, const HloDiffGraph& b, const HloDiffOptions& options);

// Per instruction, a hash of its opcode, shape (layout aside), `dimensions`, parameter number and,
// recursively, of its data-flow operands and called computations' roots: equal hashes mean equal
// subgraphs (docs/diff.md §2.3). Cycles (refused by the readers' verifier) are cut.
std::vector<uint64_t> subgraphHashes(const HloDiffGraph& g, std::vector<uint32_t>* heights = nullptr);

// Element type and dimensions equal (tuples element by element), layouts not looked at.
bool sameShapeIgnoringLayout(const HloModule& a, uint32_t shapeA, const HloModule& b, uint32_t shapeB);
// Shape equal and minor-to-major equal (a shape without a layout has the default, descending one).
bool sameLayout(const HloModule& a, uint32_t shapeA, const HloModule& b, uint32_t shapeB);

} // namespace tgraph
