// SPDX-License-Identifier: Apache-2.0
#include "model/infer/siminputs.h"

#include "model/infer/explainsimulator.h"

#include "core/graph/graphio.h"
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

NdArray<float> priceConfigRows(const GraphSimulator* simulator, const NdArray<float>& values)
{
    if (simulator && simulator->simulator)
        return simulatorInputs(*simulator->simulator, values);
    return unpricedSimInputs(values.dim(0), values.dim(1));
}

std::shared_ptr<const GraphSimulator> findGraphSimulator(const PrunedGraph& pruned, const std::string& path,
    const std::shared_ptr<const HloModule>& module, const LayoutGraph* fileGraph, std::string* why)
{
    auto out = std::make_shared<GraphSimulator>();
    LayoutGraph read;
    if (!fileGraph && !module) {
        try {
            read = loadLayoutGraph(path);
            fileGraph = &read;
        } catch (const std::exception& e) {
            *why = e.what();
            return out;
        }
    }
    if (!module) {
        *out = simulatorOfGraphFile(*fileGraph, path, why);
        return out;
    }
    std::vector<int64_t> ids;
    if (fileGraph) {
        ids.assign(fileGraph->nodeConfigIds.data(), fileGraph->nodeConfigIds.data() + fileGraph->nodeConfigIds.size());
    } else {
        for (int64_t k = 0; k < pruned.graph.configurableCount(); ++k) {
            const int64_t node = pruned.graph.nodeConfigIds[k];
            ids.push_back(pruned.newToOld.empty() ? node : pruned.newToOld[size_t(node)]);
        }
    }
    out->module = module;
    out->source = path;
    out->simulator = std::make_unique<LayoutSimulator>(*module, ids, simulatorParamsOf(fileGraph ? *fileGraph : pruned.graph, "", path));
    return out;
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
