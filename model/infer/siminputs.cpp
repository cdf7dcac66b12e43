// SPDX-License-Identifier: Apache-2.0
#include "model/infer/siminputs.h"

#include "model/infer/explainsimulator.h"

#include "core/graph/graphio.h"
#include "core/sim/siminputs.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <vector>

namespace tgraph::model {

namespace {

// The simulator of `module` over the file graph's configurable nodes `ids`, with the parameters
// recorded in `graph`.
std::shared_ptr<GraphSimulator> onModule(std::shared_ptr<const HloModule> module, const std::vector<int64_t>& ids,
    const LayoutGraph& graph, const std::string& path, std::string source)
{
    auto out = std::make_shared<GraphSimulator>();
    out->simulator = std::make_unique<LayoutSimulator>(*module, ids, simulatorParamsOf(graph, "", path));
    out->module = std::move(module);
    out->source = std::move(source);
    return out;
}

std::vector<int64_t> configurableIds(const LayoutGraph& graph)
{
    return std::vector<int64_t>(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.nodeConfigIds.size());
}

} // namespace

GraphSimulator simulatorOfGraphFile(const LayoutGraph& graph, const std::string& path, std::string* why)
{
    std::string source;
    std::shared_ptr<const HloModule> module = moduleOfGraphFile(graph, path, &source, why);
    if (!module)
        return {};
    return std::move(*onModule(std::move(module), configurableIds(graph), graph, path, std::move(source)));
}

NdArray<float> priceConfigRows(const GraphSimulator* simulator, const NdArray<float>& values, ProgressSink* progress)
{
    if (!simulator || !simulator->simulator)
        return unpricedSimInputs(values.dim(0), values.dim(1));
    ProgressScope scope(progress, "simulator inputs", uint64_t(values.dim(0)));
    return simulatorInputs(*simulator->simulator, values, &scope);
}

std::shared_ptr<const GraphSimulator> findGraphSimulator(const PrunedGraph& pruned, const std::string& path,
    const std::shared_ptr<const HloModule>& module, const LayoutGraph* fileGraph, std::string* why)
{
    if (module) {
        if (fileGraph)
            return onModule(module, configurableIds(*fileGraph), *fileGraph, path, path);
        std::vector<int64_t> ids; // the pruned graph's configurable nodes, back in the file's numbering
        for (const int64_t node : configurableIds(pruned.graph))
            ids.push_back(pruned.newToOld.empty() ? node : pruned.newToOld[size_t(node)]);
        return onModule(module, ids, pruned.graph, path, path);
    }
    LayoutGraph read;
    if (!fileGraph) {
        try {
            read = loadLayoutGraph(path);
            fileGraph = &read;
        } catch (const std::exception& e) {
            *why = e.what();
            return std::make_shared<GraphSimulator>();
        }
    }
    return std::make_shared<GraphSimulator>(simulatorOfGraphFile(*fileGraph, path, why));
}

std::string attachSimulatorInputsFor(bool modelsTakeThem, LayoutGraph& graph, const std::string& path,
    const std::shared_ptr<const HloModule>& module, ProgressSink* progress)
{
    if (!modelsTakeThem) {
        graph.simInputs = NdArray<float>();
        return {};
    }
    std::string why;
    const std::shared_ptr<const GraphSimulator> simulator = findGraphSimulator({}, path, module, &graph, &why);
    graph.simInputs = priceConfigRows(simulator.get(), graph.nodeConfigFeat, progress);
    return simulator->simulator ? simulator->source : "unpriced: " + why;
}

} // namespace tgraph::model
