// SPDX-License-Identifier: Apache-2.0
#include "model/train/siminputdata.h"

#include "model/infer/siminputs.h"

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <map>
#include <memory>

namespace tgraph::model {

std::vector<std::string> attachSimulatorInputs(TrainingData& data, ProgressSink* progress)
{
    std::vector<std::string> unknown;
    if (data.kind != GraphKind::Layout) {
        const std::string first = data.graphs.empty() ? std::string("--data") : data.graphs.front().path;
        throw InputError(first, "--sim-inputs", "the simulator prices layout configurations; this is tile data");
    }
    std::map<std::string, std::shared_ptr<GraphSimulator>> simulators; // per file: config folds split one file in two
    ProgressScope scope(progress, "simulator inputs", uint64_t(data.graphs.size()));
    for (TrainingGraph& g : data.graphs) {
        if (!g.resident)
            throw InputError(g.path, "--sim-inputs", "simulator inputs need the graphs in memory (without --resident-graphs)");
        auto [it, added] = simulators.try_emplace(g.path);
        if (added) {
            const LayoutGraph file = loadLayoutGraph(g.path); // unpruned: node i = instruction i
            std::string why;
            it->second = std::make_shared<GraphSimulator>(simulatorOfGraphFile(file, g.path, &why));
            if (!it->second->simulator)
                unknown.push_back(g.path + ": " + why);
        }
        g.simInputs = priceConfigRows(it->second.get(), decompressConfigs(g.configs, g.path));
        scope.advanceBy(1);
    }
    return unknown;
}

} // namespace tgraph::model
