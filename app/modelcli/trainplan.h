// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `tgraph train` is asked to do (docs/model.md §4): its parsed arguments, and the few facts on
// disk they depend on, resolved by one function into a TrainPlan value: the run mode, its inputs,
// outputs and options, or the usage error of an invalid combination (naming the flags). cmdtrain.cpp
// parses, resolves, then executes the plan. Torch-free, so tst_trainplan checks every mode and
// every refused combination without training anything.
//
// A new training option: a field here (or in TrainOptions), its declaration in
// trainArgumentParser() and its reading and checks in resolveTrainPlan().

#include "app/cli/argparser.h"
#include "app/modelcli/workerlaunch.h"

#include "core/graph/graph.h"
#include "core/train/configfolds.h"
#include "core/util/precision.h"
#include "model/train/trainoptions.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tgraph::cli {

enum class TrainMode {
    CheckOptions, // --check-options: print "options ok", nothing loaded or written
    LaunchLocal, // --launch-local W: start W data-parallel workers here and supervise them
    Assemble, // --folds K --assemble: the ensemble from OUT/fold-K/fold.json, nothing trained
    ParallelFolds, // --folds K --parallel-folds P: each fold a child process, then the ensemble
    OneFold, // --folds K --fold k: fold k alone into OUT/fold-k/
    CrossValidation, // --folds K: the folds one after another, then the ensemble
    Seeds, // --seeds N: N runs with seeds S..S+N-1 into OUT/seed-K/, one after another, then OUT/ensemble.npz
    Single, // one run: new or resumed, alone or as a data-parallel worker (--world-size)
};
const char* trainModeName(TrainMode mode);

// How a --project run is recorded (None without --project, and for workers other than rank 0).
enum class RunRecord {
    None,
    Start, // a new run
    Resume, // --resume RUN: the run continued from its latest checkpoint
    AdoptQueued, // --queued-run RUN: the run a sweep queued, started by this process
    ContinueQueued, // --resume RUN --queued-run RUN: a queued run continued after an interruption
    AttachFold, // --attach-run RUN --fold k: a fold run of cross-validation run RUN
};
const char* runRecordName(RunRecord record);

// What a checkpoint given to --resume holds, as far as the plan depends on it.
struct CheckpointFacts
{
    int64_t totalSteps = 0; // 0: weights only ('tgraph weights import'): the options given apply
    model::TrainOptions options; // the run's hyper-parameters (options.model = the weights' model)
    size_t dataFiles = 0; // data files the checkpoint lists
};

// The facts on disk the plan depends on; cmdtrain.cpp reads the real ones, tests pass their own.
class TrainPlanEnvironment
{
public:
    virtual ~TrainPlanEnvironment() = default;
    virtual bool isRegularFile(const std::string& path) const = 0;
    // The latest checkpoint of run RUN (id, id prefix or name) of a project; InputError when none.
    virtual std::string projectRunCheckpoint(const std::string& project, const std::string& run) const = 0;
    // The first line of a --token-file; `error` set (without the file's name) when it is not a
    // private, small, regular file with a non-empty first line.
    virtual std::string readTokenFile(const std::string& path, std::string* error) const = 0;
    virtual std::optional<std::string> environmentVariable(const std::string& name) const = 0;
    // Read only when a run resumes (never for --check-options); InputError for a bad file.
    virtual CheckpointFacts checkpoint(const std::string& path) = 0;
    virtual int cores() const = 0;
};

struct TrainPlan
{
    TrainMode mode = TrainMode::Single;
    std::string error; // the usage error of an invalid combination ("" = valid): exit 2
    bool ok() const { return error.empty(); }

    model::TrainOptions options; // with --resume of a training state: the checkpoint's

    // Cross-validation over graphs (--folds) and over configurations (--config-folds).
    bool crossValidation = false;
    int folds = 0;
    int trainFolds = 5;
    int keep = 4;
    uint32_t foldSeed = 123;
    int onlyFold = -1; // OneFold: the fold
    int parallelFolds = 0; // ParallelFolds: folds at a time
    std::string attachRun; // OneFold: record it as a fold of this project run
    ConfigFoldOptions configFolds;
    int seeds = 0; // Seeds: runs (0 = --seeds not given)

    // Data-parallel workers.
    int launchLocal = 0; // LaunchLocal: workers to start
    int worldSize = 1;
    int rank = 0;
    MasterAddress master { "127.0.0.1", 29500 };
    std::string rendezvous; // a rendezvous file instead of the master's TCP store
    std::string token; // the workers' shared secret
    std::chrono::milliseconds distTimeout { 300000 };
    bool distributed() const { return worldSize > 1; }
    bool writer() const { return rank == 0; } // rank 0 alone writes the project, checkpoints, metrics

    // Inputs.
    std::vector<std::string> dataEntries; // --data and the positional entries; empty: the checkpoint's
    std::optional<GraphKind> kind; // --kind
    int64_t residentGraphs = 0;
    bool configsPerStepGiven = false; // ignored (with a warning) for tile data
    std::string resumePath; // the checkpoint to resume from ("" = a new run)
    // Where a new run starts (docs/model.md §4.7): pretraining on simulated layouts, or given weights.
    int64_t pretrainSim = 0; // --pretrain-sim N (0 = none)
    int64_t pretrainSteps = 0; // --pretrain-steps S (0 = as many as the measured run, at least 100)
    std::string initFrom; // --init-from WEIGHTS
    bool recipe = false; // --recipe auto with no option of the training math: options for the data (§4.8)
    bool continuing = false; // the checkpoint holds a training state (not weights only)

    // Outputs.
    std::string outDir; // --out (a project run uses its own folder)
    std::string projectPath;
    RunRecord record = RunRecord::None;
    std::string experiment;
    std::string runName;
    std::string resumeRun; // RunRecord::Resume / ContinueQueued: the run given to --resume
    std::string queuedRun;
    std::string metricsJsonl;
    bool progressBar = true;
    int threads = 0; // LibTorch threads (0 = all cores)
    // Matrix products (--precision, docs/model.md §10.12): a setting of the process like --recompute,
    // so a resumed run takes the one given.
    tgraph::Precision precision = tgraph::Precision::Auto;

    std::string commandLine; // "tgraph train ..." for the project's run record
    // LaunchLocal: each worker's `train` arguments. ParallelFolds: the arguments common to every
    // fold (then "--attach-run RUN" when recorded in a project, and "--fold k").
    std::vector<std::string> childArgs;
};

// `tgraph train`'s options, --help text and notes.
ArgParser trainArgumentParser();

// The plan for `parser` (parsed from `args`). Usage errors go into TrainPlan::error; an unreadable
// or contradicting file (the checkpoint, the project) throws InputError.
TrainPlan resolveTrainPlan(const ArgParser& parser, const std::vector<std::string>& args, TrainPlanEnvironment& disk);

// `args` without the given options and their values ("--x V" or "--x=V"; `flags`: no values).
std::vector<std::string> withoutOptions(
    const std::vector<std::string>& args, std::initializer_list<std::string_view> options, bool flags = false);

} // namespace tgraph::cli
