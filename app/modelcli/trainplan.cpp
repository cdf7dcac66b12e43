// SPDX-License-Identifier: Apache-2.0
// `tgraph train`'s plan: its options and the one function that decides the run mode (trainplan.h).

#include "trainplan.h"

#include "app/cli/sharedoptions.h"
#include "core/util/error.h"

#include <algorithm>
#include <limits>

namespace tgraph::cli {

namespace {

using namespace tgraph::model;

constexpr const char* kCommand = "train";

// Options that define the training math: a resumed run keeps the checkpoint's.
const char* const kHyperParameterOptions[]
    = { "--steps", "--epochs", "--configs-per-step", "--cross-attn", "--lr", "--weight-decay", "--no-bias-decay",
          "--warmup", "--clip", "--dropout", "--eval-every", "--eval-batch", "--seed", "--deterministic", "--dedup",
          "--folds", "--train-folds", "--keep", "--fold-seed", "--max-nonfinite", "--residual-after-activation",
          "--bidirectional-edges", "--model", "--reduction", "--loss", "--hidden", "--graphs-per-step", "--sim-inputs" };

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
        for (const char* only : { "--cross-attn", "--residual-after-activation", "--bidirectional-edges", "--sim-inputs" })
            if (p.has(only))
                return bad(std::string(only) + " applies to --model tgraph only");
    o->model.useCrossAttn = p.value("--cross-attn") == "on";
    o->model.residualAfterActivation = p.has("--residual-after-activation");
    o->model.bidirectionalEdges = p.has("--bidirectional-edges");
    o->model.simInputs = p.has("--sim-inputs");
    if (o->model.simInputs && p.has("--kind") && p.value("--kind") == "tile")
        return bad("--sim-inputs applies to layout models (the simulator prices layouts)");
    if (o->model.simInputs && p.has("--resident-graphs"))
        return bad("--sim-inputs needs the graphs in memory: not with --resident-graphs");
    if (o->model.simInputs && p.has("--pretrain-sim"))
        return bad("--sim-inputs and --pretrain-sim do not combine yet (docs/model.md §4.9)");
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

// --folds and its companions.
bool readCv(const ArgParser& p, TrainPlan* plan, std::string* error)
{
    plan->crossValidation = p.has("--folds");
    if (!plan->crossValidation) {
        for (const char* o : { "--train-folds", "--keep", "--fold-seed", "--fold", "--parallel-folds", "--assemble" })
            if (p.has(o)) {
                *error = std::string(o) + " needs --folds";
                return false;
            }
        return true;
    }
    plan->folds = p.get<int>("--folds");
    plan->trainFolds = p.get<int>("--train-folds");
    plan->keep = p.get<int>("--keep");
    plan->foldSeed = p.get<uint32_t>("--fold-seed");
    if (p.has("--fold"))
        plan->onlyFold = p.get<int>("--fold");
    if (p.has("--parallel-folds"))
        plan->parallelFolds = p.get<int>("--parallel-folds");
    if (plan->trainFolds > plan->folds)
        *error = "--train-folds must be an integer in 1..--folds";
    else if (plan->keep > plan->trainFolds)
        *error = "--keep must be an integer in 1..--train-folds";
    else if (plan->onlyFold >= plan->folds)
        *error = "--fold must be an integer in 0..--folds - 1";
    else if (int(p.has("--fold")) + int(p.has("--parallel-folds")) + int(p.has("--assemble")) > 1)
        *error = "--fold, --parallel-folds and --assemble exclude each other";
    else if (p.has("--parallel-folds") && p.has("--metrics-jsonl"))
        *error = "--metrics-jsonl with --parallel-folds: the folds' processes cannot share one file (use --project)";
    else if (p.has("--assemble") && (p.has("--project") || !p.has("--out")))
        *error = "--assemble reads the folds of an output directory: give --out DIR (not --project)";
    plan->attachRun = p.value("--attach-run");
    if (error->empty() && !plan->attachRun.empty() && (plan->onlyFold < 0 || !p.has("--project")))
        *error = "--attach-run needs --fold and --project";
    return error->empty();
}

bool readConfigFolds(const ArgParser& p, TrainPlan* plan, std::string* error)
{
    if (!p.has("--config-folds")) {
        if (p.has("--config-fold") || p.has("--config-fold-seed"))
            *error = std::string(p.has("--config-fold") ? "--config-fold" : "--config-fold-seed")
                + " needs --config-folds";
        return error->empty();
    }
    ConfigFoldOptions& c = plan->configFolds;
    c.folds = p.get<int>("--config-folds");
    c.fold = p.get<int>("--config-fold");
    c.seed = p.get<uint32_t>("--config-fold-seed");
    if (c.fold >= c.folds)
        *error = "--config-fold must be an integer in 0..--config-folds - 1";
    else if (plan->crossValidation)
        *error = "--config-folds and --folds exclude each other (configs or graphs held out)";
    // The held-out configurations are cut from graphs in memory; a graph read again from its file
    // (--resident-graphs) would bring them back into training.
    else if (p.get<int64_t>("--resident-graphs") > 0)
        *error = "--config-folds needs every graph in memory: no --resident-graphs with it";
    return error->empty();
}

// --pretrain-sim N [--pretrain-steps S] or --init-from WEIGHTS (docs/model.md §4.7), and whether
// --recipe auto applies (§4.8). After readCv and readDistributed.
bool readStart(const ArgParser& p, TrainPlan* plan, std::string* error)
{
    const bool start = p.has("--pretrain-sim") || p.has("--init-from");
    if (p.has("--pretrain-steps") && !p.has("--pretrain-sim"))
        *error = "--pretrain-steps needs --pretrain-sim";
    else if (p.has("--pretrain-sim") && p.has("--init-from"))
        *error = "--pretrain-sim and --init-from exclude each other (both choose the run's starting weights)";
    else if (start && p.has("--resume"))
        *error = "--resume continues a run from its own weights: no --pretrain-sim or --init-from with it";
    else if (start && (plan->crossValidation || plan->distributed() || p.has("--launch-local")))
        *error = "--pretrain-sim and --init-from start a single run: not with --folds or data-parallel workers";
    if (!error->empty())
        return false;
    if (p.has("--pretrain-sim"))
        plan->pretrainSim = p.get<int64_t>("--pretrain-sim");
    if (p.has("--pretrain-steps"))
        plan->pretrainSteps = p.get<int64_t>("--pretrain-steps");
    plan->initFrom = p.value("--init-from");
    plan->recipe = p.value("--recipe") == "auto" && !plan->crossValidation && plan->writer();
    for (const char* o : kHyperParameterOptions)
        plan->recipe = plan->recipe && !p.has(o);
    for (const char* o : { "--pretrain-sim", "--init-from", "--resume", "--world-size", "--launch-local" })
        plan->recipe = plan->recipe && !p.has(o);
    return true;
}

// --seeds N (docs/model.md §6.3): N single runs that differ in their seed, then their ensemble.
// After readCv, readDistributed and readStart. Not in a project: a project run is one run's
// history (`tgraph sweep --seeds` records seeds as runs of a project; `tgraph weights combine`
// makes their ensemble).
bool readSeeds(const ArgParser& p, TrainPlan* plan, std::string* error)
{
    if (!p.has("--seeds"))
        return true;
    if (plan->crossValidation)
        *error = "--seeds and --folds exclude each other (--folds makes an ensemble of its folds)";
    else if (p.has("--resume"))
        *error = "--resume continues one run: no --seeds with it (resume a seed's OUT/seed-K/last.npz alone)";
    else if (plan->distributed() || p.has("--launch-local"))
        *error = "--seeds trains its runs one after another in one process: not with data-parallel workers";
    else if (p.has("--pretrain-sim") || p.has("--init-from"))
        *error = "--pretrain-sim and --init-from start a single run: not with --seeds";
    else if (p.has("--project") || p.has("--queued-run"))
        *error = "--seeds writes OUT/seed-K/ and OUT/ensemble.npz: give --out DIR, not --project (tgraph sweep "
                 "--seeds records seeds as runs of a project)";
    if (!error->empty())
        return false;
    plan->seeds = p.get<int>("--seeds");
    return true;
}

// Data-parallel workers (--world-size/--rank/--master) or a local launch of them (--launch-local).
bool readDistributed(const ArgParser& p, TrainPlanEnvironment& disk, TrainPlan* plan, std::string* error)
{
    auto bad = [error](const std::string& text) {
        *error = text;
        return false;
    };
    if (p.has("--launch-local")) {
        plan->launchLocal = p.get<int>("--launch-local");
        for (const char* o : { "--world-size", "--rank", "--master", "--rendezvous" })
            if (p.has(o))
                return bad(std::string(o) + ": --launch-local chooses the workers' ranks and master itself");
    }
    if (p.has("--world-size"))
        plan->worldSize = p.get<int>("--world-size");
    if (p.has("--rank") && !p.has("--world-size"))
        return bad("--rank needs --world-size");
    plan->rank = p.get<int>("--rank");
    if (plan->rank >= plan->worldSize)
        return bad("--rank must be an integer in 0..--world-size - 1");
    parseMasterAddress(p.value("--master"), &plan->master); // checked by the parser
    if (p.has("--token-file")) {
        const std::string file = p.value("--token-file");
        std::string problem;
        plan->token = disk.readTokenFile(file, &problem);
        if (!problem.empty())
            return bad("--token-file " + file + ": " + problem);
    } else if (const auto env = disk.environmentVariable("TGRAPH_WORKER_TOKEN")) {
        plan->token = *env;
    }
    if (p.has("--rendezvous")) {
        if (p.has("--master"))
            return bad("--rendezvous: the workers meet through the file or at --master, not both");
        plan->rendezvous = p.value("--rendezvous");
    }
    plan->distTimeout = p.get<std::chrono::milliseconds>("--dist-timeout");
    if ((plan->distributed() || plan->launchLocal > 1) && plan->crossValidation)
        return bad("--folds with data-parallel workers is not supported: a cross-validation trains its folds one "
                   "after another in one process");
    return true;
}

// --threads for each of `processes` children sharing this machine's cores (unless given).
void shareCores(const ArgParser& p, const TrainPlanEnvironment& disk, int processes, std::vector<std::string>* args)
{
    if (p.has("--threads"))
        return;
    args->push_back("--threads");
    args->push_back(std::to_string(std::max(1, std::max(1, disk.cores()) / processes)));
}

// The options a resumed checkpoint decides; a usage error when the combination cannot resume.
bool applyCheckpoint(const ArgParser& p, TrainPlanEnvironment& disk, TrainPlan* plan, std::string* error)
{
    auto bad = [error](const std::string& text) {
        *error = text;
        return false;
    };
    const CheckpointFacts facts = disk.checkpoint(plan->resumePath);
    plan->continuing = facts.totalSteps > 0;
    TrainOptions& options = plan->options;
    if (plan->continuing) {
        for (const char* o : kHyperParameterOptions)
            if (p.has(o))
                return bad(std::string(o)
                    + ": a resumed run keeps the hyper-parameters of its checkpoint (start a new "
                      "run, or use 'tgraph weights export' + 'import' to restart from its weights)");
        options = facts.options;
        options.recompute = p.get<RecomputeMode>("--recompute"); // not hyper-parameters
        parseConfigChunk(p.value("--config-chunk"), &options.configChunk);
        if (options.graphsPerStep < plan->worldSize)
            return bad("the checkpoint's run takes " + std::to_string(options.graphsPerStep)
                + " graphs per step, fewer than --world-size");
    } else {
        const bool cross = options.model.useCrossAttn;
        if (p.has("--cross-attn") && cross != facts.options.model.useCrossAttn)
            throw InputError(plan->resumePath, "meta.use_cross_attn",
                std::string("the weights have cross-attention ") + (cross ? "off" : "on") + ", but --cross-attn says "
                    + (cross ? "on" : "off"));
        const double dropout = options.model.dropout;
        options.model = facts.options.model;
        options.model.dropout = dropout;
    }
    if (options.configChunk > 0 && options.model.useCrossAttn)
        return bad("--config-chunk " + configChunkName(options.configChunk) + ": the checkpoint's model has "
            + "cross-attention on, so a step cannot be cut into chunks of configs");
    if (plan->dataEntries.empty() && facts.dataFiles == 0)
        return bad("the checkpoint lists no data files: give --data");
    return true;
}

// Everything after the arguments were parsed; returns the plan with `error` set on a usage error.
void resolve(const ArgParser& p, const std::vector<std::string>& args, TrainPlanEnvironment& disk, TrainPlan& plan)
{
    std::string& error = plan.error;
    if (!readOptions(p, &plan.options, &error) || !readCv(p, &plan, &error) || !readConfigFolds(p, &plan, &error)
        || !readDistributed(p, disk, &plan, &error) || !readStart(p, &plan, &error) || !readSeeds(p, &plan, &error))
        return;
    plan.threads = p.get<int>("--threads");
    plan.precision = precisionOption(p);
    plan.outDir = p.value("--out");
    if (plan.launchLocal > 0) {
        plan.mode = TrainMode::LaunchLocal;
        plan.projectPath = p.value("--project");
        plan.childArgs = withoutOptions(args, { "--launch-local" });
        shareCores(p, disk, plan.launchLocal, &plan.childArgs);
        return;
    }
    if (p.has("--assemble")) {
        plan.mode = TrainMode::Assemble;
        return;
    }
    TrainOptions& options = plan.options;
    if (plan.distributed() && !p.has("--graphs-per-step"))
        options.graphsPerStep = plan.worldSize; // one graph per worker
    if (options.graphsPerStep < plan.worldSize) {
        error = "--graphs-per-step must be at least --world-size (each worker takes a graph)";
        return;
    }
    plan.projectPath = p.value("--project");
    plan.experiment = p.value("--experiment");
    plan.runName = p.value("--run-name");
    const bool project = !plan.projectPath.empty();
    if (project && p.has("--out")) {
        error = "--out and --project: a project run keeps its checkpoints in the project's run folder "
                "(P.tgproj.d/runs/<id>/)";
        return;
    }
    if (!project && (p.has("--experiment") || p.has("--run-name"))) {
        error = "--experiment and --run-name name a run of a project: give --project P.tgproj";
        return;
    }
    // --resume RUN with --project: the run's latest checkpoint, continued in the same run.
    plan.resumePath = p.value("--resume");
    if (project && !plan.resumePath.empty() && !disk.isRegularFile(plan.resumePath)) {
        plan.resumeRun = plan.resumePath;
        plan.resumePath = disk.projectRunCheckpoint(plan.projectPath, plan.resumeRun);
    }
    if (!plan.resumeRun.empty() && (p.has("--experiment") || p.has("--run-name"))) {
        error = "a resumed run keeps its experiment and name";
        return;
    }
    if (p.has("--data"))
        plan.dataEntries.push_back(p.value("--data"));
    plan.dataEntries.insert(plan.dataEntries.end(), p.positionals().begin(), p.positionals().end());
    if (plan.resumePath.empty() && plan.dataEntries.empty()) {
        error = "no training data (--data DIR|FILE...)";
        return;
    }
    if (!plan.resumePath.empty() && plan.crossValidation) {
        error = "--resume continues one run; to continue a cross-validation fold, resume its fold-K/last.npz without "
                "--folds";
        return;
    }
    plan.queuedRun = p.value("--queued-run");
    // A run the sweep queued again after an interruption continues from its checkpoint:
    // `--resume RUN --queued-run RUN` (docs/store.md §9).
    const bool queuedContinues = !plan.queuedRun.empty() && !plan.resumeRun.empty() && plan.resumeRun == plan.queuedRun;
    if (!plan.queuedRun.empty()
        && (!project || (!plan.resumePath.empty() && !queuedContinues) || p.has("--experiment") || p.has("--run-name")
            || plan.crossValidation || plan.distributed())) {
        error = "--queued-run takes over a run a sweep queued in --project: no --experiment, --run-name, --folds, "
                "data-parallel workers or --resume of another run with it";
        return;
    }
    if (p.has("--check-options")) {
        plan.mode = TrainMode::CheckOptions;
        return;
    }
    if (!plan.resumePath.empty() && !applyCheckpoint(p, disk, &plan, &error))
        return;

    plan.metricsJsonl = p.value("--metrics-jsonl");
    plan.progressBar = plan.writer() && !p.has("--no-progress");
    plan.residentGraphs = p.get<int64_t>("--resident-graphs");
    plan.configsPerStepGiven = p.has("--configs-per-step");
    if (p.has("--kind"))
        plan.kind = p.value("--kind") == "layout" ? GraphKind::Layout : GraphKind::Tile;
    if (project && plan.writer()) {
        if (queuedContinues)
            plan.record = RunRecord::ContinueQueued;
        else if (!plan.resumeRun.empty())
            plan.record = RunRecord::Resume;
        else if (!plan.attachRun.empty())
            plan.record = RunRecord::AttachFold;
        else if (!plan.queuedRun.empty())
            plan.record = RunRecord::AdoptQueued;
        else
            plan.record = RunRecord::Start;
    }
    if (plan.parallelFolds > 0) {
        plan.mode = TrainMode::ParallelFolds;
        // The folds write into this run's folder and record themselves as its fold runs (the run's
        // id is appended when it is known), or into --out.
        plan.childArgs
            = withoutOptions(withoutOptions(args, { "--parallel-folds", "--experiment", "--run-name", "--out", "-o" }),
                { "--no-progress" }, true);
        plan.childArgs.push_back("--no-progress");
        if (!project)
            plan.childArgs.insert(plan.childArgs.end(), { "--out", plan.outDir });
        shareCores(p, disk, std::min(plan.parallelFolds, plan.trainFolds), &plan.childArgs);
    } else if (plan.crossValidation && plan.onlyFold >= 0) {
        plan.mode = TrainMode::OneFold;
    } else if (plan.crossValidation) {
        plan.mode = TrainMode::CrossValidation;
    } else if (plan.seeds > 0) {
        plan.mode = TrainMode::Seeds;
    } else {
        plan.mode = TrainMode::Single;
    }
    plan.recipeMaySeed = plan.recipe && plan.mode == TrainMode::Single && plan.record == RunRecord::None
        && plan.resumePath.empty() && !plan.distributed();
}

} // namespace

const char* trainModeName(TrainMode mode)
{
    switch (mode) {
    case TrainMode::CheckOptions:
        return "check-options";
    case TrainMode::LaunchLocal:
        return "launch-local";
    case TrainMode::Assemble:
        return "assemble";
    case TrainMode::ParallelFolds:
        return "parallel-folds";
    case TrainMode::OneFold:
        return "one-fold";
    case TrainMode::CrossValidation:
        return "cross-validation";
    case TrainMode::Seeds:
        return "seeds";
    case TrainMode::Single:
        return "single";
    }
    return "?";
}

const char* runRecordName(RunRecord record)
{
    switch (record) {
    case RunRecord::None:
        return "none";
    case RunRecord::Start:
        return "start";
    case RunRecord::Resume:
        return "resume";
    case RunRecord::AdoptQueued:
        return "adopt-queued";
    case RunRecord::ContinueQueued:
        return "continue-queued";
    case RunRecord::AttachFold:
        return "attach-fold";
    }
    return "?";
}

std::vector<std::string> withoutOptions(
    const std::vector<std::string>& args, std::initializer_list<std::string_view> options, bool flags)
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

ArgParser trainArgumentParser()
{
    ArgParser p(kCommand,
        "Train a cost model (TGraph by default, docs/model.md §4; --model for the others) on TpuGraphs\n"
        "layout or tile .npz files: one graph per step (--graphs-per-step G: their mean), the model's loss (TGraph: "
        "pairwise hinge), AdamW with warm-up "
        "+ cosine schedule, gradient clipping. Every --eval-every\n"
        "steps (and at the end) all configs of the validation graphs are ranked: Kendall tau, OPA and top-5\n"
        "slowdown per graph and mean; OUT/best.npz keeps the best mean tau, OUT/last.npz the latest state.\n"
        "Checkpoints are weights files that 'tgraph predict' reads, plus the training state for --resume.\n"
        "With --folds K: K-fold cross-validation at graph level over train+valid graphs (paper protocol:\n"
        "--folds 20 --train-folds 5 --keep 4), OUT/fold-K/{best,last}.npz, OUT/ensemble.json and the same\n"
        "ensemble as one file, OUT/ensemble.npz. With --seeds N: N runs with seeds S..S+N-1 into OUT/seed-K/\n"
        "and OUT/ensemble.npz of their best checkpoints ('tgraph predict --weights OUT/ensemble.npz').",
        "--data DIR|FILE... [--model NAME] [--steps N | --epochs E] [--configs-per-step K] [--cross-attn on|off]\n"
        "              [--folds K --train-folds 5 --keep 4 | --seeds N] [--lr LR] [--eval-every N] [--seed S]\n"
        "              [--threads T]\n"
        "              [--out DIR] [--resume CKPT] [--metrics-jsonl FILE] [--project P.tgproj]\n"
        "              [--pretrain-sim N [--pretrain-steps S] | --init-from WEIGHTS] [--recipe auto|none]\n"
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
    p.addOption("--sim-inputs", "", "",
        "hybrid model: the simulator's estimate of each config per configurable node as inputs, priced on each "
        "graph's HLO module (FILE.pb/.hlo/.txt beside FILE.npz, or a synth collection's); docs/model.md §4.9");
    p.addOption("--dedup", "", "POLICY",
        "duplicate configs of train/ files: keep-first (code), keep-min (paper) or none", "keep-first",
        opt::oneOf({ DedupPolicy::KeepFirst, DedupPolicy::KeepMin, DedupPolicy::None }, dedupPolicyName));
    p.addOption("--eval-every", "", "N", "steps between validations and checkpoints (0 = only at the end)", "2000",
        opt::integer(0));
    p.addOption("--eval-batch", "", "B",
        "configs per forward pass in validation (array_split chunks; with cross-attn memory grows with B x nodes, "
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
        "auto", opt::custom("auto, off or a number of configs >= 1 (0 = off)", [](const std::string& text) {
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
    p.addOption("--config-fold-seed", "", "S", "with --config-folds: seed of the split of each graph's configs", "0",
        opt::size(std::numeric_limits<uint32_t>::max()));
    p.addOption("--seed", "", "S",
        "seed of initialization, dropout, config sampling and graph order (fold k, --seeds run k: S+k)", "42",
        opt::size());
    p.addOption("--seeds", "", "N",
        "a seed ensemble (docs/model.md §6.3): N runs with seeds S, S+1, ... into OUT/seed-K/, one after another, "
        "then OUT/ensemble.npz of their best checkpoints (the last where a run has no validation graphs)",
        {}, opt::integer(1, 1000));
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
    p.addOption("--pretrain-sim", "", "N",
        "sim-to-real pretraining (docs/model.md §4.7): price N sampled layouts of each training graph's own HLO "
        "module (DIR/STEM.pb, .hlo or .txt beside DIR/STEM.npz, or a tgraph synth graph's regenerated module) "
        "with the analytical simulator, train on them first (OUT/pretrain/), then on the measured configs",
        {}, opt::integer(2, 1000000));
    p.addOption("--pretrain-steps", "", "S",
        "steps of the pretraining phase (default: as many as the measured run, at least 100)", {},
        opt::integer(1));
    p.addOption("--init-from", "", "WEIGHTS",
        "start from these weights (e.g. OUT/pretrain/last.npz of a pretrained run) with a new schedule; the "
        "model options must match the weights'");
    p.addOption("--recipe", "", "auto|none",
        "auto: with no option of the training math (--steps, --lr, --hidden, ...), pick the options for the data "
        "and say which (docs/model.md §4.8: few graphs with a few hundred configs = a tuning record: lr 3e-3 and 3 "
        "seeds written as OUT/ensemble.npz, with --sim-inputs when a graph's module is known; else a collection: "
        "the paper's settings); none: the plain defaults",
        "auto", opt::oneOf({ "auto", "none" }));
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
    p.addNote(
        "Data-parallel: every worker loads the data and takes its share of each step's graphs; gradients are\n"
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
    return p;
}

TrainPlan resolveTrainPlan(const ArgParser& parser, const std::vector<std::string>& args, TrainPlanEnvironment& disk)
{
    TrainPlan plan;
    plan.commandLine = "tgraph train";
    for (const std::string& a : args)
        plan.commandLine += " " + (a.find_first_of(" \t'\"") == std::string::npos ? a : "'" + a + "'");
    resolve(parser, args, disk, plan);
    return plan;
}

} // namespace tgraph::cli
