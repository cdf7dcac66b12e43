// SPDX-License-Identifier: Apache-2.0
// `tgraph diff A B --weights W` (docs/diff.md §11): `tgraph` hands the command to tgraph-model,
// which runs the same diff with this scorer: each module at its own layouts (core/sim/ownlayouts.h),
// pruned as training does, scored by the layout model or ensemble.

#include "app/cli/commands.h"

#include "model/infer/inference.h"
#include "model/runtime/torchruntime.h"

#include "core/graph/prune.h"
#include "core/hlo/hlomodule.h"
#include "core/sim/ownlayouts.h"
#include "core/util/error.h"

namespace tgraph::cli {

namespace {

double scoreSide(
    std::vector<model::EnsembleMember>& members, const HloModule& module, const std::string& label, bool repad)
{
    FeaturizeOptions options;
    options.repad = repad;
    const LayoutGraph graph = featurizeOwnLayouts(module, label, options);
    const PrunedGraph pruned = pruneToConfigurable(graph, label);
    const GraphScores scores = model::scoreLayoutGraph(members, pruned.graph, label, InferenceOptions {});
    return double(scores.scores.at(size_t(kOwnLayoutConfig)));
}

HloDiffModelScore scoreDiff(const DiffModelRequest& request)
{
    model::initTorchRuntime();
    std::vector<model::EnsembleMember> members = model::loadEnsemble(model::expandWeightsArguments(request.weights));
    if (members.front().kind != GraphKind::Layout)
        throw InputError(members.front().path, "",
            "is a tile model; a diff's modules are scored at their own layouts, which needs a layout model");
    HloDiffModelScore out;
    out.weights = request.weights;
    out.model = members.front().modelName() + " (" + model::describe(members.front().options()) + ")";
    if (members.size() > 1)
        out.model += ", ensemble of " + std::to_string(members.size());
    out.repad = request.repad;
    out.a = scoreSide(members, *request.a, request.labelA, request.repad);
    out.b = scoreSide(members, *request.b, request.labelB, request.repad);
    return out;
}

} // namespace

int runDiffWithModel(const std::vector<std::string>& args)
{
    setDiffModelScorer(scoreDiff);
    return runDiff(args);
}

} // namespace tgraph::cli
