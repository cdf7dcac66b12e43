// SPDX-License-Identifier: Apache-2.0
#include "core/diff/hlodiff.h"

#include "core/diff/diffgraph.h"
#include "core/diff/instructionmatcher.h"
#include "core/util/progress.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace tgraph {

const char* hloMatchStageName(HloMatchStage stage)
{
    switch (stage) {
    case HloMatchStage::None:
        return "none";
    case HloMatchStage::Name:
        return "name";
    case HloMatchStage::Metadata:
        return "metadata";
    case HloMatchStage::Subgraph:
        return "subgraph";
    case HloMatchStage::TopDown:
        return "top-down";
    case HloMatchStage::BottomUp:
        return "bottom-up";
    }
    return "?";
}

const char* hloChangeKindName(HloChangeKind kind)
{
    switch (kind) {
    case HloChangeKind::Opcode:
        return "opcode";
    case HloChangeKind::Shape:
        return "shape";
    case HloChangeKind::Layout:
        return "layout";
    case HloChangeKind::Operands:
        return "operands";
    case HloChangeKind::Attributes:
        return "attributes";
    case HloChangeKind::FusedInto:
        return "fused-into";
    case HloChangeKind::FusedOutOf:
        return "fused-out-of";
    }
    return "?";
}

namespace {

bool sameSpan(const HloModule& a, IntSpan x, const HloModule& b, IntSpan y)
{
    return std::ranges::equal(a.span(x), b.span(y));
}

template <class T, class Eq>
bool sameRun(const std::vector<T>& a, uint32_t offsetA, uint32_t countA, const std::vector<T>& b, uint32_t offsetB,
    uint32_t countB, Eq eq)
{
    if (countA != countB)
        return false;
    if (size_t(offsetA) + countA > a.size() || size_t(offsetB) + countB > b.size())
        return false;
    for (uint32_t k = 0; k < countA; ++k)
        if (!eq(a[offsetA + k], b[offsetB + k]))
            return false;
    return true;
}

// Attributes kept as text, but the op metadata (source lines move with every edit of the program).
std::vector<std::pair<std::string_view, std::string_view>> textAttributes(
    const HloModule& m, const HloInstructionDetails& d)
{
    std::vector<std::pair<std::string_view, std::string_view>> out;
    for (uint32_t k = 0; k < d.attributeCount && size_t(d.attributeOffset) + k < m.attributes.size(); ++k) {
        const HloAttribute& attribute = m.attributes[d.attributeOffset + k];
        if (attribute.name != "metadata")
            out.emplace_back(attribute.name, attribute.value);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Attributes kept as text are compared only between two text modules: the protobuf reader decodes
// the fields the featurizer needs and keeps no text (docs/diff.md §3).
bool sameAttributes(const HloModule& ma, const HloInstruction& a, const HloModule& mb, const HloInstruction& b)
{
    if (!sameSpan(ma, a.dimensions, mb, b.dimensions) || a.featureGroupCount != b.featureGroupCount
        || a.batchGroupCount != b.batchGroupCount || a.isStable != b.isStable)
        return false;
    if (a.opcode == "parameter" && b.opcode == "parameter" && a.parameterNumber != b.parameterNumber)
        return false;
    if (a.details < 0 && b.details < 0)
        return true;
    const HloInstructionDetails& x = ma.detailsOf(a);
    const HloInstructionDetails& y = mb.detailsOf(b);
    const bool windows = sameRun(ma.windowDims, x.windowOffset, x.windowCount, mb.windowDims, y.windowOffset,
        y.windowCount, [](const HloWindowDimension& p, const HloWindowDimension& q) {
            return p.size == q.size && p.stride == q.stride && p.paddingLow == q.paddingLow
                && p.paddingHigh == q.paddingHigh && p.windowDilation == q.windowDilation
                && p.baseDilation == q.baseDilation && p.reversal == q.reversal;
        });
    if (!windows)
        return false;
    if ((x.convolutionDims >= 0) != (y.convolutionDims >= 0) || (x.dotDims >= 0) != (y.dotDims >= 0))
        return false;
    if (x.convolutionDims >= 0) {
        if (size_t(x.convolutionDims) >= ma.convolutionDims.size()
            || size_t(y.convolutionDims) >= mb.convolutionDims.size())
            return false;
        const HloConvolutionDims& p = ma.convolutionDims[size_t(x.convolutionDims)];
        const HloConvolutionDims& q = mb.convolutionDims[size_t(y.convolutionDims)];
        if (p.inputBatch != q.inputBatch || p.inputFeature != q.inputFeature
            || p.kernelInputFeature != q.kernelInputFeature || p.kernelOutputFeature != q.kernelOutputFeature
            || p.outputBatch != q.outputBatch || p.outputFeature != q.outputFeature
            || !sameSpan(ma, p.inputSpatial, mb, q.inputSpatial) || !sameSpan(ma, p.kernelSpatial, mb, q.kernelSpatial)
            || !sameSpan(ma, p.outputSpatial, mb, q.outputSpatial))
            return false;
    }
    if (x.dotDims >= 0) {
        if (size_t(x.dotDims) >= ma.dotDims.size() || size_t(y.dotDims) >= mb.dotDims.size())
            return false;
        const HloDotDims& p = ma.dotDims[size_t(x.dotDims)];
        const HloDotDims& q = mb.dotDims[size_t(y.dotDims)];
        if (!sameSpan(ma, p.lhsContracting, mb, q.lhsContracting)
            || !sameSpan(ma, p.rhsContracting, mb, q.rhsContracting) || !sameSpan(ma, p.lhsBatch, mb, q.lhsBatch)
            || !sameSpan(ma, p.rhsBatch, mb, q.rhsBatch))
            return false;
    }
    const bool slices = sameRun(ma.slices, x.sliceOffset, x.sliceCount, mb.slices, y.sliceOffset, y.sliceCount,
        [](const HloSliceDimension& p, const HloSliceDimension& q) {
            return p.start == q.start && p.limit == q.limit && p.stride == q.stride;
        });
    const bool paddings = sameRun(ma.paddings, x.paddingOffset, x.paddingCount, mb.paddings, y.paddingOffset,
        y.paddingCount, [](const HloPaddingDimension& p, const HloPaddingDimension& q) {
            return p.low == q.low && p.high == q.high && p.interior == q.interior;
        });
    if (!slices || !paddings || !sameSpan(ma, x.dynamicSliceSizes, mb, y.dynamicSliceSizes))
        return false;
    if (ma.format != HloSourceFormat::Text || mb.format != HloSourceFormat::Text)
        return true;
    return textAttributes(ma, x) == textAttributes(mb, y);
}

// Pairs computations (docs/diff.md §3.2): the entries; then equal names, unless the matches of
// their instructions all lie elsewhere; then by the votes of their instructions' matches (most
// first); then the equal names left. A live computation never pairs with one left behind.
std::vector<int32_t> pairComputations(const HloDiffGraph& A, const HloDiffGraph& B, const HloMatching& m)
{
    const HloModule& ma = A.module();
    const HloModule& mb = B.module();
    const size_t ca = ma.computations.size(), cb = mb.computations.size();
    std::unordered_map<uint64_t, uint32_t> votes;
    std::vector<uint32_t> votesOfA(ca, 0), votesOfB(cb, 0);
    for (uint32_t a = 0; a < A.size(); ++a)
        if (m.matchOfA[a] >= 0) {
            const uint32_t x = A.computationOf(a), y = B.computationOf(uint32_t(m.matchOfA[a]));
            ++votes[uint64_t(x) << 32 | y];
            ++votesOfA[x];
            ++votesOfB[y];
        }
    std::vector<int32_t> pairOfA(ca, -1);
    std::vector<bool> takenB(cb, false);
    auto pair = [&](size_t x, size_t y) {
        if (A.liveComputation(uint32_t(x)) != B.liveComputation(uint32_t(y)))
            return;
        pairOfA[x] = int32_t(y);
        takenB[y] = true;
    };
    const int64_t entryA = ca ? ma.entryIndex() : -1, entryB = cb ? mb.entryIndex() : -1;
    if (entryA >= 0 && entryB >= 0)
        pair(size_t(entryA), size_t(entryB));
    std::unordered_map<std::string_view, uint32_t> byName;
    for (size_t y = 0; y < cb; ++y)
        byName.emplace(mb.computations[y].name, uint32_t(y));
    for (const bool evidence : { true, false }) {
        for (size_t x = 0; x < ca; ++x) {
            const auto it = byName.find(ma.computations[x].name);
            if (pairOfA[x] >= 0 || it == byName.end() || takenB[it->second])
                continue;
            const auto v = votes.find(uint64_t(x) << 32 | it->second);
            const bool agrees = v != votes.end() || (votesOfA[x] == 0 && votesOfB[it->second] == 0);
            if (agrees || !evidence)
                pair(x, it->second);
        }
        if (!evidence)
            break;
        std::vector<std::pair<uint32_t, uint64_t>> order;
        order.reserve(votes.size());
        for (const auto& [key, count] : votes)
            order.emplace_back(count, key);
        std::sort(order.begin(), order.end(),
            [](const auto& p, const auto& q) { return p.first != q.first ? p.first > q.first : p.second < q.second; });
        for (const auto& [count, key] : order) {
            const uint32_t x = uint32_t(key >> 32), y = uint32_t(key);
            if (pairOfA[x] < 0 && !takenB[y])
                pair(x, y);
        }
    }
    return pairOfA;
}

} // namespace

HloDiff diffHloModules(const HloModule& a, const HloModule& b, const HloDiffOptions& options)
{
    const HloDiffGraph A(a), B(b);
    const HloMatching m = matchInstructions(A, B, options);
    ProgressScope progress(options.progress, "classifying changes", 2);

    HloDiff d;
    d.instructionsA = A.size();
    d.instructionsB = B.size();
    d.matchOfA = m.matchOfA;
    d.matchOfB = m.matchOfB;
    d.pairOfA.assign(A.size(), -1);
    d.pairOfB.assign(B.size(), -1);

    const std::vector<int32_t> computationPair = pairComputations(A, B, m);
    for (uint32_t x = 0; x < A.size(); ++x) {
        const int32_t match = m.matchOfA[x];
        if (match < 0) {
            d.removed.push_back(x);
            continue;
        }
        const uint32_t y = uint32_t(match);
        HloDiffPair pair { x, y, 0, m.stageOfA[x] };
        const HloInstruction& ia = A.instruction(x);
        const HloInstruction& ib = B.instruction(y);
        if (ia.opcode != ib.opcode)
            pair.kinds |= hloChangeBit(HloChangeKind::Opcode);
        if (!sameShapeIgnoringLayout(a, ia.shape, b, ib.shape))
            pair.kinds |= hloChangeBit(HloChangeKind::Shape);
        else if (!sameLayout(a, ia.shape, b, ib.shape))
            pair.kinds |= hloChangeBit(HloChangeKind::Layout);
        const auto fa = A.flowOperands(x);
        const auto fb = B.flowOperands(y);
        bool operands = fa.size() != fb.size();
        for (size_t k = 0; k < fa.size() && !operands; ++k)
            operands = m.matchOfA[fa[k]] != int32_t(fb[k]);
        if (operands)
            pair.kinds |= hloChangeBit(HloChangeKind::Operands);
        if (!sameAttributes(a, ia, b, ib))
            pair.kinds |= hloChangeBit(HloChangeKind::Attributes);
        const bool fusedA = A.inFusion(x), fusedB = B.inFusion(y);
        if (fusedB && (!fusedA || computationPair[A.computationOf(x)] != int32_t(B.computationOf(y))))
            pair.kinds |= hloChangeBit(HloChangeKind::FusedInto);
        else if (fusedA && !fusedB)
            pair.kinds |= hloChangeBit(HloChangeKind::FusedOutOf);
        ++d.matchedByStage[size_t(pair.stage)];
        const uint32_t index = uint32_t(d.pairs.size());
        d.pairOfA[x] = int32_t(index);
        d.pairOfB[y] = int32_t(index);
        if (pair.kinds) {
            d.changed.push_back(index);
            for (size_t k = 0; k < kHloChangeKindCount; ++k)
                if (pair.has(HloChangeKind(k)))
                    d.byKind[k].push_back(index);
        }
        d.pairs.push_back(pair);
        if ((x & 16383) == 0)
            progress.advanceTo(0); // a cancellation point
    }
    for (uint32_t y = 0; y < B.size(); ++y)
        if (m.matchOfB[y] < 0)
            d.added.push_back(y);
    progress.advanceTo(1);

    // One row per computation of A (with its pair), then B's computations without one.
    std::vector<int32_t> rowOfA(a.computations.size(), -1), rowOfB(b.computations.size(), -1);
    for (size_t c = 0; c < a.computations.size(); ++c) {
        HloComputationDiff row;
        row.a = int32_t(c);
        row.b = computationPair[c];
        rowOfA[c] = int32_t(d.computations.size());
        if (row.b >= 0)
            rowOfB[size_t(row.b)] = rowOfA[c];
        d.computations.push_back(row);
    }
    for (size_t c = 0; c < b.computations.size(); ++c)
        if (rowOfB[c] < 0) {
            HloComputationDiff row;
            row.b = int32_t(c);
            rowOfB[c] = int32_t(d.computations.size());
            d.computations.push_back(row);
        }
    for (HloComputationDiff& row : d.computations) {
        row.fusion = (row.a >= 0 && A.fused(uint32_t(row.a))) || (row.b >= 0 && B.fused(uint32_t(row.b)));
        row.reachable = row.a >= 0 ? A.liveComputation(uint32_t(row.a)) : B.liveComputation(uint32_t(row.b));
    }
    for (uint32_t x = 0; x < A.size(); ++x) {
        HloComputationDiff& row = d.computations[size_t(rowOfA[A.computationOf(x)])];
        ++row.instructionsA;
        if (m.matchOfA[x] < 0)
            ++row.removed;
        else if (rowOfB[B.computationOf(uint32_t(m.matchOfA[x]))] != rowOfA[A.computationOf(x)])
            ++row.movedOut;
        else if (d.pairs[size_t(d.pairOfA[x])].kinds)
            ++row.changed;
        else
            ++row.unchanged;
    }
    for (uint32_t y = 0; y < B.size(); ++y) {
        HloComputationDiff& row = d.computations[size_t(rowOfB[B.computationOf(y)])];
        ++row.instructionsB;
        if (m.matchOfB[y] < 0)
            ++row.added;
        else if (rowOfA[A.computationOf(uint32_t(m.matchOfB[y]))] != rowOfB[B.computationOf(y)])
            ++row.movedIn;
    }
    progress.advanceTo(2);
    return d;
}

} // namespace tgraph
