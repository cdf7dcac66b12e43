// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/inferencejob.h"

#include "core/graph/graphio.h"
#include "core/graph/prune.h"
#include "core/hlo/featurizer.h"
#include "core/hlo/hlomodule.h"
#include "core/metrics/metrics.h"
#include "core/sim/simulator.h"
#include "core/store/project.h"
#include "core/store/runwriter.h"
#include "core/train/trainingevents.h"
#include "core/util/error.h"
#include "core/util/progress.h"
#include "model/facade/ensemble.h"
#include "model/facade/runtime.h"
#include "widgets/common/formatting.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>

namespace tgraph::studio {

using namespace tgraph::widgets;

using tgraph::GraphKind;
using tgraph::InputError;
using tgraph::NdArray;

namespace {

std::string stemOf(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// Rows `rows` of a (C, ...) array.
template <typename T> NdArray<T> takeRows(const NdArray<T>& a, const std::vector<int64_t>& rows)
{
    std::vector<int64_t> shape = a.shape();
    const int64_t rowSize = a.dim(0) ? a.size() / a.dim(0) : 0;
    shape[0] = int64_t(rows.size());
    NdArray<T> out(shape);
    for (size_t r = 0; r < rows.size(); ++r)
        std::memcpy(out.data() + int64_t(r) * rowSize, a.data() + rows[r] * rowSize, size_t(rowSize) * sizeof(T));
    return out;
}

void fillMetrics(GraphInference& g)
{
    if (std::all_of(g.runtimes.begin(), g.runtimes.end(), [](double r) { return r == 0; }))
        g.runtimes.clear();
    if (!g.hasRuntimes() || g.scores.size() < 2) {
        g.kendallTau = g.opa = g.top5Slowdown = std::nan("");
        return;
    }
    g.kendallTau = tgraph::kendallTauB(g.runtimes, g.scores);
    g.opa = tgraph::orderedPairAccuracy(g.runtimes, g.scores);
    g.top5Slowdown = tgraph::topKSlowdown(g.runtimes, g.scores, 5);
}

std::vector<int64_t> rowsOf(const InferenceRequest& request, int64_t configs, const std::string& path)
{
    if (configs < 2)
        throw InputError(path, "configs",
            "the graph has " + std::to_string(configs)
                + " configuration(s); ranking needs at least 2 (for an HLO module, generate candidates)");
    if (request.configSet == ConfigSetKind::Sample)
        return sampleConfigRows(configs, request.sampleCount, request.seed);
    std::vector<int64_t> rows(size_t(configs), 0);
    std::iota(rows.begin(), rows.end(), 0);
    return rows;
}

GraphInference fromScores(const tgraph::GraphScores& s, const std::vector<int64_t>& configIds)
{
    GraphInference g;
    g.path = s.file;
    g.name = s.name;
    g.simInputs = s.simInputs;
    g.collection = tgraph::collectionIdFromPath(s.file);
    g.kind = s.kind;
    g.nodes = s.nodes;
    g.nodesBeforePruning = s.nodesBeforePruning;
    g.configIds = configIds;
    if (g.configIds.empty()) {
        g.configIds.resize(s.scores.size());
        std::iota(g.configIds.begin(), g.configIds.end(), 0);
    }
    g.scores.assign(s.scores.begin(), s.scores.end());
    g.runtimes.assign(s.runtimes.begin(), s.runtimes.end());
    g.attention = s.attention;
    return g;
}

// A layout graph of the document with the request's config rows.
GraphInference scoreLayoutDocument(tgraph::facade::Ensemble& models, const tgraph::GraphDocument& doc,
    const InferenceRequest& request, tgraph::ProgressSink* progress)
{
    tgraph::LayoutGraph graph = doc.layout;
    if (graph.configurableCount() == 0 && doc.module) {
        const std::vector<int64_t> ids = tgraph::defaultConfigurableNodes(*doc.module);
        graph.nodeConfigIds = NdArray<int64_t>::fromVector({ int64_t(ids.size()) }, ids);
    }
    if (graph.configurableCount() == 0)
        throw InputError(doc.path, "node_config_ids", "the graph has no configurable nodes: there is nothing to rank");
    std::vector<int64_t> rows;
    bool simulated = !graph.syntheticMeta.empty();
    if (request.configSet == ConfigSetKind::Generate) {
        if (!doc.module)
            throw InputError(doc.path, "configs",
                "candidates can only be generated for an HLO module (this file holds no module); pick all or a sample");
        const std::vector<int64_t> ids(
            graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.configurableCount());
        const auto choices = tgraph::layoutChoices(*doc.module, ids);
        tgraph::ProgressScope scope(progress, "generating layout candidates", 0);
        graph.nodeConfigFeat
            = tgraph::sampleLayoutConfigs(choices, request.sampleCount, request.sampler, request.seed, doc.path);
        const int64_t c = graph.nodeConfigFeat.dim(0);
        graph.configRuntime = NdArray<int64_t>({ c }, 0);
        if (request.simulate) {
            const tgraph::LayoutSimulator simulator(*doc.module, ids);
            const int64_t rowSize = graph.configurableCount() * 18;
            for (int64_t r = 0; r < c; ++r)
                graph.configRuntime.data()[r]
                    = std::max<int64_t>(1, std::llround(simulator.runtime(graph.nodeConfigFeat.data() + r * rowSize)));
            simulated = true;
        }
        rows.resize(size_t(c));
        std::iota(rows.begin(), rows.end(), 0);
    } else {
        rows = rowsOf(request, graph.configCount(), doc.path);
        if (int64_t(rows.size()) != graph.configCount()) {
            graph.nodeConfigFeat = takeRows(graph.nodeConfigFeat, rows);
            graph.configRuntime = takeRows(graph.configRuntime, rows);
        }
    }
    if (graph.configCount() < 2)
        throw InputError(doc.path, "configs", "fewer than 2 configurations to rank");
    const int64_t nodesBefore = graph.nodeCount();
    const std::string simInputs = models.attachSimInputs(graph, doc.path, doc.module); // docs/model.md §4.9
    tgraph::PrunedGraph pruned = tgraph::pruneToConfigurable(graph, doc.path);
    tgraph::ProgressScope scope(progress,
        "scoring " + Formatting::count(graph.configCount()).toStdString() + " configs",
        uint64_t(models.inferencePasses(graph.configCount(), request.options)));
    tgraph::GraphScores s = models.scoreLayoutGraph(pruned.graph, doc.path, request.options, &scope);
    s.nodesBeforePruning = nodesBefore;
    s.simInputs = simInputs;
    GraphInference g = fromScores(s, rows);
    g.name = doc.title;
    g.simulated = simulated;
    g.generated = request.configSet == ConfigSetKind::Generate;
    g.configValues = std::move(graph.nodeConfigFeat);
    g.configurableNodes.assign(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.configurableCount());
    g.modelNodeIds = std::move(pruned.newToOld);
    return g;
}

GraphInference scoreTileDocument(tgraph::facade::Ensemble& models, const tgraph::GraphDocument& doc,
    const InferenceRequest& request, tgraph::ProgressSink* progress)
{
    if (request.configSet == ConfigSetKind::Generate)
        throw InputError(
            doc.path, "configs", "candidates are generated for layout graphs of HLO modules, not for tile kernels");
    tgraph::TileGraph graph = doc.tile;
    const std::vector<int64_t> rows = rowsOf(request, graph.configCount(), doc.path);
    if (int64_t(rows.size()) != graph.configCount()) {
        graph.configFeat = takeRows(graph.configFeat, rows);
        graph.configRuntime = takeRows(graph.configRuntime, rows);
        if (graph.configRuntimeNormalizers.size() > 0)
            graph.configRuntimeNormalizers = takeRows(graph.configRuntimeNormalizers, rows);
    }
    tgraph::ProgressScope scope(progress,
        "scoring " + Formatting::count(graph.configCount()).toStdString() + " configs",
        uint64_t(models.inferencePasses(graph.configCount(), request.options)));
    tgraph::GraphScores s = models.scoreTileGraph(graph, doc.path, request.options, &scope);
    s.nodesBeforePruning = s.nodes;
    GraphInference g = fromScores(s, rows);
    g.name = doc.title;
    g.simulated = !graph.syntheticMeta.empty();
    g.configValues = std::move(graph.configFeat);
    return g;
}

void storeInProject(const InferenceRequest& request, InferenceOutcome& outcome)
{
    tgraph::Project project = tgraph::Project::openOrCreate(request.project);
    tgraph::RunStart start;
    start.experiment = request.experiment;
    start.name = request.runName;
    start.commandLine = "tgraph-studio inference";
    const std::string runId = project.startRun(start);
    std::string weights;
    for (const std::string& m : outcome.members)
        weights += (weights.empty() ? "" : ";") + m;
    const char* set = request.configSet == ConfigSetKind::All ? "all"
        : request.configSet == ConfigSetKind::Sample          ? "sample"
                                                              : "generated";
    project.setParams(runId,
        { { "kind", "inference" }, { "weights", weights }, { "config_set", set },
            { "sample_count", std::to_string(request.sampleCount) }, { "seed", std::to_string(request.seed) },
            { "batch_configs", std::to_string(request.options.batchConfigs) },
            { "tta", std::to_string(request.options.tta) }, { "precision", tgraph::facade::productPrecision() } });
    tgraph::RunWriter writer(request.project, runId);
    tgraph::EvalMetrics eval;
    for (const GraphInference& g : outcome.graphs) {
        std::string graphPath = g.path;
        if (request.configSet == ConfigSetKind::Generate) {
            // The candidates exist nowhere else: keep them as a TpuGraphs file beside the run.
            std::filesystem::create_directories(project.runDir(runId));
            graphPath = project.runDir(runId) + "/" + stemOf(g.path) + "_candidates.npz";
            tgraph::LayoutGraph graph = request.document->layout;
            graph.nodeConfigIds
                = NdArray<int64_t>::fromVector({ int64_t(g.configurableNodes.size()) }, g.configurableNodes);
            graph.nodeConfigFeat = g.configValues;
            graph.configRuntime = NdArray<int64_t>({ int64_t(g.scores.size()) }, 0);
            for (size_t r = 0; r < g.runtimes.size(); ++r)
                graph.configRuntime.data()[r] = int64_t(g.runtimes[r]);
            if (g.simulated && graph.syntheticMeta.empty())
                graph.syntheticMeta = "{\"source\":\"tgraph-studio generated candidates\",\"simulated\":true}";
            tgraph::saveLayoutGraph(graph, graphPath);
            project.addArtifact(runId, "candidates", graphPath, 0);
        }
        std::vector<int64_t> runtimes;
        for (const double r : g.runtimes)
            runtimes.push_back(int64_t(r));
        writer.predictions(0, graphPath, g.scores, runtimes, -1, g.configIds);
        if (!g.hasRuntimes())
            continue;
        tgraph::GraphEvalMetrics m;
        m.graph = graphPath;
        m.configs = int64_t(g.scores.size());
        m.kendallTau = g.kendallTau;
        m.opa = g.opa;
        m.top5Slowdown = g.top5Slowdown;
        m.tileScore = std::nan("");
        eval.graphs.push_back(m);
    }
    if (!eval.graphs.empty()) {
        tgraph::summarizeGraphs(eval, false); // as the trainer averages (docs/model.md §7.6)
        eval.seconds = outcome.seconds;
        writer.evalMetrics(eval);
    }
    writer.finish(tgraph::RunStatus::Finished);
    outcome.project = request.project;
    outcome.runId = runId;
}

} // namespace

std::vector<std::string> expandModelFiles(const std::vector<std::string>& weights)
{
    return tgraph::facade::expandWeightsArguments(weights);
}

std::vector<int64_t> sampleConfigRows(int64_t configs, int64_t count, uint64_t seed)
{
    std::vector<int64_t> all(size_t(std::max<int64_t>(configs, 0)));
    std::iota(all.begin(), all.end(), 0);
    if (count <= 0 || count >= configs)
        return all;
    // Partial Fisher-Yates: the first `count` entries are a uniform sample without replacement.
    std::mt19937_64 rng(seed);
    for (int64_t i = 0; i < count; ++i) {
        std::uniform_int_distribution<int64_t> pick(i, configs - 1);
        std::swap(all[size_t(i)], all[size_t(pick(rng))]);
    }
    all.resize(size_t(count));
    std::sort(all.begin(), all.end());
    return all;
}

InferenceOutcome runInference(const InferenceRequest& request, tgraph::ProgressSink* progress)
{
    const auto started = std::chrono::steady_clock::now();
    InferenceOutcome outcome;
    std::vector<std::string> files = expandModelFiles(request.weights);
    if (!request.members.empty()) {
        std::vector<std::string> chosen;
        for (const int m : request.members) {
            if (m < 0 || size_t(m) >= files.size())
                throw std::out_of_range("ensemble member index out of range");
            chosen.push_back(files[size_t(m)]);
        }
        files = chosen;
    }
    tgraph::facade::Ensemble models;
    {
        tgraph::ProgressScope scope(progress, "loading the model", 0);
        models = tgraph::facade::Ensemble::load(files);
    }
    outcome.members = files;
    if (request.document) {
        const tgraph::GraphDocument& doc = *request.document;
        if (models.kind() != doc.kind)
            throw InputError(files.front(), "weights",
                std::string("a ") + (models.kind() == GraphKind::Tile ? "tile" : "layout") + " model cannot score the "
                    + (doc.kind == GraphKind::Tile ? "tile" : "layout") + " graph " + doc.path);
        GraphInference g = doc.kind == GraphKind::Layout ? scoreLayoutDocument(models, doc, request, progress)
                                                         : scoreTileDocument(models, doc, request, progress);
        fillMetrics(g);
        outcome.graphs.push_back(std::move(g));
    } else {
        const std::vector<std::string> graphs = tgraph::facade::listGraphFiles(request.files);
        tgraph::InferenceOptions options = request.options;
        options.attention = false;
        tgraph::ProgressScope scope(progress, "scoring graphs", graphs.size());
        for (const std::string& path : graphs) {
            try {
                GraphInference g = fromScores(models.predictFile(path, options), {});
                fillMetrics(g);
                outcome.graphs.push_back(std::move(g));
            } catch (const InputError& e) {
                outcome.problems.push_back(e.what());
            }
            scope.advanceBy(1);
        }
    }
    for (const GraphInference& g : outcome.graphs)
        if (g.simInputs.rfind("unpriced", 0) == 0)
            outcome.problems.push_back(g.path + ": the model's simulator inputs are " + g.simInputs);
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!request.project.empty())
        storeInProject(request, outcome);
    return outcome;
}

} // namespace tgraph::studio
