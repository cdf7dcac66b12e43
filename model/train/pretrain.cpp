// SPDX-License-Identifier: Apache-2.0
#include "model/train/pretrain.h"

#include "model/infer/explainsimulator.h"
#include "model/train/trainer.h"

#include "core/graph/graphio.h"
#include "core/hlo/hlomodule.h"
#include "core/synth/simulatedlayouts.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <algorithm>
#include <filesystem>

namespace tgraph::model {

namespace {

namespace fs = std::filesystem;

// Forwards the pretraining phase's run events (prefixed) and nothing else: its steps and losses
// are not the measured run's (a project run's metrics start with the measured phase).
class PretrainSink final : public TrainingSink
{
public:
    explicit PretrainSink(TrainingSink* next)
        : m_next(next)
    { }
    void stepMetrics(const StepMetrics& m) override { m_lastLoss = m.loss; }
    void evalMetrics(const EvalMetrics&) override { }
    void runEvent(const RunEvent& e) override
    {
        if (m_next && (e.kind == RunEventKind::Warning || e.kind == RunEventKind::Stopped))
            m_next->runEvent({ e.kind, e.fold, e.step, "pretraining: " + e.message, e.path });
    }
    double lastLoss() const { return m_lastLoss; }

private:
    TrainingSink* m_next;
    double m_lastLoss = 0;
};

void info(TrainingSink* sink, int fold, const std::string& text)
{
    if (sink)
        sink->runEvent({ RunEventKind::Info, fold, 0, text, {} });
}

} // namespace

int64_t pretrainStepsFor(int64_t measuredSteps) { return std::max<int64_t>(100, measuredSteps); }

PretrainResult pretrainOnSimulator(const TrainingData& data, const std::vector<size_t>& train,
    const TrainOptions& options, const PretrainOptions& pre, const std::string& outDir, TrainingSink* sink,
    ProgressSink* progress)
{
    const std::string first = data.graphs.empty() ? std::string("--data") : data.graphs.front().path;
    if (data.kind != GraphKind::Layout)
        throw InputError(first, "--pretrain-sim", "the simulator prices layout configurations; this is tile data");
    if (options.model.family != ModelFamily::TGraph)
        throw InputError(first, "--pretrain-sim", "pretraining is implemented for --model tgraph");
    if (pre.simLayouts < 2)
        throw InputError(first, "--pretrain-sim", "needs at least 2 simulated layouts per graph");
    PretrainResult result;
    const fs::path simDir = fs::path(outDir) / "pretrain" / "sim";
    fs::create_directories(simDir);
    std::vector<std::string> names;
    for (size_t i : train) {
        const TrainingGraph& g = data.graphs[i];
        if (std::find(names.begin(), names.end(), g.path) != names.end())
            continue;
        names.push_back(g.path);
        const LayoutGraph graph = loadLayoutGraph(g.path); // unpruned: node i = instruction i
        std::string source, why;
        const std::shared_ptr<const HloModule> module = moduleOfGraphFile(graph, g.path, &source, &why);
        if (!module) {
            result.withoutModule.push_back(g.path + ": " + why);
            continue;
        }
        const SimulatorParams params = simulatorParamsOf(graph, "", g.path);
        LayoutGraph sim = simulatedLayouts(
            graph, *module, fs::path(g.path).filename().string(), pre.simLayouts, pre.sampler, options.seed, params);
        // Distinct names for files of the same stem in different folders.
        std::string stem = fs::path(g.path).stem().string();
        fs::path target = simDir / (stem + ".npz");
        for (int k = 2; std::find(result.simulatedFiles.begin(), result.simulatedFiles.end(), target.string())
             != result.simulatedFiles.end();
             ++k)
            target = simDir / (stem + "-" + std::to_string(k) + ".npz");
        saveLayoutGraph(sim, target.string());
        result.simulatedFiles.push_back(target.string());
        info(sink, options.fold,
            "pretraining: " + std::to_string(sim.configCount()) + " simulated layouts of " + g.name + " (module "
                + source + ")");
    }
    for (const std::string& w : result.withoutModule)
        info(sink, options.fold, "pretraining: no simulated layouts for " + w);
    if (result.simulatedFiles.empty()) {
        std::string list;
        for (const std::string& w : result.withoutModule)
            list += "\n  " + w;
        throw InputError(first, "--pretrain-sim",
            "no training graph has a known HLO module (put DIR/STEM.pb, .hlo or .txt beside DIR/STEM.npz):" + list);
    }

    std::vector<DataFile> files;
    for (const std::string& f : result.simulatedFiles)
        files.push_back({ f, DataSplit::Train, true });
    std::sort(files.begin(), files.end(), [](const DataFile& a, const DataFile& b) { return a.path < b.path; });
    TrainingDataOptions loading;
    loading.dedup = options.dedup;
    const TrainingData simData = loadTrainingData(files, loading);

    TrainOptions phase = options;
    TrainOptions measured = options;
    if (measured.steps == 0 && measured.epochs == 0)
        measured.epochs = 750; // the measured run's default length (docs/model.md §4.2)
    phase.steps = pre.steps > 0 ? pre.steps : pretrainStepsFor(totalSteps(measured, int64_t(train.size())));
    phase.epochs = 0;
    phase.evalEvery = 0;
    result.steps = phase.steps;

    // The phase starts from the model initialized from the seed (as a fresh run) and the
    // normalizer of the measured training graphs, so both phases see nodes on one scale.
    Checkpoint init;
    init.kind = GraphKind::Layout;
    torch::manual_seed(options.seed);
    init.layout = TGraphModel(options.model);
    init.normalizer = fitNormalizer(data, train);
    init.options = phase;

    const fs::path phaseDir = fs::path(outDir) / "pretrain";
    Trainer trainer(simData, simData.allIndices(), {}, phase, &init);
    PretrainSink quiet(sink);
    trainer.setSink(&quiet);
    trainer.setProgress(progress, "pretraining on simulated layouts");
    trainer.setOutputDir(phaseDir.string());
    const TrainResult r = trainer.run();
    if (r.diverged)
        throw InputError(result.simulatedFiles.front(), "--pretrain-sim", "pretraining diverged: " + r.message);
    result.checkpoint = r.lastCheckpoint;
    info(sink, options.fold,
        "pretrained " + std::to_string(r.steps) + " steps on " + std::to_string(simData.graphs.size())
            + " simulated graphs (last loss " + std::to_string(quiet.lastLoss()).substr(0, 6) + "); weights "
            + result.checkpoint);

    result.start = trainer.checkpoint();
    result.start.totalSteps = 0; // no schedule: the measured run fixes its own
    result.start.warmupSteps = 0;
    result.start.optimizerStep = 0;
    result.start.counters = {};
    result.start.dataFiles.clear();
    for (auto& [name, m] : result.start.moments)
        m = { torch::zeros_like(m.expAvg), torch::zeros_like(m.expAvgSq) };
    return result;
}

Checkpoint initFromWeights(const std::string& path, GraphKind kind, const ModelOptions& expected)
{
    Checkpoint c = checkpointFromWeights(path);
    if (c.kind != kind)
        throw InputError(path, "--init-from",
            std::string("holds a ") + graphKindName(c.kind) + " model; the data are " + graphKindName(kind)
                + " graphs");
    const ModelOptions& got = c.modelOptions();
    auto differs = [&](const std::string& what, const std::string& has, const std::string& asked) {
        throw InputError(path, "--init-from",
            "the weights have " + what + " " + has + " but the run asks " + asked + " (" + describe(got)
                + "; give the same model options)");
    };
    if (got.family != expected.family)
        differs("--model", modelFamilyName(got.family), modelFamilyName(expected.family));
    if (got.hidden != expected.hidden)
        differs("--hidden", std::to_string(got.hidden), std::to_string(expected.hidden));
    if (got.blocks != expected.blocks)
        differs("blocks", std::to_string(got.blocks), std::to_string(expected.blocks));
    if (got.useCrossAttn != expected.useCrossAttn)
        differs("--cross-attn", got.useCrossAttn ? "on" : "off", expected.useCrossAttn ? "on" : "off");
    if (got.bidirectionalEdges != expected.bidirectionalEdges)
        differs(
            "--bidirectional-edges", got.bidirectionalEdges ? "on" : "off", expected.bidirectionalEdges ? "on" : "off");
    if (got.residualAfterActivation != expected.residualAfterActivation)
        differs("--residual-after-activation", got.residualAfterActivation ? "on" : "off",
            expected.residualAfterActivation ? "on" : "off");
    c.options.model.dropout = expected.dropout;
    return c;
}

std::optional<Checkpoint> startOfRun(const TrainingData& data, const TrainOptions& options, const PretrainOptions& pre,
    const std::string& outDir, TrainingSink* sink, ProgressSink* progress)
{
    if (!pre.initFrom.empty()) {
        Checkpoint c = initFromWeights(pre.initFrom, data.kind, options.model);
        info(sink, options.fold,
            "starting from the weights of " + pre.initFrom + " (" + describe(c.modelOptions()) + ")");
        return c;
    }
    if (!pre.enabled())
        return std::nullopt;
    return pretrainOnSimulator(data, data.indicesOf(DataSplit::Train), options, pre, outDir, sink, progress).start;
}

} // namespace tgraph::model
