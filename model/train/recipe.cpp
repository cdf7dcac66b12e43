// SPDX-License-Identifier: Apache-2.0
#include "model/train/recipe.h"

#include "model/infer/explainsimulator.h"

#include "core/graph/graphio.h"

#include <algorithm>

namespace tgraph::model {

Recipe chooseRecipe(const DataDescription& d)
{
    Recipe r;
    if (d.kind == GraphKind::Tile || d.trainGraphs > kFewGraphs || d.maxConfigs > kFewConfigs) {
        r.name = "collection";
        r.why = d.kind == GraphKind::Tile
            ? "tile data: the paper's settings (17.5 epochs, lr 1e-3)"
            : std::to_string(d.trainGraphs) + " training graphs, up to " + std::to_string(d.maxConfigs)
                + " configs each: a collection, the paper's settings (750 epochs, lr 1e-3)";
        return r;
    }
    // docs/benchmarks.md §17: on the real tuning record, lr 3e-3 for 75 epochs beat the defaults, and
    // the ensemble of three such runs beat every single run and was above the simulator on every fold.
    r.name = "tuning-record";
    r.learningRate = 3e-3;
    r.epochs = 75;
    r.seeds = 3;
    // With a module known the simulator's estimates are inputs too: ensembles of three such runs
    // reached 0.407 (three seed triples; 0.431 with seeds 42-44 where the ones without them reached
    // 0.379), each above the simulator on every fold (docs/benchmarks.md §17).
    r.simInputs = d.graphsWithModule > 0 && d.inMemory;
    r.why = std::to_string(d.trainGraphs) + " training graph" + (d.trainGraphs == 1 ? "" : "s") + " with at most "
        + std::to_string(d.maxConfigs) + " configs: lr 3e-3, 75 epochs, 3 seeds as one ensemble"
        + (r.simInputs ? ", simulator inputs (" + std::to_string(d.graphsWithModule) + " of "
                    + std::to_string(d.trainGraphs) + " graphs' modules known)"
                       : std::string())
        + " (docs/benchmarks.md §17)";
    return r;
}

DataDescription describeData(const TrainingData& data)
{
    DataDescription d;
    d.kind = data.kind;
    const std::vector<size_t> train = data.indicesOf(DataSplit::Train);
    d.trainGraphs = int64_t(train.size());
    for (size_t i : train)
        d.maxConfigs = std::max(d.maxConfigs, data.graphs[i].configCount());
    for (const TrainingGraph& g : data.graphs)
        d.inMemory = d.inMemory && g.resident;
    if (d.kind == GraphKind::Layout && d.trainGraphs <= kFewGraphs)
        for (size_t i : train) {
            std::string source, why;
            try {
                if (moduleOfGraphFile(loadLayoutGraph(data.graphs[i].path), data.graphs[i].path, &source, &why))
                    ++d.graphsWithModule;
            } catch (const std::exception&) {
                // A module file that is not the graph's: pretraining, if chosen, names it.
            }
        }
    return d;
}

void applyRecipe(const Recipe& recipe, TrainOptions* options, PretrainOptions* pretrain)
{
    options->learningRate = recipe.learningRate;
    if (recipe.epochs > 0 && options->steps == 0)
        options->epochs = recipe.epochs;
    pretrain->simLayouts = recipe.pretrainSim;
    options->model.simInputs = options->model.simInputs || recipe.simInputs;
}

} // namespace tgraph::model
