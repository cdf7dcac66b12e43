// SPDX-License-Identifier: Apache-2.0
// `tgraph diff A B --weights W` (docs/diff.md §11): `tgraph` hands the command to tgraph-model,
// which runs the same diff with this scorer: each module at its own layouts (core/sim/ownlayouts.h),
// pruned as training does, scored by the layout model or ensemble.

#include "app/cli/commands.h"
#include "app/modelcli/precisionoption.h"

#include "model/infer/inference.h"
#include "model/infer/ownlayoutscore.h"
#include "model/runtime/torchruntime.h"

#include "core/hlo/hlomodule.h"

namespace tgraph::cli {

namespace {

HloDiffModelScore scoreDiff(const DiffModelRequest& request)
{
    model::initTorchRuntime();
    applyPrecision(request.precision);
    std::vector<model::EnsembleMember> members = model::loadEnsemble(model::expandWeightsArguments(request.weights));
    HloDiffModelScore out;
    out.weights = request.weights;
    out.model = members.front().modelName() + " (" + model::describe(members.front().options()) + ")";
    if (members.size() > 1)
        out.model += ", ensemble of " + std::to_string(members.size());
    out.repad = request.repad;
    FeaturizeOptions options;
    options.repad = request.repad;
    out.a = model::scoreOwnLayouts(members, *request.a, request.labelA, options);
    out.b = model::scoreOwnLayouts(members, *request.b, request.labelB, options);
    return out;
}

} // namespace

int runDiffWithModel(const std::vector<std::string>& args)
{
    setDiffModelScorer(scoreDiff);
    return runDiff(args);
}

} // namespace tgraph::cli
