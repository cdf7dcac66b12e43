// SPDX-License-Identifier: Apache-2.0
#include "model/infer/ownlayoutscore.h"

#include "core/graph/prune.h"
#include "core/sim/ownlayouts.h"
#include "core/sim/siminputs.h"
#include "core/util/error.h"

namespace tgraph::model {

double scoreOwnLayouts(
    std::vector<EnsembleMember>& members, const HloModule& module, const std::string& file, const FeaturizeOptions& options)
{
    if (!members.empty() && members.front().kind != GraphKind::Layout)
        throw InputError(members.front().path, "",
            "is a tile model; a diff's modules are scored at their own layouts, which needs a layout model");
    LayoutGraph graph = featurizeOwnLayouts(module, file, options);
    if (takesSimInputs(members)) { // the module is at hand: the simulator prices both rows (docs/model.md §4.9)
        const std::vector<int64_t> ids(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.configurableCount());
        graph.simInputs = simulatorInputs(LayoutSimulator(module, ids), graph.nodeConfigFeat);
    }
    const PrunedGraph pruned = pruneToConfigurable(graph, file);
    const GraphScores scores = scoreLayoutGraph(members, pruned.graph, file, InferenceOptions {});
    return double(scores.scores.at(size_t(kOwnLayoutConfig)));
}

} // namespace tgraph::model
