// SPDX-License-Identifier: Apache-2.0
// `tgraph train`: train a TGraph layout or tile model (docs/model.md §4, §5), a single run
// or K-fold cross-validation with a best-K ensemble (§4.4), resumable from a checkpoint.

#include "app/cli/argparser.h"
#include "app/cli/commands.h"
#include "app/cli/sharedoptions.h"
#include "app/cli/terminalprogress.h"
#include "precisionoption.h"
#include "projectrun.h"
#include "workerlaunch.h"

#include "core/util/error.h"
#include "core/util/progress.h"
#include "core/train/trainingevents.h"
#include "core/train/configfolds.h"
#include "core/train/trainingset.h"
#include "model/nn/products.h"
#include "model/train/checkpoint.h"
#include "model/train/crossvalidation.h"
#include "model/train/gloocommunicator.h"
#include "model/runtime/torchruntime.h"
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

std::string g_commandLine; // for the project's run record
std::vector<std::string> g_args; // the command's arguments (--launch-local passes them on)

// Options that define the training math: a resumed run keeps the checkpoint's.
const char* const kHyperParameterOptions[]
    = { "--steps", "--epochs", "--configs-per-step", "--cross-attn", "--lr", "--weight-decay", "--no-bias-decay",
          "--warmup", "--clip", "--dropout", "--eval-every", "--eval-batch", "--seed", "--deterministic", "--dedup",
          "--folds", "--train-folds", "--keep", "--fold-seed", "--max-nonfinite", "--residual-after-activation",
          "--bidirectional-edges", "--model", "--reduction", "--loss", "--hidden", "--graphs-per-step" };

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

bool readOptions(const ArgParser& p, TrainOptions* o, std::string* error)
{
    auto bad = [error](const std::string& text) {
        *error = text;
        return false;
    };
    if (p.has("--steps") && p.has("--epochs"))
        return bad("give --steps or --epochs, not both");
    if (p.has("--steps"))
        o->steps = p.get<int64_t>("--steps");
    if (p.has("--epochs"))
        o->epochs = p.get<double>("--epochs");
    o->configsPerStep = p.get<int64_t>("--configs-per-step");
    if (p.has("--graphs-per-step"))
        o->graphsPerStep = p.get<int64_t>("--graphs-per-step");
    o->model.family = p.get<ModelFamily>("--model");
    if (p.has("--reduction") && o->model.family != ModelFamily::Kaufman)
        return bad("--reduction applies to --model kaufman only");
    o->model.reduction = p.get<NodeReduction>("--reduction");
    o->loss = p.get<LossKind>("--loss");
    o->model.hidden = p.has("--hidden") ? p.get<int64_t>("--hidden") : defaultHidden(o->model.family);
    if (o->model.family == ModelFamily::TGraph && (o->model.hidden % 16 != 0))
        return bad("--hidden must be a multiple of 16 for tgraph (two halves of channel gates with reduction 8)");
    if (o->model.family == ModelFamily::Kaufman && o->model.reduction == NodeReduction::Transformer
        && o->model.hidden % 4 != 0)
        return bad("--hidden must be a multiple of 4 for the transformer reduction (4 heads)");
    if (o->model.family != ModelFamily::TGraph)
        for (const char* only : { "--cross-attn", "--residual-after-activation", "--bidirectional-edges" })
            if (p.has(only))
                return bad(std::string(only) + " applies to --model tgraph only");
    o->model.useCrossAttn = p.value("--cross-attn") == "on";
    o->model.residualAfterActivation = p.has("--residual-after-activation");
    o->model.bidirectionalEdges = p.has("--bidirectional-edges");
    o->model.dropout = p.get<double>("--dropout");
    o->learningRate = p.get<double>("--lr");
    o->weightDecay = p.get<double>("--weight-decay");
    o->decayBiases = !p.has("--no-bias-decay");
    o->warmupShare = p.get<double>("--warmup");
    o->clipNorm = p.get<double>("--clip");
    o->evalEvery = p.get<int64_t>("--eval-every");
    o->evalBatch = p.get<int64_t>("--eval-batch");
    o->logEvery = p.get<int64_t>("--log-every");
    o->maxNonFiniteRun = p.get<int64_t>("--max-nonfinite");
    o->seed = p.get<uint64_t>("--seed");
    o->deterministic = p.has("--deterministic");
    o->dedup = p.get<DedupPolicy>("--dedup");
    o->recompute = p.get<RecomputeMode>("--recompute");
    parseConfigChunk(p.value("--config-chunk"), &o->configChunk); // checked by its option type
    if (o->configChunk > 0 && o->model.family != ModelFamily::TGraph)
        return bad("--config-chunk applies to --model tgraph only");
    if (o->configChunk > 0 && o->model.useCrossAttn)
        return bad("--config-chunk " + configChunkName(o->configChunk)
            + " needs --cross-attn off (with cross-attention a config's score depends on the other configs of the "
              "step, so a step cannot be cut into chunks of configs)");
    return true;
}

struct CvSettings
{
    bool enabled = false;
    CrossValidationOptions options;
    int onlyFold = -1; // --fold K: train this fold alone
    int parallelFolds = 0; // --parallel-folds P: the folds as child processes, P at a time
    bool assemble = false; // --assemble: the ensemble from the folds' fold.json files
    std::string attachRun; // --attach-run: record the fold as a fold of this project run
};

