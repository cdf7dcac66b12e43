// SPDX-License-Identifier: Apache-2.0
#include "core/synth/simulatedgraph.h"

#include "core/hlo/featurizer.h"
#include "core/synth/synthcollection.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>

namespace tgraph {

SimulatedGraph simulateModuleGraph(const ModuleTuningData& data, const std::string& file, int64_t count,
    LayoutSampler sampler, uint64_t seed, const SimulatorParams& params)
{
    const std::string name(data.module.name);
    if (collectionOf(data) == GraphKind::Tile)
        throw InputError(file, "module " + name, "holds tile-size runs; simulate prices layout configurations");
    SimulatedGraph out;
    LayoutGraph& graph = out.graph;
    if (!data.runs.empty()) {
        // Measured configurations: price them (the analytical baseline).
        out.measuredConfigs = true;
        graph = featurizeLayout(data, file);
        const std::vector<int64_t> ids(
            graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.configurableCount());
        const LayoutSimulator sim(data.module, ids, params);
        for (int64_t c = 0; c < graph.configCount(); ++c) {
            out.measuredNs.push_back(double(graph.configRuntime[c]));
            out.simulatedNs.push_back(sim.runtime(graph.nodeConfigFeat.row(c)));
            graph.configRuntime[c] = std::max<int64_t>(1, std::llround(out.simulatedNs.back()));
        }
    } else {
        const std::vector<int64_t> configurable = defaultConfigurableNodes(data.module);
        if (configurable.empty())
            throw InputError(
                file, "module " + name, "has no configurable node (convolution, dot or reshape) to simulate");
        const LayoutSimulator sim(data.module, configurable, params);
        const NdArray<float> configs = sampleLayoutConfigs(layoutChoices(data.module, configurable), count, sampler,
            seed, file, uint64_t(8) << 30, [&](const float* row) { return sim.runtime(row); });
        std::vector<bool> failed;
        const std::vector<int64_t> ns = sim.measure(configs, seed, &failed);
        graph = featurizeLayout(data, file); // graph-only: structure and configurable nodes
        int64_t kept = 0;
        for (int64_t c = 0; c < configs.dim(0); ++c)
            kept += !failed[size_t(c)];
        NdArray<float> feat({ kept, graph.configurableCount(), kLayoutConfigFeatures });
        NdArray<int64_t> runtime({ kept });
        for (int64_t c = 0, j = 0; c < configs.dim(0); ++c) {
            if (failed[size_t(c)])
                continue;
            std::copy_n(configs.row(c), configs.rowSize(), feat.row(j));
            runtime[j++] = ns[size_t(c)];
        }
        graph.nodeConfigFeat = std::move(feat);
        graph.configRuntime = std::move(runtime);
        setPublishedStorage(graph);
        out.sampled = configs.dim(0);
        out.failed = configs.dim(0) - kept;
        out.defaultNs = ns[0];
    }
    graph.syntheticMeta = syntheticMetaJson(
        "tgraph simulate", name, data.runs.empty() ? layoutSamplerName(sampler) : "measured configs", seed, params);
    return out;
}

} // namespace tgraph
