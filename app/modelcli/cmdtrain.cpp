// SPDX-License-Identifier: Apache-2.0
// `tgraph train`: train a TGraph layout or tile model (docs/model.md §4, §5), a single run
// or K-fold cross-validation with a best-K ensemble (§4.4), resumable from a checkpoint.

#include "app/cli/argparser.h"
#include "app/cli/commands.h"
#include "app/cli/sharedoptions.h"
#include "app/cli/terminalprogress.h"
#include "precisionoption.h"
#include "projectrun.h"
#include "trainplan.h"
#include "workerlaunch.h"

#include "core/train/configfolds.h"
#include "core/train/trainingevents.h"
#include "core/train/trainingset.h"
#include "core/util/error.h"
#include "core/util/progress.h"
#include "model/infer/ensemblecombine.h"
#include "model/nn/products.h"
#include "model/runtime/torchruntime.h"
#include "model/train/checkpoint.h"
#include "model/train/crossvalidation.h"
#include "model/train/gloocommunicator.h"
#include "model/train/pretrain.h"
#include "model/train/recipe.h"
#include "model/train/siminputdata.h"
#include "model/train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

namespace tgraph::cli {

namespace {

namespace fs = std::filesystem;
using namespace tgraph::model;

constexpr const char* kCommand = "train";

std::string percent(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", 100 * fraction);
    return buf;
}

std::string compact(double v)
{
    char buf[32];
    if (v >= 1e6)
        std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
    else if (v >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

// Progress lines on stdout (one per logging interval and evaluation); clears the stderr progress
// bar first so that lines and bar do not mix on a terminal. The same lines go into a project run's
// log file.
class ConsoleSink final : public TrainingSink
{
public:
    explicit ConsoleSink(std::FILE* out = stdout, bool clearBar = true)
        : m_out(out)
        , m_tty(clearBar && ::isatty(STDERR_FILENO) == 1)
    { }

    void stepMetrics(const StepMetrics& m) override
    {
        std::string skipped;
        if (m.skippedSteps)
            skipped = "  skipped " + std::to_string(m.skippedSteps) + " (non-finite)";
        line("%sstep %lld/%lld  epoch %.2f  loss %.4f  lr %.2e  grad-norm %.3f  %s tokens/s  %.2f steps/s%s\n",
            prefix(m.fold).c_str(), (long long)m.step, (long long)m.totalSteps, m.epoch, m.loss, m.learningRate,
            m.gradNorm, compact(m.tokensPerSecond).c_str(), m.stepsPerSecond, skipped.c_str());
    }

    void evalMetrics(const EvalMetrics& m) override
    {
        const bool tile = std::isfinite(m.meanTileScore);
        std::string extra = tile ? "  tile score " + std::to_string(m.meanTileScore).substr(0, 6) : "";
        line("%seval at step %lld: mean tau %.4f  OPA %.4f  top-5 slowdown %s%s  (%zu graphs, %.1f s)%s\n",
            prefix(m.fold).c_str(), (long long)m.step, m.meanTau, m.meanOpa, percent(m.meanTop5Slowdown).c_str(),
            extra.c_str(), m.graphs.size(), m.seconds, m.best ? "  best" : "");
        for (const GraphEvalMetrics& g : m.graphs)
            line("    %-40s %6lld configs  tau %7.4f  OPA %.4f  top-5 slowdown %s\n", g.graph.c_str(),
                (long long)g.configs, g.kendallTau, g.opa, percent(g.top5Slowdown).c_str());
    }

    void runEvent(const RunEvent& e) override
    {
        switch (e.kind) {
        case RunEventKind::Checkpoint:
        case RunEventKind::Worker: // recorded as the run's tags
            return; // summarized at the end
        case RunEventKind::Warning:
            line("%swarning: %s\n", prefix(e.fold).c_str(), e.message.c_str());
            return;
        case RunEventKind::Stopped:
            line("%sstopped: %s\n", prefix(e.fold).c_str(), e.message.c_str());
            return;
        default:
            line("%s%s\n", prefix(e.fold).c_str(), e.message.c_str());
        }
    }

private:
    static std::string prefix(int fold) { return fold >= 0 ? "[fold " + std::to_string(fold) + "] " : ""; }

    template <class... Args> void line(const char* format, Args... args)
    {
        if (m_tty)
            std::fputs("\r\033[K", stderr);
        std::fprintf(m_out, format, args...);
        std::fflush(m_out);
    }

    std::FILE* m_out;
    bool m_tty;
};

// The output directory: created up front and checked for writing, so a bad --out fails before any
// work; removed again if the command fails before writing anything into it.
class OutputDir
{
public:
    explicit OutputDir(std::string dir)
        : m_dir(std::move(dir))
    {
        std::error_code ec;
        const bool existed = fs::is_directory(m_dir, ec);
        fs::create_directories(m_dir, ec);
        if (ec || !fs::is_directory(m_dir))
            throw InputError(
                m_dir, "--out", "cannot create the checkpoint directory: " + (ec ? ec.message() : "exists"));
        m_created = !existed;
        const fs::path probe = fs::path(m_dir) / (".tgraph-write-test-" + std::to_string(::getpid()));
        std::ofstream f(probe);
        const bool writable = f.good() && (f << "x").flush().good();
        f.close();
        fs::remove(probe, ec);
        if (!writable) {
            removeIfEmpty();
            throw InputError(m_dir, "--out", "the checkpoint directory is not writable");
        }
    }
    ~OutputDir()
    {
        if (!m_keep)
            removeIfEmpty();
    }
    void keep() { m_keep = true; }
    const std::string& path() const { return m_dir; }

private:
    void removeIfEmpty()
    {
        std::error_code ec;
        if (m_created && fs::is_empty(m_dir, ec) && !ec)
            fs::remove(m_dir, ec);
    }
    std::string m_dir;
    bool m_created = false;
    bool m_keep = false;
};

// No progress bar (data-parallel workers other than rank 0, the folds of --parallel-folds,
// --no-progress), but SIGINT/SIGTERM still stop the training.
class QuietProgress final : public ProgressSink
{
public:
    void begin(std::string_view, uint64_t) override { }
    void update(uint64_t) override { }
    bool isCancelled() const override { return interruptRequested(); }
};

int launchLocal(const TrainPlan& plan)
{
    LaunchOptions launch;
    launch.workers = plan.launchLocal;
    launch.timeout = plan.distTimeout;
    launch.project = plan.projectPath;
    launch.trainArgs = plan.childArgs;
    return launchLocalWorkers(launch);
}

CrossValidationOptions crossValidationOptions(const TrainPlan& plan)
{
    CrossValidationOptions o;
    o.folds = plan.folds;
    o.trainFolds = plan.trainFolds;
    o.keep = plan.keep;
    o.foldSeed = plan.foldSeed;
    return o;
}

void printCrossValidation(const CrossValidationResult& r, const std::string& outDir, const CrossValidationOptions& cv)
{
    std::printf("\ncross-validation: %d folds, %d trained, best %d kept\n", cv.folds, cv.trainFolds, cv.keep);
    for (const FoldResult& f : r.folds)
        std::printf("  fold %d: best mean tau %.4f at step %lld of %lld%s%s\n", f.fold, f.bestTau,
            (long long)f.bestStep, (long long)f.steps, f.diverged ? " (diverged)" : "", f.kept ? "  kept" : "");
    std::printf("ensemble (%zu checkpoints, best first):\n", r.ensemble.size());
    for (const std::string& e : r.ensemble)
        std::printf("  %s\n", (fs::path(outDir) / e).string().c_str());
    std::printf("manifest: %s\n", r.manifest.c_str());
    if (!r.ensembleFile.empty())
        std::printf("ensemble file: %s\n", r.ensembleFile.c_str());
    for (const FoldResult& f : r.folds)
        if (f.diverged)
            std::fprintf(stderr, "tgraph train: warning: fold %d %s\n", f.fold, f.message.c_str());
}

// --assemble: the ensemble of folds trained elsewhere (--fold K into the same --out).
int assembleFolds(const TrainPlan& plan)
{
    const std::string& out = plan.outDir;
    const CrossValidationOptions cv = crossValidationOptions(plan);
    const CrossValidationResult r = assembleEnsembleFromDir(plan.options, cv, out, nullptr);
    printCrossValidation(r, out, cv);
    return r.ensemble.empty() ? ExitBadInput : ExitOk;
}

// --parallel-folds P: each fold trains in a child process (`--fold K`, recorded as a fold of this
// run when there is a project), at most P at a time; then the best folds form the ensemble.
int trainFoldsInParallel(const TrainPlan& plan, const TrainOptions& options, ProjectRun* run, TrainingSink& sink)
{
    OutputDir out(run ? run->dir() : plan.outDir);
    const CrossValidationOptions cv = crossValidationOptions(plan);
    std::vector<std::string> base = plan.childArgs;
    if (run) // the folds write into this run's folder and record themselves as its fold runs
        base.insert(base.end(), { "--attach-run", run->id() });
    const int concurrency = std::min(plan.parallelFolds, cv.trainFolds);
    std::vector<ChildProcess> folds;
    for (int k = 0; k < cv.trainFolds; ++k) {
        ChildProcess c;
        c.label = "fold " + std::to_string(k);
        c.args = { "train" };
        c.args.insert(c.args.end(), base.begin(), base.end());
        c.args.insert(c.args.end(), { "--fold", std::to_string(k) });
        folds.push_back(std::move(c));
    }
    sink.runEvent({ RunEventKind::Info, -1, 0,
        "training " + std::to_string(folds.size()) + " folds in separate processes, " + std::to_string(concurrency)
            + " at a time",
        {} });
    SuperviseOptions supervise;
    supervise.concurrency = concurrency;
    bool cancelled = false;
    const std::vector<ChildOutcome> outcomes = superviseChildren(folds, supervise, &cancelled);
    out.keep();
    if (run) {
        // A fold process that died left its fold run RUNNING: its pid is gone now.
        Project project = Project::open(plan.projectPath, Project::Access::Write);
        project.markCrashedRuns(0);
    }
    if (cancelled) {
        if (run)
            run->finish(RunStatus::Killed, "interrupted (SIGINT/SIGTERM) during cross-validation");
        std::printf("\ninterrupted: the folds' checkpoints so far are in %s\n", out.path().c_str());
        return ExitCancelled;
    }
    std::string failed;
    for (size_t k = 0; k < outcomes.size(); ++k)
        if (!outcomes[k].succeeded())
            failed += (failed.empty() ? "" : ", ") + folds[k].label + " (" + outcomes[k].describe() + ")";
    if (!failed.empty()) {
        const std::string message = "not every fold finished: " + failed
            + "; train each again with the same options and --fold K, then --assemble";
        if (run)
            run->finish(RunStatus::Failed, message);
        std::fprintf(stderr, "tgraph train: error: %s\n", message.c_str());
        return ExitBadInput;
    }
    const CrossValidationResult r = assembleEnsembleFromDir(options, cv, out.path(), &sink);
    printCrossValidation(r, out.path(), cv);
    if (run)
        run->finish(r.ensemble.empty() ? RunStatus::Failed : RunStatus::Finished,
            r.ensemble.empty() ? "no fold produced a checkpoint" : "");
    return r.ensemble.empty() ? ExitBadInput : ExitOk;
}

void reportLoaded(const TrainingData& data, TrainingSink& sink)
{
    for (const std::string& s : data.skipped)
        sink.runEvent({ RunEventKind::Warning, -1, 0, s, {} });
    int64_t configs = 0, nodes = 0, before = 0, removed = 0;
    for (const TrainingGraph& g : data.graphs) {
        configs += g.configCount();
        nodes += g.nodeCount();
        before += g.nodesBeforePruning;
        removed += g.duplicatesRemoved;
    }
    std::string text = std::string("loaded ") + graphKindName(data.kind)
        + " data: " + std::to_string(data.indicesOf(DataSplit::Train).size()) + " train and "
        + std::to_string(data.indicesOf(DataSplit::Valid).size()) + " valid graphs, " + std::to_string(configs)
        + " configs";
    if (data.kind == GraphKind::Layout)
        text += ", nodes " + std::to_string(before) + " -> " + std::to_string(nodes) + " after pruning, "
            + std::to_string(removed) + " duplicate configs removed";
    sink.runEvent({ RunEventKind::Info, -1, 0, text, {} });
}

int trainLoaded(const TrainPlan& plan, const TrainingData& data, TrainOptions options, const Checkpoint* resume,
    ProjectRun* run, TrainingSink& sink, ProgressSink& progress, int threads, Communicator* comm);
int trainOneRun(const TrainPlan& plan, const TrainingData& data, const TrainOptions& options, const Checkpoint* resume,
    ProjectRun* run, TrainingSink& sink, ProgressSink& progress, Communicator* comm, OutputDir* outDir,
    TrainResult* result);
int trainSeeds(const TrainPlan& plan, const TrainingData& data, const TrainOptions& options, TrainingSink& sink,
    ProgressSink& progress, OutputDir& out);

// The facts on disk of a real `tgraph train`; keeps the checkpoint it read for the run.
class DiskEnvironment final : public TrainPlanEnvironment
{
public:
    bool isRegularFile(const std::string& path) const override
    {
        std::error_code ec;
        return fs::is_regular_file(path, ec);
    }
    std::string projectRunCheckpoint(const std::string& project, const std::string& run) const override
    {
        return ProjectRun::resumeCheckpoint(project, run);
    }
    std::string readTokenFile(const std::string& file, std::string* error) const override
    {
        struct stat st {};
        if (::stat(file.c_str(), &st) != 0)
            *error = std::strerror(errno);
        else if (!S_ISREG(st.st_mode) || st.st_size > 4096)
            *error = "not a small regular file";
        else if (st.st_mode & 077)
            *error = "readable or writable by others (chmod 600 it)";
        if (!error->empty())
            return {};
        std::ifstream in(file);
        std::string token;
        std::getline(in, token);
        if (token.empty())
            *error = "the first line is empty";
        return token;
    }
    std::optional<std::string> environmentVariable(const std::string& name) const override
    {
        if (const char* value = std::getenv(name.c_str()))
            return std::string(value);
        return std::nullopt;
    }
    CheckpointFacts checkpoint(const std::string& path) override
    {
        m_checkpoint = loadCheckpoint(path);
        CheckpointFacts facts;
        facts.totalSteps = m_checkpoint->totalSteps;
        facts.options = m_checkpoint->options;
        facts.options.model = m_checkpoint->modelOptions();
        facts.dataFiles = m_checkpoint->dataFiles.size();
        return facts;
    }
    int cores() const override { return int(std::max(1u, std::thread::hardware_concurrency())); }

    std::optional<Checkpoint>& loaded() { return m_checkpoint; }

private:
    std::optional<Checkpoint> m_checkpoint;
};

int train(const ArgParser& p, const std::vector<std::string>& args)
{
    DiskEnvironment disk;
    TrainPlan plan = resolveTrainPlan(p, args, disk); // the recipe may still make a single run seeds
    if (!plan.ok())
        return usageError(kCommand, plan.error);
    switch (plan.mode) {
    case TrainMode::CheckOptions:
        std::printf("options ok\n");
        return ExitOk;
    case TrainMode::LaunchLocal:
        return launchLocal(plan);
    case TrainMode::Assemble:
        return assembleFolds(plan);
    default:
        break;
    }
    std::optional<Checkpoint>& resume = disk.loaded();
    TrainOptions options = plan.options;
    const int threads = initTorchRuntime(plan.threads);
    const std::string precision = applyPrecision(plan.precision);
    const bool writer = plan.writer();

    std::unique_ptr<JsonLinesTrainingSink> jsonl;
    if (!plan.metricsJsonl.empty())
        jsonl = std::make_unique<JsonLinesTrainingSink>(plan.metricsJsonl);
    ConsoleSink console;
    TrainingSinks consoleSinks({ writer ? &console : nullptr, writer ? jsonl.get() : nullptr });
    TerminalProgress terminalProgress;
    QuietProgress quietProgress;
    ProgressSink& progress
        = plan.progressBar ? static_cast<ProgressSink&>(terminalProgress) : static_cast<ProgressSink&>(quietProgress);

    std::vector<DataFile> files;
    if (!plan.dataEntries.empty()) {
        files = listDataFiles(plan.dataEntries);
        // Checkpoints list the data files; absolute paths let a resume start from any directory.
        for (DataFile& f : files)
            f.path = fs::absolute(f.path).lexically_normal().string();
    } else {
        files = resume->dataFiles; // the plan checked that it lists some
    }
    TrainingDataOptions dataOptions;
    dataOptions.dedup = options.dedup;
    dataOptions.progress = &progress;
    dataOptions.residentGraphs = plan.residentGraphs;
    dataOptions.kind = plan.kind;
    TrainingData data = loadTrainingData(files, dataOptions);
    if (options.configChunk > 0 && data.kind == GraphKind::Tile)
        return usageError(kCommand, "--config-chunk applies to layout graphs (a tile step takes a kernel's configs "
                                    "together)");
    holdOutConfigFold(data, plan.configFolds); // before any run record: too few configs is bad input
    PretrainOptions pretrain;
    pretrain.simLayouts = plan.pretrainSim;
    pretrain.steps = plan.pretrainSteps;
    pretrain.initFrom = plan.initFrom;
    if (plan.recipe) {
        const Recipe recipe = chooseRecipe(describeData(data));
        applyRecipe(recipe, &options, &pretrain);
        std::printf("recipe: %s (%s; --recipe none for the plain defaults)\n", recipe.name.c_str(), recipe.why.c_str());
        if (recipe.seeds > 1 && plan.mode == TrainMode::Single) {
            if (plan.recipeMaySeed) {
                plan.mode = TrainMode::Seeds;
                plan.seeds = recipe.seeds;
            } else
                std::printf("recipe: one run, not the recipe's %d-seed ensemble (a project run or a resumed run is "
                            "one run; tgraph train --out DIR makes the ensemble)\n",
                    recipe.seeds);
        }
    }
    if (plan.crossValidation) // too few graphs for the folds: an error before any run record
        foldValidationSets(data, plan.folds, plan.foldSeed);
    if (options.model.simInputs) // after the config folds and the recipe: the inputs of the rows each graph holds
        for (const std::string& line : attachSimulatorInputs(data, &progress))
            if (writer)
                std::printf("simulator inputs: unpriced for %s\n", line.c_str());

    // Data-parallel workers meet once each has its data (a failed rendezvous makes no run record).
    std::unique_ptr<GlooCommunicator> comm;
    if (plan.distributed()) {
        GlooOptions gloo;
        gloo.masterHost = plan.master.host;
        gloo.masterPort = plan.master.port;
        gloo.rank = plan.rank;
        gloo.worldSize = plan.worldSize;
        gloo.timeout = plan.distTimeout;
        gloo.rendezvousFile = plan.rendezvous;
        gloo.token = plan.token;
        try {
            comm = std::make_unique<GlooCommunicator>(gloo);
        } catch (const WorkerLost& e) {
            std::fprintf(stderr, "tgraph train: error: %s\n", e.what());
            return ExitBadInput;
        }
        if (writer)
            std::printf("data-parallel: %d workers, %lld graphs per step, master %s:%d\n", plan.worldSize,
                (long long)options.graphsPerStep, plan.master.host.c_str(), plan.master.port);
    }

    // A project run starts once the data are usable (bad data make no run record); from here on
    // every way out records the run's final status.
    std::unique_ptr<ProjectRun> run;
    std::unique_ptr<ConsoleSink> logSink;
    const std::string& projectPath = plan.projectPath;
    switch (plan.record) {
    case RunRecord::None:
        break;
    case RunRecord::ContinueQueued:
        run = ProjectRun::continueQueued(projectPath, plan.queuedRun, resume->counters.step);
        break;
    case RunRecord::Resume:
        run = ProjectRun::resume(projectPath, plan.resumeRun, plan.commandLine, resume->counters.step);
        break;
    case RunRecord::AttachFold:
        run = ProjectRun::attachFold(projectPath, plan.attachRun, plan.onlyFold);
        break;
    case RunRecord::Start:
    case RunRecord::AdoptQueued: {
        std::string dataList;
        for (const std::string& e : plan.dataEntries)
            dataList += (dataList.empty() ? "" : ";") + e;
        std::vector<std::pair<std::string, std::string>> params { { "kind", graphKindName(data.kind) },
            { "data", dataList }, { "hparams", toJson(options) }, { "steps", std::to_string(options.steps) },
            { "epochs", std::to_string(options.epochs) },
            { "configs_per_step", std::to_string(options.configsPerStep) }, { "lr", p.value("--lr") },
            { "model", modelFamilyName(options.model.family) }, { "loss", lossKindName(effectiveLoss(options)) },
            { "parameters", std::to_string(modelParameterCount(options.model, data.kind)) },
            { "seed", std::to_string(options.seed) },
            { "folds", plan.crossValidation ? std::to_string(plan.folds) : "0" },
            { "parallel_folds", std::to_string(plan.parallelFolds) },
            { "config_folds", std::to_string(plan.configFolds.folds) },
            { "config_fold", std::to_string(plan.configFolds.fold) },
            { "config_fold_seed", std::to_string(plan.configFolds.seed) },
            { "graphs_per_step", std::to_string(options.graphsPerStep) },
            { "workers", std::to_string(plan.worldSize) }, { "resumed_from_checkpoint", plan.resumePath },
            { "precision", precision } };
        // Each model's own switches: cross-config attention is TGraph's, the reduction Kaufman's.
        if (options.model.family == ModelFamily::TGraph)
            params.push_back({ "cross_attn", options.model.useCrossAttn ? "on" : "off" });
        if (options.model.family == ModelFamily::Kaufman)
            params.push_back({ "reduction", nodeReductionName(options.model.reduction) });
        run = plan.record == RunRecord::Start
            ? ProjectRun::start(projectPath, plan.experiment, plan.runName, plan.commandLine, params)
            : ProjectRun::adoptQueued(projectPath, plan.queuedRun, params);
        for (const TrainingGraph& g : data.graphs)
            run->writer().project().graphId(g.path);
        break;
    }
    }
    if (run) {
        logSink = std::make_unique<ConsoleSink>(run->log(), false);
        if (plan.record != RunRecord::AttachFold)
            std::printf("project run %s in %s (%s)\n", run->id().c_str(), projectPath.c_str(), run->dir().c_str());
    }
    TrainingSinks sink({ &consoleSinks, logSink.get(), run ? &run->writer() : nullptr });
    try {
        if (plan.mode == TrainMode::ParallelFolds) {
            data = TrainingData(); // each fold's process loads its own
            return trainFoldsInParallel(plan, options, run.get(), sink);
        }
        if (!resume)
            if (std::optional<Checkpoint> start
                = startOfRun(data, options, pretrain, run ? run->dir() : plan.outDir, &sink, &progress)) {
                TrainPlan started = plan; // the run starts from these weights with its own schedule
                started.resumePath = pretrain.initFrom.empty() ? "--pretrain-sim" : pretrain.initFrom;
                return trainLoaded(started, data, options, &*start, run.get(), sink, progress, threads, comm.get());
            }
        return trainLoaded(
            plan, data, options, resume ? &*resume : nullptr, run.get(), sink, progress, threads, comm.get());
    } catch (const WorkerLost& e) {
        // A worker ended or stopped answering: the run cannot go on (its last checkpoint stays).
        if (run)
            run->finish(RunStatus::Crashed, e.what());
        std::fprintf(stderr, "tgraph train: error: worker %d: %s\n", plan.rank, e.what());
        return ExitBadInput;
    } catch (const Cancelled&) {
        if (run)
            run->finish(RunStatus::Killed, "interrupted (SIGINT/SIGTERM) during cross-validation");
        throw;
    } catch (const std::exception& e) {
        if (run)
            run->finish(RunStatus::Failed, e.what());
        throw;
    }
}

int trainLoaded(const TrainPlan& plan, const TrainingData& data, TrainOptions options, const Checkpoint* resume,
    ProjectRun* run, TrainingSink& sink, ProgressSink& progress, int threads, Communicator* comm)
{
    const bool writer = !comm || comm->rank() == 0;
    std::optional<OutputDir> outDir;
    if (writer)
        outDir.emplace(run ? run->dir() : plan.outDir);
    reportLoaded(data, sink);
    if (resume && resume->kind != data.kind)
        throw InputError(plan.resumePath, resume->kind == GraphKind::Tile ? "head.0.weight" : "classifier.weight",
            std::string("a ") + graphKindName(resume->kind) + "-model checkpoint cannot train on "
                + graphKindName(data.kind) + " data (" + data.graphs.front().path + ")");
    if (options.steps == 0 && options.epochs == 0)
        options.epochs = data.kind == GraphKind::Layout ? 750 : 17.5; // docs/model.md §4.2: layout:xla, tile
    if (data.kind == GraphKind::Tile && plan.configsPerStepGiven)
        sink.runEvent({ RunEventKind::Warning, -1, 0,
            "--configs-per-step is ignored for tile data: every step uses all configs of a kernel (docs/model.md §5)", {} });
    sink.runEvent({ RunEventKind::Info, -1, 0,
        "LibTorch " + torchVersion() + ", " + std::to_string(threads) + " threads, " + blasName()
            + (bf16Products() ? ", bf16 products" : ", fp32 products") + (options.deterministic ? ", deterministic" : ""),
        {} });

    const CrossValidationOptions cv = crossValidationOptions(plan);
    if (plan.mode == TrainMode::OneFold) {
        // One fold of the protocol, as its own process (--parallel-folds, or another machine).
        OutputDir& out = *outDir;
        const FoldResult f = trainFold(data, options, cv, plan.onlyFold, out.path(), &sink, &progress);
        out.keep();
        const std::string dir = (fs::path(out.path()) / ("fold-" + std::to_string(f.fold))).string();
        std::printf("\nfold %d of %d: best mean tau %.4f at step %lld of %lld%s\nresult: %s/fold.json\n", f.fold,
            f.folds, f.bestTau, (long long)f.bestStep, (long long)f.steps, f.diverged ? " (diverged)" : "",
            dir.c_str());
        if (f.diverged)
            std::fprintf(stderr, "tgraph train: warning: fold %d %s\n", f.fold, f.message.c_str());
        if (run)
            run->finish(f.checkpoint.empty() ? RunStatus::Failed : RunStatus::Finished,
                f.checkpoint.empty() ? "no checkpoint: " + f.message : "");
        return f.checkpoint.empty() ? ExitBadInput : ExitOk;
    }
    if (plan.mode == TrainMode::CrossValidation) {
        OutputDir& out = *outDir;
        const CrossValidationResult r = runCrossValidation(data, options, cv, out.path(), &sink, &progress);
        out.keep();
        printCrossValidation(r, out.path(), cv);
        if (run)
            run->finish(r.ensemble.empty() ? RunStatus::Failed : RunStatus::Finished,
                r.ensemble.empty() ? "no fold produced a checkpoint" : "");
        return r.ensemble.empty() ? ExitBadInput : ExitOk;
    }

    if (plan.mode == TrainMode::Seeds)
        return trainSeeds(plan, data, options, sink, progress, *outDir);
    TrainResult result;
    return trainOneRun(plan, data, options, resume, run, sink, progress, comm, writer ? &*outDir : nullptr, &result);
}

// One run (a single run, a resumed one, or one of --seeds) into `outDir` (null for a worker other
// than rank 0); its result in *result.
int trainOneRun(const TrainPlan& plan, const TrainingData& data, const TrainOptions& options, const Checkpoint* resume,
    ProjectRun* run, TrainingSink& sink, ProgressSink& progress, Communicator* comm, OutputDir* outDir,
    TrainResult* result)
{
    const bool writer = outDir != nullptr;
    std::vector<size_t> trainGraphs = data.indicesOf(DataSplit::Train);
    std::vector<size_t> validGraphs = data.indicesOf(DataSplit::Valid);
    if (options.folds > 0) {
        // A cross-validation fold's checkpoint: rebuild its split from all graphs.
        const auto sets = foldValidationSets(data, options.folds, options.foldSeed);
        if (options.fold < 0 || options.fold >= options.folds)
            throw InputError(plan.resumePath, "train.hparams", "fold index out of range");
        validGraphs = sets[size_t(options.fold)];
        trainGraphs.clear();
        for (size_t i = 0; i < data.graphs.size(); ++i)
            if (std::find(validGraphs.begin(), validGraphs.end(), i) == validGraphs.end())
                trainGraphs.push_back(i);
    }
    Trainer trainer(data, trainGraphs, validGraphs, options, resume);
    trainer.setSink(&sink);
    trainer.setProgress(&progress);
    trainer.setCommunicator(comm);
    if (!writer) {
        // Another worker: same steps, no files, no output (rank 0 reports for all).
        try {
            const TrainResult r = trainer.run();
            return r.diverged ? ExitBadInput : ExitOk;
        } catch (const Cancelled&) {
            return ExitCancelled;
        }
    }
    OutputDir& out = *outDir;
    trainer.setOutputDir(out.path());
    TrainResult& r = *result;
    try {
        r = trainer.run();
    } catch (const Cancelled&) {
        // SIGINT / SIGTERM (`tgraph runs stop`): the step in progress was finished; keep its state.
        const int64_t step = trainer.stepsDone();
        const std::string last = (fs::path(out.path()) / "last.npz").string();
        trainer.saveCheckpoint(last);
        out.keep();
        sink.runEvent({ RunEventKind::Checkpoint, options.fold, step, "latest state (stopped)", last });
        const std::string how = run
            ? "tgraph train --resume " + run->id().substr(0, 8) + " --project " + plan.projectPath
            : "tgraph train --resume " + last;
        if (run)
            run->finish(RunStatus::Killed, "stopped at step " + std::to_string(step) + "; resume with: " + how);
        std::printf("\ninterrupted at step %lld of %lld: the latest state is in %s\nresume with: %s\n", (long long)step,
            (long long)trainer.totalSteps(), last.c_str(), how.c_str());
        std::fflush(stdout);
        return ExitCancelled;
    }
    if (!r.bestCheckpoint.empty() || !r.lastCheckpoint.empty())
        out.keep();
    std::printf("\n");
    const std::string best = (fs::path(out.path()) / "best.npz").string();
    if (validGraphs.empty())
        std::printf("no validation graphs: no best checkpoint is chosen\n");
    else if (r.counters.bestStep >= 0 && fs::exists(best))
        std::printf(
            "best mean tau %.4f at step %lld: %s\n", r.counters.bestTau, (long long)r.counters.bestStep, best.c_str());
    if (!r.lastCheckpoint.empty())
        std::printf("latest state (resume with --resume): %s\n", r.lastCheckpoint.c_str());
    if (r.diverged) {
        if (run)
            run->finish(RunStatus::Failed, r.message);
        std::fprintf(stderr, "tgraph train: error: %s\n", r.message.c_str());
        return ExitBadInput;
    }
    if (run)
        run->finish(RunStatus::Finished);
    return ExitOk;
}

// --seeds N: runs with seeds S..S+N-1 into OUT/seed-K/, one after another, then OUT/ensemble.npz of
// their best checkpoints (docs/model.md §6.3).
int trainSeeds(const TrainPlan& plan, const TrainingData& data, const TrainOptions& options, TrainingSink& sink,
    ProgressSink& progress, OutputDir& out)
{
    struct SeedRun
    {
        uint64_t seed = 0;
        std::string checkpoint;
        TrainResult result;
    };
    std::vector<SeedRun> runs;
    for (int k = 0; k < plan.seeds; ++k) {
        TrainOptions seeded = options;
        seeded.seed = options.seed + uint64_t(k);
        const std::string dir = (fs::path(out.path()) / ("seed-" + std::to_string(k))).string();
        std::printf("\nseed run %d of %d: seed %llu into %s\n", k + 1, plan.seeds, (unsigned long long)seeded.seed,
            dir.c_str());
        std::fflush(stdout);
        OutputDir seedDir(dir);
        out.keep();
        SeedRun r;
        r.seed = seeded.seed;
        const int rc = trainOneRun(plan, data, seeded, nullptr, nullptr, sink, progress, nullptr, &seedDir, &r.result);
        if (rc == ExitCancelled)
            return rc;
        const std::string best = (fs::path(dir) / "best.npz").string();
        if (r.result.diverged)
            std::fprintf(stderr, "tgraph train: warning: seed %llu diverged; it is left out of the ensemble\n",
                (unsigned long long)r.seed);
        else if (r.result.counters.bestStep >= 0 && fs::exists(best))
            r.checkpoint = best;
        else if (!r.result.lastCheckpoint.empty())
            r.checkpoint = r.result.lastCheckpoint; // no validation graphs: no best checkpoint
        runs.push_back(std::move(r));
    }
    std::vector<std::string> members;
    std::printf("\nseeds: %d runs\n", plan.seeds);
    for (const SeedRun& r : runs) {
        if (r.checkpoint.empty())
            std::printf("  seed %llu: no checkpoint\n", (unsigned long long)r.seed);
        else if (r.result.counters.bestStep >= 0)
            std::printf("  seed %llu: best mean tau %.4f at step %lld: %s\n", (unsigned long long)r.seed,
                r.result.counters.bestTau, (long long)r.result.counters.bestStep, r.checkpoint.c_str());
        else
            std::printf(
                "  seed %llu: no validation, latest state: %s\n", (unsigned long long)r.seed, r.checkpoint.c_str());
        if (!r.checkpoint.empty())
            members.push_back(r.checkpoint);
    }
    if (members.empty()) {
        std::fprintf(stderr, "tgraph train: error: no seed run produced a checkpoint\n");
        return ExitBadInput;
    }
    const std::string file = (fs::path(out.path()) / "ensemble.npz").string();
    const CombinedEnsemble e = combineWeights(members, file, "tgraph train --seeds " + std::to_string(plan.seeds));
    std::printf("ensemble of %zu members: %s\n", e.info["members"].size(), file.c_str());
    return ExitOk;
}

} // namespace

int runTrain(const std::vector<std::string>& args)
{
    ArgParser p = trainArgumentParser();
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    return guarded(kCommand, [&] { return train(p, args); });
}

} // namespace tgraph::cli
