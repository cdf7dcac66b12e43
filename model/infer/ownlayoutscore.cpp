// SPDX-License-Identifier: Apache-2.0
#include "model/infer/ownlayoutscore.h"

#include "core/graph/prune.h"
#include "core/sim/ownlayouts.h"
#include "core/util/error.h"

namespace tgraph::model {

double scoreOwnLayouts(
    std::vector<EnsembleMember>& members, const HloModule& module, const std::string& file, const FeaturizeOptions& options)
{
    if (!members.empty() && members.front().kind != GraphKind::Layout)
        throw InputError(members.front().path, "",
            "is a tile model; a diff's modules are scored at their own layouts, which needs a layout model");
    const LayoutGraph graph = featurizeOwnLayouts(module, file, options);
    const PrunedGraph pruned = pruneToConfigurable(graph, file);
    const GraphScores scores = scoreLayoutGraph(members, pruned.graph, file, InferenceOptions {});
    return double(scores.scores.at(size_t(kOwnLayoutConfig)));
}

} // namespace tgraph::model
