// SPDX-License-Identifier: Apache-2.0
#include "core/sim/ownlayouts.h"

#include "core/sim/layoutcandidates.h"
#include "core/util/error.h"

#include <algorithm>
#include <unordered_map>

namespace tgraph {

namespace {

constexpr int64_t kSlots = 18;

// Writes the first `pinned` minor-to-major dims of `shape` into out6 (left at -1 without a layout).
void writeLayout(const HloModule& m, const HloShape& shape, int pinned, float* out6)
{
    if (pinned <= 0 || !shape.hasLayout || shape.elementType == PrimitiveType::Tuple)
        return;
    const auto minorToMajor = m.span(shape.minorToMajor);
    if (minorToMajor.size() < size_t(pinned))
        return;
    for (int k = 0; k < pinned && k < 6; ++k)
        out6[k] = float(minorToMajor[size_t(k)]);
}

} // namespace

NdArray<float> ownLayoutRow(const HloModule& m, const std::vector<int64_t>& configurableNodes)
{
    NdArray<float> row({ 1, int64_t(configurableNodes.size()), kSlots }, -1.0f);
    std::unordered_map<int64_t, size_t> position;
    for (size_t i = 0; i < m.instructions.size(); ++i)
        position.emplace(m.instructions[i].id, i);
    const std::vector<NodeLayoutChoices> choices = layoutChoices(m, configurableNodes);
    for (size_t k = 0; k < choices.size(); ++k) {
        const HloInstruction& inst = m.instructions[size_t(choices[k].node)];
        const auto operands = m.span(inst.operandIds);
        float* out = row.data() + int64_t(k) * kSlots;
        for (size_t t = 0; t < choices[k].tensors.size() && t < 3; ++t) {
            const int pinned = choices[k].tensors[t].pinned;
            if (t == 0) {
                writeLayout(m, m.shapes[inst.shape], pinned, out);
                continue;
            }
            if (t - 1 >= operands.size())
                continue;
            const auto it = position.find(operands[t - 1]);
            if (it != position.end())
                writeLayout(m, m.shapes[m.instructions[it->second].shape], pinned, out + 6 * t);
        }
    }
    return row;
}

LayoutGraph featurizeOwnLayouts(const HloModule& module, const std::string& file, const FeaturizeOptions& options)
{
    LayoutGraph g = featurizeLayout(module, file, options);
    const int64_t nc = g.configurableCount();
    if (nc == 0)
        throw InputError(file, "",
            "the module has no convolution, dot or reshape: the layout model has no configurable node to score");
    std::vector<int64_t> nodes(g.nodeConfigIds.data(), g.nodeConfigIds.data() + nc);
    const NdArray<float> own = ownLayoutRow(module, nodes);
    g.nodeConfigFeat = NdArray<float>({ 2, nc, kSlots }, -1.0f);
    std::copy(own.data(), own.data() + nc * kSlots, g.nodeConfigFeat.data() + nc * kSlots);
    g.configRuntime = NdArray<int64_t>({ 2 }, 0);
    g.defaultConfig = 0;
    return g;
}

} // namespace tgraph
