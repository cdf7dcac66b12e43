// SPDX-License-Identifier: Apache-2.0
#include "model/infer/siminputs.h"

#include "model/infer/explainsimulator.h"

#include "core/sim/siminputs.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <vector>

namespace tgraph::model {

GraphSimulator simulatorOfGraphFile(const LayoutGraph& graph, const std::string& path, std::string* why)
{
    GraphSimulator out;
    out.module = moduleOfGraphFile(graph, path, &out.source, why);
    if (!out.module)
        return out;
    const std::vector<int64_t> ids(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.nodeConfigIds.size());
    out.simulator = std::make_unique<LayoutSimulator>(*out.module, ids, simulatorParamsOf(graph, "", path));
    return out;
}

bool attachSimulatorInputs(LayoutGraph& graph, const std::string& path, std::string* why, ProgressSink* progress)
{
    const GraphSimulator sim = simulatorOfGraphFile(graph, path, why);
    if (!sim.simulator) {
        graph.simInputs = unpricedSimInputs(graph.configCount(), graph.configurableCount());
        return false;
    }
    ProgressScope scope(progress, "simulator inputs", uint64_t(graph.configCount()));
    graph.simInputs = simulatorInputs(*sim.simulator, graph.nodeConfigFeat, &scope);
    return true;
}

std::string attachSimulatorInputsFor(bool modelsTakeThem, LayoutGraph& graph, const std::string& path,
    const std::shared_ptr<const HloModule>& module, ProgressSink* progress)
{
    if (!modelsTakeThem) {
        graph.simInputs = NdArray<float>();
        return {};
    }
    if (module) {
        const std::vector<int64_t> ids(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.nodeConfigIds.size());
        const LayoutSimulator simulator(*module, ids, simulatorParamsOf(graph, "", path));
        ProgressScope scope(progress, "simulator inputs", uint64_t(graph.configCount()));
        graph.simInputs = simulatorInputs(simulator, graph.nodeConfigFeat, &scope);
        return path;
    }
    std::string why;
    return attachSimulatorInputs(graph, path, &why, progress) ? std::string("priced") : "unpriced: " + why;
}

} // namespace tgraph::model