bool readCv(const ArgParser& p, CvSettings* cv, std::string* error)
{
    cv->enabled = p.has("--folds");
    if (!cv->enabled) {
        for (const char* o : { "--train-folds", "--keep", "--fold-seed", "--fold", "--parallel-folds", "--assemble" })
            if (p.has(o)) {
                *error = std::string(o) + " needs --folds";
                return false;
            }
        return true;
    }
    auto& o = cv->options;
    o.folds = p.get<int>("--folds");
    o.trainFolds = p.get<int>("--train-folds");
    o.keep = p.get<int>("--keep");
    o.foldSeed = p.get<uint32_t>("--fold-seed");
    if (p.has("--fold"))
        cv->onlyFold = p.get<int>("--fold");
    if (p.has("--parallel-folds"))
        cv->parallelFolds = p.get<int>("--parallel-folds");
    if (o.trainFolds > o.folds)
        *error = "--train-folds must be an integer in 1..--folds";
    else if (o.keep > o.trainFolds)
        *error = "--keep must be an integer in 1..--train-folds";
    else if (cv->onlyFold >= o.folds)
        *error = "--fold must be an integer in 0..--folds - 1";
    else if (int(p.has("--fold")) + int(p.has("--parallel-folds")) + int(p.has("--assemble")) > 1)
        *error = "--fold, --parallel-folds and --assemble exclude each other";
    else if (p.has("--parallel-folds") && p.has("--metrics-jsonl"))
        *error = "--metrics-jsonl with --parallel-folds: the folds' processes cannot share one file (use --project)";
    else if (p.has("--assemble") && (p.has("--project") || !p.has("--out")))
        *error = "--assemble reads the folds of an output directory: give --out DIR (not --project)";
    cv->assemble = p.has("--assemble");
    cv->attachRun = p.value("--attach-run");
    if (error->empty() && !cv->attachRun.empty() && (cv->onlyFold < 0 || !p.has("--project")))
        *error = "--attach-run needs --fold and --project";
    return error->empty();
}

// Data-parallel workers (--world-size/--rank/--master) or a local launch of them (--launch-local).
struct DistSettings
{
    int launchLocal = 0; // > 0: start this many workers here and supervise them
    int worldSize = 1;
    int rank = 0;
    MasterAddress master { "127.0.0.1", 29500 };
    std::string rendezvous; // a rendezvous file instead of the master's TCP store
    std::string token; // the workers' shared secret (--token-file, else TGRAPH_WORKER_TOKEN)
    std::chrono::milliseconds timeout { 300000 };
    bool distributed() const { return worldSize > 1; }
};

bool readDistributed(const ArgParser& p, const CvSettings& cv, DistSettings* d, std::string* error)
{
    auto bad = [error](const std::string& text) {
        *error = text;
        return false;
    };
    if (p.has("--launch-local")) {
        d->launchLocal = p.get<int>("--launch-local");
        for (const char* o : { "--world-size", "--rank", "--master", "--rendezvous" })
            if (p.has(o))
                return bad(std::string(o) + ": --launch-local chooses the workers' ranks and master itself");
    }
    if (p.has("--world-size"))
        d->worldSize = p.get<int>("--world-size");
    if (p.has("--rank") && !p.has("--world-size"))
        return bad("--rank needs --world-size");
    d->rank = p.get<int>("--rank");
    if (d->rank >= d->worldSize)
        return bad("--rank must be an integer in 0..--world-size - 1");
    parseMasterAddress(p.value("--master"), &d->master); // checked by the parser
    if (p.has("--token-file")) {
        const std::string file = p.value("--token-file");
        struct stat st {};
        if (::stat(file.c_str(), &st) != 0)
            return bad("--token-file " + file + ": " + std::strerror(errno));
        if (!S_ISREG(st.st_mode) || st.st_size > 4096)
            return bad("--token-file " + file + ": not a small regular file");
        if (st.st_mode & 077)
            return bad("--token-file " + file + ": readable or writable by others (chmod 600 it)");
        std::ifstream in(file);
        std::getline(in, d->token);
        if (d->token.empty())
            return bad("--token-file " + file + ": the first line is empty");
    } else if (const char* env = std::getenv("TGRAPH_WORKER_TOKEN")) {
        d->token = env;
    }
    if (p.has("--rendezvous")) {
        if (p.has("--master"))
            return bad("--rendezvous: the workers meet through the file or at --master, not both");
        d->rendezvous = p.value("--rendezvous");
    }
    d->timeout = p.get<std::chrono::milliseconds>("--dist-timeout");
    if ((d->distributed() || d->launchLocal > 1) && cv.enabled)
        return bad("--folds with data-parallel workers is not supported: a cross-validation trains its folds one "
                   "after another in one process");
    return true;
}

// No progress bar (data-parallel workers other than rank 0, the folds of --parallel-folds,
// --no-progress), but SIGINT/SIGTERM still stop the training.
class QuietProgress final : public ProgressSink
{
public:
    void begin(std::string_view, uint64_t) override { }
    void update(uint64_t) override { }
    bool isCancelled() const override { return interruptRequested(); }
};

// `args` without the given options (and their values, "--x V" or "--x=V"; `flags`: no values).
std::vector<std::string> withoutOptions(
    const std::vector<std::string>& args, std::initializer_list<std::string_view> options, bool flags = false)
{
    std::vector<std::string> out;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        bool drop = false;
        for (std::string_view o : options) {
            if (a == o) {
                drop = true;
                if (!flags)
                    ++i; // its value
            } else if (a.size() > o.size() && a.compare(0, o.size(), o) == 0 && a[o.size()] == '=') {
                drop = true;
            }
        }
        if (!drop)
            out.push_back(a);
    }
    return out;
}

// --threads for each of `processes` children sharing this machine's cores (unless given).
void shareCores(const ArgParser& p, int processes, std::vector<std::string>* args)
{
    if (p.has("--threads"))
        return;
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    args->push_back("--threads");
    args->push_back(std::to_string(std::max(1, cores / processes)));
}

