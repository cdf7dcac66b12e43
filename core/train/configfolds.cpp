// SPDX-License-Identifier: Apache-2.0
#include "configfolds.h"

#include "core/train/kfold.h"
#include "core/util/error.h"

#include <algorithm>

namespace tgraph {

namespace {

// The graph with only the configurations `rows` (in their order).
TrainingGraph withConfigs(const TrainingGraph& g, const std::vector<int64_t>& rows)
{
    TrainingGraph out = g;
    std::vector<int64_t> shape = g.configs.shape();
    shape[0] = int64_t(rows.size());
    NdArray<int32_t> configs(shape);
    NdArray<int64_t> runtime({ int64_t(rows.size()) });
    for (size_t k = 0; k < rows.size(); ++k) {
        std::copy_n(g.configs.row(rows[k]), g.configs.rowSize(), configs.row(int64_t(k)));
        runtime[int64_t(k)] = g.layout.configRuntime[rows[k]];
    }
    out.configs = std::move(configs);
    out.layout.configRuntime = std::move(runtime);
    return out;
}

} // namespace

void holdOutConfigFold(TrainingData& data, const ConfigFoldOptions& options)
{
    if (options.folds < 2)
        return;
    std::vector<TrainingGraph> train, held;
    for (TrainingGraph& g : data.graphs) {
        if (g.split != DataSplit::Train) {
            data.skipped.push_back(
                g.path + ": a valid-split file is not used with --config-folds (validation is the held-out configurations)");
            continue;
        }
        if (g.kind != GraphKind::Layout)
            throw InputError(g.path, "config_runtime", "--config-folds splits layout graphs only (a tile graph)");
        const int64_t count = g.configCount();
        if (count < 2 * int64_t(options.folds))
            throw InputError(g.path, "config_runtime",
                std::to_string(count) + " configurations after de-duplication: --config-folds "
                    + std::to_string(options.folds) + " needs at least " + std::to_string(2 * options.folds));
        const std::vector<int> assignment = kfoldAssignment(count, options.folds, options.seed);
        std::vector<int64_t> kept, out;
        for (int64_t c = 0; c < count; ++c)
            (assignment[size_t(c)] == options.fold ? out : kept).push_back(c);
        TrainingGraph v = withConfigs(g, out);
        v.split = DataSplit::Valid;
        v.name += " [held-out fold " + std::to_string(options.fold) + "/" + std::to_string(options.folds) + "]";
        v.duplicatesRemoved = 0;
        held.push_back(std::move(v));
        train.push_back(withConfigs(g, kept));
    }
    data.graphs = std::move(train);
    for (TrainingGraph& v : held)
        data.graphs.push_back(std::move(v));
}

} // namespace tgraph
