// SPDX-License-Identifier: Apache-2.0
#include "model/facade/explanation.h"

#include "model/facade/ensemblemembers.h"
#include "model/infer/explain.h"
#include "model/infer/siminputs.h"

namespace tgraph::facade {

Attribution explainLayoutGraph(Ensemble& models, const LayoutGraph& fileGraph, const PrunedGraph& pruned,
    const std::string& source, const ConfigSelector& a, const ConfigSelector& b,
    const tgraph::ExplainFileOptions& options, std::shared_ptr<const HloModule> module, std::string* moduleNote,
    ProgressSink* progress)
{
    return model::explainLayoutGraph(
        models.members().list, fileGraph, pruned, source, a, b, options, std::move(module), moduleNote, progress);
}

tgraph::EditedScore scoreEditedLayout(Ensemble& models, const PrunedGraph& pruned, int64_t base, int64_t configurable,
    const std::array<float, 18>& values, int64_t batchConfigs, const std::string& source, const LayoutGraph* fileGraph,
    std::shared_ptr<const HloModule> module)
{
    std::shared_ptr<const model::GraphSimulator> simulator;
    if (models.takesSimInputs()) { // docs/model.md §4.9: both configs priced on the graph's module
        std::string why;
        simulator = model::findGraphSimulator(pruned, source, module, fileGraph, &why);
    }
    return model::scoreEditedLayout(
        models.members().list, pruned, base, configurable, values, batchConfigs, source, simulator.get());
}

} // namespace tgraph::facade