int launchLocal(const ArgParser& p, const DistSettings& d)
{
    LaunchOptions launch;
    launch.workers = d.launchLocal;
    launch.timeout = d.timeout;
    launch.project = p.value("--project");
    launch.trainArgs = withoutOptions(g_args, { "--launch-local" });
    shareCores(p, d.launchLocal, &launch.trainArgs);
    return launchLocalWorkers(launch);
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
    for (const FoldResult& f : r.folds)
        if (f.diverged)
            std::fprintf(stderr, "tgraph train: warning: fold %d %s\n", f.fold, f.message.c_str());
}

// --assemble: the ensemble of folds trained elsewhere (--fold K into the same --out).
int assembleFolds(const ArgParser& p, const TrainOptions& options, const CvSettings& cv)
{
    const std::string out = p.value("--out");
    const CrossValidationResult r = assembleEnsembleFromDir(options, cv.options, out, nullptr);
    printCrossValidation(r, out, cv.options);
    return r.ensemble.empty() ? ExitBadInput : ExitOk;
}

// --parallel-folds P: each fold trains in a child process (`--fold K`, recorded as a fold of this
// run when there is a project), at most P at a time; then the best folds form the ensemble.
int trainFoldsInParallel(const ArgParser& p, const TrainOptions& options, const CvSettings& cv, ProjectRun* run,
    TrainingSink& sink)
{
    OutputDir out(run ? run->dir() : p.value("--out"));
    std::vector<std::string> base = withoutOptions(
        withoutOptions(g_args, { "--parallel-folds", "--experiment", "--run-name", "--out", "-o" }), { "--no-progress" },
        true);
    base.push_back("--no-progress");
    if (run) // the folds write into this run's folder and record themselves as its fold runs
        base.insert(base.end(), { "--attach-run", run->id() });
    else
        base.insert(base.end(), { "--out", out.path() });
    const int concurrency = std::min(cv.parallelFolds, cv.options.trainFolds);
    shareCores(p, concurrency, &base);
    std::vector<ChildProcess> folds;
    for (int k = 0; k < cv.options.trainFolds; ++k) {
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
        Project project = Project::open(p.value("--project"), Project::Access::Write);
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
    const CrossValidationResult r = assembleEnsembleFromDir(options, cv.options, out.path(), &sink);
    printCrossValidation(r, out.path(), cv.options);
    if (run)
        run->finish(r.ensemble.empty() ? RunStatus::Failed : RunStatus::Finished,
            r.ensemble.empty() ? "no fold produced a checkpoint" : "");
    return r.ensemble.empty() ? ExitBadInput : ExitOk;
}

std::vector<std::string> dataEntries(const ArgParser& p)
{
    std::vector<std::string> entries;
    if (p.has("--data"))
        entries.push_back(p.value("--data"));
    entries.insert(entries.end(), p.positionals().begin(), p.positionals().end());
    return entries;
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

int trainLoaded(const ArgParser& p, const TrainingData& data, TrainOptions options, const CvSettings& cv,
    const Checkpoint* resume, const std::string& resumePath, ProjectRun* run, TrainingSink& sink,
    ProgressSink& progress, int threads, Communicator* comm);

int train(const ArgParser& p)
{
    TrainOptions options;
    std::string error;
    if (!readOptions(p, &options, &error))
        return usageError(kCommand, error);
    CvSettings cv;
    if (!readCv(p, &cv, &error))
        return usageError(kCommand, error);
    ConfigFoldOptions configFolds;
    if (p.has("--config-folds")) {
        configFolds.folds = p.get<int>("--config-folds");
        configFolds.fold = p.get<int>("--config-fold");
        configFolds.seed = p.get<uint32_t>("--config-fold-seed");
        if (configFolds.fold >= configFolds.folds)
            return usageError(kCommand, "--config-fold must be an integer in 0..--config-folds - 1");
        if (cv.enabled)
            return usageError(kCommand, "--config-folds and --folds exclude each other (configs or graphs held out)");
        // The held-out configurations are cut from graphs in memory; a graph read again from its
        // file (--resident-graphs) would bring them back into training.
        if (p.get<int64_t>("--resident-graphs") > 0)
            return usageError(kCommand, "--config-folds needs every graph in memory: no --resident-graphs with it");
    } else if (p.has("--config-fold") || p.has("--config-fold-seed")) {
        return usageError(kCommand, std::string(p.has("--config-fold") ? "--config-fold" : "--config-fold-seed")
                + " needs --config-folds");
    }
    DistSettings dist;
    if (!readDistributed(p, cv, &dist, &error))
        return usageError(kCommand, error);
    if (dist.launchLocal > 0)
        return launchLocal(p, dist);
    if (cv.assemble)
        return assembleFolds(p, options, cv);
    if (dist.distributed() && !p.has("--graphs-per-step"))
        options.graphsPerStep = dist.worldSize; // one graph per worker
    if (options.graphsPerStep < dist.worldSize)
        return usageError(kCommand, "--graphs-per-step must be at least --world-size (each worker takes a graph)");
    const bool writer = dist.rank == 0; // rank 0 alone writes the project, checkpoints and metrics
    const std::string projectPath = p.value("--project");
    if (!projectPath.empty() && p.has("--out"))
        return usageError(kCommand,
            "--out and --project: a project run keeps its checkpoints in the project's run folder "
            "(P.tgproj.d/runs/<id>/)");
    if (projectPath.empty() && (p.has("--experiment") || p.has("--run-name")))
        return usageError(kCommand, "--experiment and --run-name name a run of a project: give --project P.tgproj");
    // --resume RUN with --project: the run's latest checkpoint, continued in the same run.
    std::string resumePath = p.value("--resume");
    std::string resumeRun;
    if (!projectPath.empty() && !resumePath.empty()) {
        std::error_code ec;
        if (!fs::is_regular_file(resumePath, ec)) {
            resumeRun = resumePath;
            resumePath = ProjectRun::resumeCheckpoint(projectPath, resumeRun);
        }
    }
    if (!resumeRun.empty() && (p.has("--experiment") || p.has("--run-name")))
        return usageError(kCommand, "a resumed run keeps its experiment and name");
    std::vector<std::string> entries = dataEntries(p);
    if (resumePath.empty() && entries.empty())
        return usageError(kCommand, "no training data (--data DIR|FILE...)");
    if (!resumePath.empty() && cv.enabled)
        return usageError(kCommand,
            "--resume continues one run; to continue a cross-validation fold, resume its fold-K/last.npz without "
            "--folds");
    const std::string queuedRun = p.value("--queued-run");
    // A run the sweep queued again after an interruption continues from its checkpoint:
    // `--resume RUN --queued-run RUN` (docs/store.md §9).
    const bool queuedContinues = !queuedRun.empty() && !resumeRun.empty() && resumeRun == queuedRun;
    if (!queuedRun.empty()
        && (projectPath.empty() || (!resumePath.empty() && !queuedContinues) || p.has("--experiment")
            || p.has("--run-name") || cv.enabled || dist.distributed()))
        return usageError(kCommand,
            "--queued-run takes over a run a sweep queued in --project: no --experiment, --run-name, --folds, "
            "data-parallel workers or --resume of another run with it");
    if (p.has("--check-options")) {
        std::printf("options ok\n");
        return ExitOk;
    }

    std::optional<Checkpoint> resume;
    bool continuing = false;
    if (!resumePath.empty()) {
        resume = loadCheckpoint(resumePath);
        continuing = resume->totalSteps > 0;
        if (continuing) {
            for (const char* o : kHyperParameterOptions)
                if (p.has(o))
                    return usageError(kCommand,
                        std::string(o)
                            + ": a resumed run keeps the hyper-parameters of its checkpoint (start a new "
                              "run, or use 'tgraph weights export' + 'import' to restart from its weights)");
            options = resume->options;
            options.recompute = p.get<RecomputeMode>("--recompute"); // not hyper-parameters
            parseConfigChunk(p.value("--config-chunk"), &options.configChunk);
            if (options.graphsPerStep < dist.worldSize)
                return usageError(kCommand,
                    "the checkpoint's run takes " + std::to_string(options.graphsPerStep)
                        + " graphs per step, fewer than --world-size");
        } else {
            const bool cross = options.model.useCrossAttn;
            if (p.has("--cross-attn") && cross != resume->modelOptions().useCrossAttn)
                throw InputError(resumePath, "meta.use_cross_attn",
                    std::string("the weights have cross-attention ") + (cross ? "off" : "on")
                        + ", but --cross-attn says " + (cross ? "on" : "off"));
            const double dropout = options.model.dropout;
            options.model = resume->modelOptions();
            options.model.dropout = dropout;
        }
        if (options.configChunk > 0 && options.model.useCrossAttn)
            return usageError(kCommand,
                "--config-chunk " + configChunkName(options.configChunk) + ": the checkpoint's model has "
                    + "cross-attention on, so a step cannot be cut into chunks of configs");
    }

    const int threads = initTorchRuntime(p.get<int>("--threads"));
    // A setting of the process like --recompute: a resumed run takes the one given (docs/model.md §10.12).
    const std::string precision = applyPrecisionOption(p);

    std::unique_ptr<JsonLinesTrainingSink> jsonl;
    if (p.has("--metrics-jsonl"))
        jsonl = std::make_unique<JsonLinesTrainingSink>(p.value("--metrics-jsonl"));
    ConsoleSink console;
    TrainingSinks consoleSinks({ writer ? &console : nullptr, writer ? jsonl.get() : nullptr });
    TerminalProgress terminalProgress;
    QuietProgress quietProgress;
    ProgressSink& progress = writer && !p.has("--no-progress") ? static_cast<ProgressSink&>(terminalProgress)
                                                                : quietProgress;

    std::vector<DataFile> files;
    if (!entries.empty()) {
        files = listDataFiles(entries);
        // Checkpoints list the data files; absolute paths let a resume start from any directory.
        for (DataFile& f : files)
            f.path = fs::absolute(f.path).lexically_normal().string();
    } else {
        files = resume->dataFiles;
        if (files.empty())
            return usageError(kCommand, "the checkpoint lists no data files: give --data");
    }
    TrainingDataOptions dataOptions;
    dataOptions.dedup = options.dedup;
    dataOptions.progress = &progress;
    dataOptions.residentGraphs = p.get<int64_t>("--resident-graphs");
    if (p.has("--kind"))
        dataOptions.kind = p.value("--kind") == "layout" ? GraphKind::Layout : GraphKind::Tile;
    TrainingData data = loadTrainingData(files, dataOptions);
    if (options.configChunk > 0 && data.kind == GraphKind::Tile)
        return usageError(kCommand, "--config-chunk applies to layout graphs (a tile step takes a kernel's configs "
                                    "together)");
    holdOutConfigFold(data, configFolds); // before any run record: too few configs is bad input
    if (cv.enabled) // too few graphs for the folds: an error before any run record
        foldValidationSets(data, cv.options.folds, cv.options.foldSeed);

    // Data-parallel workers meet once each has its data (a failed rendezvous makes no run record).
    std::unique_ptr<GlooCommunicator> comm;
    if (dist.distributed()) {
        GlooOptions gloo;
        gloo.masterHost = dist.master.host;
        gloo.masterPort = dist.master.port;
        gloo.rank = dist.rank;
        gloo.worldSize = dist.worldSize;
        gloo.timeout = dist.timeout;
        gloo.rendezvousFile = dist.rendezvous;
        gloo.token = dist.token;
        try {
            comm = std::make_unique<GlooCommunicator>(gloo);
        } catch (const WorkerLost& e) {
            std::fprintf(stderr, "tgraph train: error: %s\n", e.what());
            return ExitBadInput;
        }
        if (writer)
            std::printf("data-parallel: %d workers, %lld graphs per step, master %s:%d\n", dist.worldSize,
                (long long)options.graphsPerStep, dist.master.host.c_str(), dist.master.port);
    }

    // A project run starts once the data are usable (bad data make no run record); from here on
    // every way out records the run's final status.
    std::unique_ptr<ProjectRun> run;
    std::unique_ptr<ConsoleSink> logSink;
    if (!projectPath.empty() && writer) {
        if (queuedContinues) {
            run = ProjectRun::continueQueued(projectPath, queuedRun, resume->counters.step);
        } else if (!resumeRun.empty()) {
            run = ProjectRun::resume(projectPath, resumeRun, g_commandLine, resume->counters.step);
        } else if (!cv.attachRun.empty()) {
            run = ProjectRun::attachFold(projectPath, cv.attachRun, cv.onlyFold);
        } else {
            std::string dataList;
            for (const std::string& e : entries)
                dataList += (dataList.empty() ? "" : ";") + e;
            std::vector<std::pair<std::string, std::string>> params { { "kind", graphKindName(data.kind) },
                { "data", dataList }, { "hparams", toJson(options) }, { "steps", std::to_string(options.steps) },
                { "epochs", std::to_string(options.epochs) },
                { "configs_per_step", std::to_string(options.configsPerStep) }, { "lr", p.value("--lr") },
                { "model", modelFamilyName(options.model.family) }, { "loss", lossKindName(effectiveLoss(options)) },
                { "parameters", std::to_string(modelParameterCount(options.model, data.kind)) },
                { "seed", std::to_string(options.seed) },
                { "folds", cv.enabled ? std::to_string(cv.options.folds) : "0" },
                { "parallel_folds", std::to_string(cv.parallelFolds) },
                { "config_folds", std::to_string(configFolds.folds) },
                { "config_fold", std::to_string(configFolds.fold) },
                { "config_fold_seed", std::to_string(configFolds.seed) },
                { "graphs_per_step", std::to_string(options.graphsPerStep) },
                { "workers", std::to_string(dist.worldSize) }, { "resumed_from_checkpoint", resumePath },
                { "precision", precision } };
            // Each model's own switches: cross-config attention is TGraph's, the reduction Kaufman's.
            if (options.model.family == ModelFamily::TGraph)
                params.push_back({ "cross_attn", options.model.useCrossAttn ? "on" : "off" });
            if (options.model.family == ModelFamily::Kaufman)
                params.push_back({ "reduction", nodeReductionName(options.model.reduction) });
            run = queuedRun.empty() ? ProjectRun::start(projectPath, p.value("--experiment"), p.value("--run-name"),
                                          g_commandLine, params)
                                    : ProjectRun::adoptQueued(projectPath, queuedRun, params);
            for (const TrainingGraph& g : data.graphs)
                run->writer().project().graphId(g.path);
        }
        logSink = std::make_unique<ConsoleSink>(run->log(), false);
        if (cv.attachRun.empty())
            std::printf("project run %s in %s (%s)\n", run->id().c_str(), projectPath.c_str(), run->dir().c_str());
    }
    TrainingSinks sink({ &consoleSinks, logSink.get(), run ? &run->writer() : nullptr });
    try {
        if (cv.parallelFolds > 0) {
            data = TrainingData(); // each fold's process loads its own
            return trainFoldsInParallel(p, options, cv, run.get(), sink);
        }
        return trainLoaded(p, data, options, cv, resume ? &*resume : nullptr, resumePath, run.get(), sink, progress,
            threads, comm.get());
    } catch (const WorkerLost& e) {
        // A worker ended or stopped answering: the run cannot go on (its last checkpoint stays).
        if (run)
            run->finish(RunStatus::Crashed, e.what());
        std::fprintf(stderr, "tgraph train: error: worker %d: %s\n", dist.rank, e.what());
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

int trainLoaded(const ArgParser& p, const TrainingData& data, TrainOptions options, const CvSettings& cv,
    const Checkpoint* resume, const std::string& resumePath, ProjectRun* run, TrainingSink& sink,
    ProgressSink& progress, int threads, Communicator* comm)
{
    const bool writer = !comm || comm->rank() == 0;
    std::optional<OutputDir> outDir;
    if (writer)
        outDir.emplace(run ? run->dir() : p.value("--out"));
    reportLoaded(data, sink);
    if (resume && resume->kind != data.kind)
        throw InputError(resumePath, resume->kind == GraphKind::Tile ? "head.0.weight" : "classifier.weight",
            std::string("a ") + graphKindName(resume->kind) + "-model checkpoint cannot train on "
                + graphKindName(data.kind) + " data (" + data.graphs.front().path + ")");
    if (options.steps == 0 && options.epochs == 0)
        options.epochs = data.kind == GraphKind::Layout ? 750 : 17.5; // docs/model.md §4.2: layout:xla, tile
    if (data.kind == GraphKind::Tile && p.has("--configs-per-step"))
        sink.runEvent({ RunEventKind::Warning, -1, 0,
            "--configs-per-step is ignored for tile data: every step uses all configs of a kernel (docs/model.md §5)", {} });
    sink.runEvent({ RunEventKind::Info, -1, 0,
        "LibTorch " + torchVersion() + ", " + std::to_string(threads) + " threads, " + blasName()
            + (bf16Products() ? ", bf16 products" : ", fp32 products") + (options.deterministic ? ", deterministic" : ""),
        {} });

    if (cv.enabled && cv.onlyFold >= 0) {
        // One fold of the protocol, as its own process (--parallel-folds, or another machine).
        OutputDir& out = *outDir;
        const FoldResult f = trainFold(data, options, cv.options, cv.onlyFold, out.path(), &sink, &progress);
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
    if (cv.enabled) {
        OutputDir& out = *outDir;
        const CrossValidationResult r = runCrossValidation(data, options, cv.options, out.path(), &sink, &progress);
        out.keep();
        printCrossValidation(r, out.path(), cv.options);
        if (run)
            run->finish(r.ensemble.empty() ? RunStatus::Failed : RunStatus::Finished,
                r.ensemble.empty() ? "no fold produced a checkpoint" : "");
        return r.ensemble.empty() ? ExitBadInput : ExitOk;
    }

    std::vector<size_t> trainGraphs = data.indicesOf(DataSplit::Train);
    std::vector<size_t> validGraphs = data.indicesOf(DataSplit::Valid);
    if (options.folds > 0) {
        // A cross-validation fold's checkpoint: rebuild its split from all graphs.
        const auto sets = foldValidationSets(data, options.folds, options.foldSeed);
        if (options.fold < 0 || options.fold >= options.folds)
            throw InputError(resumePath, "train.hparams", "fold index out of range");
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
    TrainResult r;
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
            ? "tgraph train --resume " + run->id().substr(0, 8) + " --project " + p.value("--project")
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

} // namespace

int runTrain(const std::vector<std::string>& args)
{
    ArgParser p(kCommand,
        "Train a cost model (TGraph by default, docs/model.md §4; --model for the others) on TpuGraphs\n"
        "layout or tile .npz files: one graph per step (--graphs-per-step G: their mean), the model's loss (TGraph: pairwise hinge), AdamW with warm-up "
        "+ cosine schedule, gradient clipping. Every --eval-every\n"
        "steps (and at the end) all configs of the validation graphs are ranked: Kendall tau, OPA and top-5\n"
        "slowdown per graph and mean; OUT/best.npz keeps the best mean tau, OUT/last.npz the latest state.\n"
        "Checkpoints are weights files that 'tgraph predict' reads, plus the training state for --resume.\n"
        "With --folds K: K-fold cross-validation at graph level over train+valid graphs (paper protocol:\n"
        "--folds 20 --train-folds 5 --keep 4), OUT/fold-K/{best,last}.npz and OUT/ensemble.json.",
        "--data DIR|FILE... [--model NAME] [--steps N | --epochs E] [--configs-per-step K] [--cross-attn on|off]\n"
        "              [--folds K --train-folds 5 --keep 4] [--lr LR] [--eval-every N] [--seed S] [--threads T]\n"
        "              [--out DIR] [--resume CKPT] [--metrics-jsonl FILE] [--project P.tgproj]\n"
        "              [--launch-local W | --world-size W --rank R --master HOST:PORT] [--graphs-per-step G]\n"
        "              [--folds K [--parallel-folds P | --fold K | --assemble]]");
    p.addPositional("FILE...", "more training data entries after --data (directories or .npz files)");
    p.addOption("--data", "", "DIR|FILE",
        "DIR with train/ (and valid/) .npz files as in TpuGraphs (test/ is not read); a directory of .npz files "
        "alone or .npz FILEs = training data only");
    p.addOption("--out", "-o", "DIR", "checkpoint directory (created)", "tgraph-run");
    p.addOption("--steps", "", "N", "optimizer steps (of --graphs-per-step graphs each)", {}, opt::integer(1));
    p.addOption("--epochs", "", "E",
        "passes over the training graphs (default: 750 for layout, 17.5 for tile data, as the paper)", {},
        opt::real(0).excludingMin());
    p.addOption("--configs-per-step", "", "K",
        "layout configs sampled per step without replacement (the code: 64 for default, 128 for random "
        "collections); tile steps use all configs",
        "64", opt::integer(2));
    p.addOption("--graphs-per-step", "", "G",
        "graphs per optimizer step, their losses averaged (default 1; with data-parallel workers: one per worker)", {},
        opt::integer(1));
    p.addOption("--kind", "", "layout|tile",
        "the model to train: TGraph layout or tile model; data of the other kind are refused (default: the data's)", {},
        opt::oneOf({ "layout", "tile" }));
    p.addOption("--model", "", "NAME",
        "the cost model: tgraph, tpugraphs-baseline (TpuGraphs ResModel), kaufman (Kaufman et al.'s learned TPU "
        "model) or tpgnn (GCN + TopK pooling); each writes its own weights npz",
        "tgraph",
        opt::oneOf({ ModelFamily::TGraph, ModelFamily::TpuGraphsBaseline, ModelFamily::Kaufman, ModelFamily::Tpgnn },
            modelFamilyName));
    p.addOption("--reduction", "", "R", "kaufman: node-to-graph reduction mean-max, per-node, lstm or transformer",
        "mean-max",
        opt::oneOf({ NodeReduction::MeanMax, NodeReduction::PerNode, NodeReduction::Lstm, NodeReduction::Transformer },
            nodeReductionName));
    p.addOption("--loss", "", "L",
        "auto (the model's own: tgraph/kaufman hinge, baseline listmle, tpgnn mse), hinge, logistic, listmle, or mse "
        "on log runtime",
        "auto",
        opt::oneOf(
            { LossKind::Auto, LossKind::Hinge, LossKind::Logistic, LossKind::ListMle, LossKind::Mse }, lossKindName));
    p.addOption("--hidden", "", "H", "model width (default: tgraph 256, baseline 32, kaufman and tpgnn 128)", {},
        opt::integer(4, 4096));
    p.addOption("--cross-attn", "", "on|off",
        "cross-configuration attention (the code: on for default, off for random collections)", "on",
        opt::oneOf({ "on", "off" }));
    p.addOption("--lr", "", "LR", "peak learning rate of AdamW", "1e-3", opt::real(0).excludingMin());
    p.addOption("--weight-decay", "", "WD", "AdamW weight decay", "1e-5", opt::real(0));
    p.addOption("--no-bias-decay", "", "", "paper: no weight decay on biases (code: decay on all parameters)");
    p.addOption(
        "--warmup", "", "SHARE", "linear warm-up share of the steps, then cosine to 0", "0.05", opt::real(0, 1));
    p.addOption("--clip", "", "NORM", "global gradient-norm clipping (0 = off)", "1.0", opt::real(0));
    p.addOption("--dropout", "", "P", "dropout of the graph blocks", "0.2", opt::real(0, 1).excludingMax());
    p.addOption("--residual-after-activation", "", "", "paper's block h + GELU(...) (code: GELU(h + ...))");
    p.addOption("--bidirectional-edges", "", "", "paper: aggregate over producers and consumers (code: consumers)");
    p.addOption("--dedup", "", "POLICY",
        "duplicate configs of train/ files: keep-first (code), keep-min (paper) or none", "keep-first",
        opt::oneOf({ DedupPolicy::KeepFirst, DedupPolicy::KeepMin, DedupPolicy::None }, dedupPolicyName));
    p.addOption("--eval-every", "", "N", "steps between validations and checkpoints (0 = only at the end)", "2000",
        opt::integer(0));
    p.addOption(
        "--eval-batch", "", "B", "configs per forward pass in validation (array_split chunks; with cross-attn memory grows with B x nodes, "
        "docs/model.md §6.1)",
        "128", opt::integer(1));
    p.addOption("--recompute", "", "MODE",
        "recompute each layer's activations in the backward pass (same gradients, far less memory; "
        "docs/model.md §11): auto (when a layer's activation reaches 128 MiB), on or off",
        "auto", opt::oneOf({ RecomputeMode::Auto, RecomputeMode::On, RecomputeMode::Off }, recomputeModeName));
    addPrecisionOption(p);
    p.addOption("--config-chunk", "", "K|auto|off",
        "layout steps without cross-attention in chunks of at most K configs: scores first without gradients, then "
        "forward and backward chunk by chunk with the same dropout masks (the same gradients in a chunk's memory, "
        "about one more forward pass; docs/model.md §11); auto: when a layer's activation reaches 128 MiB and "
        "--recompute is auto; needs --cross-attn off for K",
        "auto",
        opt::custom("auto, off or a number of configs >= 1 (0 = off)", [](const std::string& text) {
            int64_t chunk = 0;
            return parseConfigChunk(text, &chunk) ? std::string() : std::string("not auto, off or a number of configs");
        }));
    p.addOption("--resident-graphs", "", "N",
        "read layout graphs lazily: check and measure every file once, then read a graph again when a step or a "
        "validation uses it, holding at most N prepared graphs (configs base-7 compressed) in memory, for "
        "collections larger than memory (docs/model.md §2.4); 0 = every graph held in memory",
        "0", opt::integer(0, 1000000));
    p.addOption("--log-every", "", "N", "steps per progress line", "50", opt::integer(1));
    p.addOption("--max-nonfinite", "", "N", "stop after N consecutive steps with a non-finite loss or gradient", "20",
        opt::integer(1));
    p.addOption("--folds", "", "K", "K-fold cross-validation over train+valid graphs (the paper: 20)", {},
        opt::integer(2, std::numeric_limits<int>::max()));
    p.addOption("--train-folds", "", "N", "folds 0..N-1 are trained (N <= K)", "5",
        opt::integer(1, std::numeric_limits<int>::max()));
    p.addOption("--keep", "", "N", "the best N folds by validation mean tau form the ensemble (N <= --train-folds)",
        "4", opt::integer(1, std::numeric_limits<int>::max()));
    p.addOption("--fold-seed", "", "S", "shuffle seed of the fold assignment (the code's KFold random_state)", "123",
        opt::size(std::numeric_limits<uint32_t>::max()));
    p.addOption("--parallel-folds", "", "P",
        "train the folds as independent processes, P at a time (threads: cores / P each), then form the ensemble", {},
        opt::integer(1, 256));
    p.addOption("--fold", "", "K",
        "train fold K of the --folds protocol alone into OUT/fold-K/ (e.g. one fold per machine; then --assemble)", {},
        opt::integer(0, std::numeric_limits<int>::max()));
    p.addOption("--assemble", "", "",
        "train nothing: form OUT/ensemble.json from OUT/fold-K/fold.json of folds 0..--train-folds - 1 (same "
        "--folds, --fold-seed and --seed as they were trained with)");
    p.addOption("--attach-run", "", "RUN",
        "with --fold and --project: record the fold as a fold run of cross-validation run RUN (what "
        "--parallel-folds passes to its folds)");
    p.addOption("--config-folds", "", "K",
        "folds over configurations (docs/model.md §4.4.1): each training graph's configs cut into K folds; train on "
        "K-1, validate on the held-out configs of the same graphs (for 1-3 graphs, where --folds cannot work); "
        "give the same --config-* options again to --resume",
        {}, opt::integer(2, 1000));
    p.addOption("--config-fold", "", "k", "with --config-folds: the held-out fold (a sweep can vary it)", "0",
        opt::integer(0, 999));
    p.addOption("--config-fold-seed", "", "S", "with --config-folds: seed of the split of each graph's configs",
        "0", opt::size(std::numeric_limits<uint32_t>::max()));
    p.addOption("--seed", "", "S", "seed of initialization, dropout, config sampling and graph order (fold k: S+k)",
        "42", opt::size());
    p.addOption("--threads", "", "T", "LibTorch threads (0 = all cores; --launch-local: cores / workers each)", "0",
        threadsType());
    p.addOption("--launch-local", "", "W",
        "data-parallel training with W worker processes on this machine (ranks, master port and threads chosen "
        "here; SIGINT/SIGTERM stop them all after the same step)",
        {}, opt::integer(1, 256));
    p.addOption("--world-size", "", "W",
        "data-parallel training across processes or machines: W workers in all, each started with the same "
        "options and data paths, its --rank and the same --master (c10d TCPStore + Gloo all-reduce)",
        {}, opt::integer(1, 4096));
    p.addOption("--rank", "", "R",
        "this worker's rank in 0..W-1; rank 0 serves the store and alone writes the "
        "project, checkpoints and metrics",
        "0", opt::integer(0, 4095));
    p.addOption("--master", "", "HOST:PORT", "rank 0's address, reachable by every worker", "127.0.0.1:29500",
        opt::custom("HOST:PORT with a port in 1..65535, an IPv6 host in brackets", [](const std::string& text) {
            MasterAddress address;
            return parseMasterAddress(text, &address) ? std::string() : std::string("not an address");
        }));
    p.addOption("--rendezvous", "", "FILE",
        "instead of --master: the workers meet through this file (one machine, or a file system all of them "
        "share) and no store port is opened; --launch-local uses a private one",
        {});
    p.addOption("--token-file", "", "FILE",
        "the workers' shared secret (first line; the file must be private, mode 600), else the environment "
        "variable TGRAPH_WORKER_TOKEN: every worker proves it holds the same token before the run starts "
        "(--launch-local draws one for its workers)",
        {});
    p.addOption("--dist-timeout", "", "SEC",
        "give up on a worker that does not answer (rendezvous, store and every all-reduce); the run ends CRASHED",
        "300", opt::duration(1, 86400));
    p.addOption("--deterministic", "", "",
        "deterministic algorithms: a run repeats bitwise for the same seed, data and --threads");
    p.addOption("--resume", "", "CKPT|RUN",
        "continue from a checkpoint: steps, schedule, optimizer and generators exactly as saved; its "
        "hyper-parameters apply (from 'tgraph weights import': only its weights, the options given apply). With "
        "--project, RUN (an id, id prefix or name) continues that run from its latest checkpoint, appending to "
        "its history");
    p.addOption("--metrics-jsonl", "", "FILE", "also write every progress line and evaluation as JSON lines");
    p.addOption("--no-progress", "", "", "no progress bar on the terminal (the lines per interval stay)");
    p.addOption("--project", "", "P.tgproj",
        "record the run in a project file (created when missing): params, metrics, evaluations, status, "
        "heartbeat; checkpoints and train.log in P.tgproj.d/runs/<id>/");
    p.addOption("--experiment", "", "NAME", "project: the run's experiment", "Default");
    p.addOption("--run-name", "", "NAME", "project: the run's name (default: run-N)");
    p.addOption("--queued-run", "", "RUN",
        "project: record this process as run RUN, which 'tgraph sweep' queued and took for this process (its pid); "
        "refused for any other run; with --resume RUN, continue it from its checkpoint (docs/store.md §9)");
    p.addOption("--check-options", "", "",
        "check the options and exit (0: a run would start with them; 2: a usage error); nothing is loaded or "
        "written ('tgraph sweep' checks each configuration so)");
    p.addNote("Data-parallel: every worker loads the data and takes its share of each step's graphs; gradients are\n"
              "summed in buckets over the workers and averaged over the step's graphs before the same optimizer step\n"
              "on every worker. A worker that ends or does not answer within --dist-timeout ends the run as\n"
              "CRASHED (exit 1); its last checkpoint can be resumed with the same workers.\n"
              "Parallel folds: --parallel-folds P runs each fold as a process of its own (--fold K), often the better use\n"
              "of a few machines: on machine i run the same command with --fold i and an --out on a shared disk (or copy\n"
              "the fold-K folders together), then --assemble forms the ensemble as --folds does.\n");
    p.addNote("SIGINT or SIGTERM (Ctrl-C, 'tgraph runs stop') finishes the step in progress, writes OUT/last.npz\n"
              "and exits 130 (a project run ends KILLED); a second one exits at once.\n"
              "Exit status: 0 done, 1 bad input or a diverged run (non-finite losses), 2 usage, 130 interrupted\n"
              "(checkpoints already written stay; resume with --resume OUT/last.npz, or --resume RUN --project P).");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    g_args = args;
    g_commandLine = "tgraph train";
    for (const std::string& a : args)
        g_commandLine += " " + (a.find_first_of(" \t'\"") == std::string::npos ? a : "'" + a + "'");
    return guarded(kCommand, train, p);
}

} // namespace tgraph::cli
