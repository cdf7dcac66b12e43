// SPDX-License-Identifier: Apache-2.0
#include "core/synth/simulatedlayouts.h"

#include "core/synth/synthcollection.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>

namespace tgraph {

LayoutGraph simulatedLayouts(const LayoutGraph& graph, const HloModule& module, const std::string& file, int64_t count,
    LayoutSampler sampler, uint64_t seed, const SimulatorParams& params)
{
    if (graph.configurableCount() == 0)
        throw InputError(file, "node_config_ids", "no configurable node: there is no layout to simulate");
    if (count < 2)
        throw InputError(file, "simulated layouts", "at least 2 configurations are needed to rank");
    std::vector<int64_t> ids(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.configurableCount());
    for (size_t k = 0; k < ids.size(); ++k)
        if (ids[k] < 0 || ids[k] >= int64_t(module.instructions.size()))
            throw InputError(file, "node_config_ids[" + std::to_string(k) + "]",
                "node " + std::to_string(ids[k]) + " is not an instruction of module " + std::string(module.name));
    const LayoutSimulator sim(module, ids, params);
    const auto cost = [&](const float* row) { return sim.runtime(row); };
    NdArray<float> configs
        = sampleLayoutConfigs(layoutChoices(module, ids), count, sampler, seed, file, uint64_t(8) << 30, cost);
    NdArray<int64_t> runtime({ configs.dim(0) });
    for (int64_t c = 0; c < configs.dim(0); ++c) {
        const double ns = sim.runtime(configs.row(c));
        runtime[c] = std::isfinite(ns) ? std::max<int64_t>(1, std::llround(ns)) : 1;
    }
    LayoutGraph out;
    out.nodeFeat = graph.nodeFeat;
    out.nodeOpcode = graph.nodeOpcode;
    out.edgeIndex = graph.edgeIndex;
    out.nodeConfigIds = graph.nodeConfigIds;
    out.nodeSplits = graph.nodeSplits;
    out.nodeConfigFeat = std::move(configs);
    out.configRuntime = std::move(runtime);
    setPublishedStorage(out);
    out.syntheticMeta
        = syntheticMetaJson("tgraph train --pretrain-sim", file, layoutSamplerName(sampler), seed, params);
    return out;
}

} // namespace tgraph
