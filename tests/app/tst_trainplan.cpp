// SPDX-License-Identifier: Apache-2.0
// `tgraph train`'s plan (app/modelcli/trainplan.h): every run mode, how a --project run is recorded,
// what a resumed checkpoint decides, the arguments passed to child processes, and every refused
// combination with the flags its message names. The facts on disk (files, project runs, token
// files, checkpoints) come from a fake, so nothing is read, trained or written.

#include "app/modelcli/trainplan.h"

#include "core/util/error.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace tgraph;
using namespace tgraph::cli;

namespace {

class FakeDisk final : public TrainPlanEnvironment
{
public:
    std::set<std::string> files;
    std::map<std::string, std::string> runCheckpoints; // "project|run" -> checkpoint
    std::map<std::string, std::string> tokenFiles; // path -> first line ("" = refused below)
    std::map<std::string, std::string> environment;
    std::map<std::string, CheckpointFacts> checkpoints;
    int coreCount = 8;
    mutable int checkpointsRead = 0;

    bool isRegularFile(const std::string& path) const override { return files.count(path) > 0; }
    std::string projectRunCheckpoint(const std::string& project, const std::string& run) const override
    {
        const auto it = runCheckpoints.find(project + "|" + run);
        if (it == runCheckpoints.end())
            throw InputError(project, "runs", "no run '" + run + "'");
        return it->second;
    }
    std::string readTokenFile(const std::string& path, std::string* error) const override
    {
        const auto it = tokenFiles.find(path);
        if (it == tokenFiles.end())
            *error = "No such file or directory";
        else if (it->second.empty())
            *error = "the first line is empty";
        return it == tokenFiles.end() ? std::string() : it->second;
    }
    std::optional<std::string> environmentVariable(const std::string& name) const override
    {
        const auto it = environment.find(name);
        return it == environment.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    CheckpointFacts checkpoint(const std::string& path) override
    {
        ++checkpointsRead;
        const auto it = checkpoints.find(path);
        if (it == checkpoints.end())
            throw InputError(path, "", "not a checkpoint");
        return it->second;
    }
    int cores() const override { return coreCount; }
};

TrainPlan resolveWith(const std::vector<std::string>& args, FakeDisk& disk)
{
    ArgParser parser = trainArgumentParser();
    std::string error;
    if (!parser.parse(args, &error))
        throw std::runtime_error("the parser refused the arguments: " + error);
    return resolveTrainPlan(parser, args, disk);
}

TrainPlan resolveWith(const std::vector<std::string>& args)
{
    FakeDisk disk;
    return resolveWith(args, disk);
}

// A training state of 100 steps, with options that differ from every default.
CheckpointFacts trainingState()
{
    CheckpointFacts facts;
    facts.totalSteps = 100;
    facts.options.steps = 100;
    facts.options.learningRate = 0.25;
    facts.options.graphsPerStep = 2;
    facts.options.seed = 7;
    facts.options.model.hidden = 64;
    facts.options.model.useCrossAttn = false;
    facts.dataFiles = 3;
    return facts;
}

CheckpointFacts weightsOnly(bool crossAttn)
{
    CheckpointFacts facts;
    facts.options.model.hidden = 32;
    facts.options.model.useCrossAttn = crossAttn;
    facts.options.model.dropout = 0.5;
    return facts;
}

bool contains(const std::vector<std::string>& v, const std::vector<std::string>& run)
{
    return std::search(v.begin(), v.end(), run.begin(), run.end()) != v.end();
}

} // namespace

class TestTrainPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void singleRun()
    {
        const TrainPlan plan = resolveWith(
            { "--data", "d", "more.npz", "--steps", "30", "--lr", "0.01", "--seed", "5", "--out", "o", "--threads", "3",
                "--kind", "tile", "--resident-graphs", "4", "--metrics-jsonl", "m.jsonl", "--no-progress", "--precision",
                "bf16" });
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.mode, TrainMode::Single);
        QCOMPARE(plan.dataEntries, (std::vector<std::string> { "d", "more.npz" }));
        QCOMPARE(plan.options.steps, int64_t(30));
        QCOMPARE(plan.options.learningRate, 0.01);
        QCOMPARE(plan.options.seed, uint64_t(5));
        QCOMPARE(plan.outDir, std::string("o"));
        QCOMPARE(plan.threads, 3);
        QCOMPARE(plan.precision, tgraph::Precision::Bf16);
        QVERIFY(plan.kind && *plan.kind == GraphKind::Tile);
        QCOMPARE(plan.residentGraphs, int64_t(4));
        QCOMPARE(plan.metricsJsonl, std::string("m.jsonl"));
        QVERIFY(!plan.progressBar);
        QCOMPARE(plan.record, RunRecord::None);
        QVERIFY(plan.resumePath.empty());
        QVERIFY(!plan.distributed());
        QCOMPARE(plan.commandLine,
            std::string("tgraph train --data d more.npz --steps 30 --lr 0.01 --seed 5 --out o "
                        "--threads 3 --kind tile --resident-graphs 4 --metrics-jsonl m.jsonl "
                        "--no-progress --precision bf16"));
        // Defaults: the model's own width, a progress bar, the default --out.
        const TrainPlan defaults = resolveWith({ "--data", "d", "--model", "kaufman" });
        QVERIFY2(defaults.ok(), defaults.error.c_str());
        QCOMPARE(defaults.options.model.hidden, int64_t(128));
        QVERIFY(defaults.progressBar);
        QCOMPARE(defaults.precision, tgraph::Precision::Auto);
        QCOMPARE(defaults.outDir, std::string("tgraph-run"));
        QVERIFY(!defaults.configsPerStepGiven);
        QVERIFY(resolveWith({ "--data", "d", "--configs-per-step", "8" }).configsPerStepGiven);
    }

    void startOfRunAndRecipe()
    {
        // The recipe (docs/model.md §4.8) applies only to a plain single run.
        QVERIFY(resolveWith({ "--data", "d" }).recipe);
        QVERIFY(!resolveWith({ "--data", "d", "--recipe", "none" }).recipe);
        for (const auto& [o, v] : std::vector<std::pair<std::string, std::string>> {
                 { "--steps", "3" }, { "--lr", "0.01" }, { "--seed", "3" }, { "--hidden", "64" } })
            QVERIFY2(!resolveWith({ "--data", "d", o, v }).recipe, o.c_str());
        QVERIFY(!resolveWith({ "--data", "d", "--folds", "6" }).recipe);
        QVERIFY(!resolveWith({ "--data", "d", "--init-from", "w.npz" }).recipe);
        const TrainPlan pretrained = resolveWith({ "--data", "d", "--pretrain-sim", "500", "--pretrain-steps", "40" });
        QVERIFY2(pretrained.ok(), pretrained.error.c_str());
        QCOMPARE(pretrained.pretrainSim, int64_t(500));
        QCOMPARE(pretrained.pretrainSteps, int64_t(40));
        QVERIFY(!pretrained.recipe);
        const TrainPlan init = resolveWith({ "--data", "d", "--init-from", "w.npz" });
        QVERIFY2(init.ok(), init.error.c_str());
        QCOMPARE(init.initFrom, std::string("w.npz"));
        QCOMPARE(init.pretrainSim, int64_t(0));
    }

    void commandLineQuotesArguments()
    {
        const TrainPlan plan = resolveWith({ "--data", "my data", "--run-name", "it's", "--project", "p.tgproj" });
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.commandLine, std::string("tgraph train --data 'my data' --run-name 'it's' --project p.tgproj"));
    }

    void checkOptionsReadsNothing()
    {
        FakeDisk disk;
        const TrainPlan plan = resolveWith({ "--resume", "missing.npz", "--check-options" }, disk);
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.mode, TrainMode::CheckOptions);
        QCOMPARE(disk.checkpointsRead, 0);
        // The checks before it still apply.
        QCOMPARE(resolveWith({ "--check-options" }).error, std::string("no training data (--data DIR|FILE...)"));
    }

    void crossValidationModes()
    {
        const TrainPlan cv
            = resolveWith({ "--data", "d", "--folds", "6", "--train-folds", "3", "--keep", "2", "--fold-seed", "9" });
        QVERIFY2(cv.ok(), cv.error.c_str());
        QCOMPARE(cv.mode, TrainMode::CrossValidation);
        QVERIFY(cv.crossValidation);
        QCOMPARE(cv.folds, 6);
        QCOMPARE(cv.trainFolds, 3);
        QCOMPARE(cv.keep, 2);
        QCOMPARE(cv.foldSeed, uint32_t(9));

        const TrainPlan one = resolveWith({ "--data", "d", "--folds", "6", "--fold", "5" });
        QVERIFY2(one.ok(), one.error.c_str());
        QCOMPARE(one.mode, TrainMode::OneFold);
        QCOMPARE(one.onlyFold, 5);

        const TrainPlan assemble = resolveWith({ "--folds", "6", "--assemble", "--out", "o" });
        QVERIFY2(assemble.ok(), assemble.error.c_str()); // no data needed
        QCOMPARE(assemble.mode, TrainMode::Assemble);
        QCOMPARE(assemble.outDir, std::string("o"));
    }

    void parallelFoldsPassTheirArguments()
    {
        FakeDisk disk;
        disk.coreCount = 8;
        const TrainPlan plan = resolveWith({ "--data", "d", "--folds", "6", "--train-folds", "3", "--keep", "2",
                                               "--parallel-folds", "2", "-o", "o", "--steps", "5", "--no-progress" },
            disk);
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.mode, TrainMode::ParallelFolds);
        QCOMPARE(plan.parallelFolds, 2);
        // --parallel-folds and --out dropped, --no-progress once, the output directory and cores / 2 appended.
        QCOMPARE(plan.childArgs,
            (std::vector<std::string> { "--data", "d", "--folds", "6", "--train-folds", "3", "--keep", "2", "--steps",
                "5", "--no-progress", "--out", "o", "--threads", "4" }));
        // In a project: no --out, no run name (the folds attach to the run); --threads kept when given.
        const TrainPlan project = resolveWith({ "--data", "d", "--folds", "6", "--parallel-folds", "8", "--project",
            "p.tgproj", "--run-name", "cv", "--experiment", "e", "--threads", "1" });
        QVERIFY2(project.ok(), project.error.c_str());
        QCOMPARE(project.record, RunRecord::Start);
        QCOMPARE(project.childArgs,
            (std::vector<std::string> {
                "--data", "d", "--folds", "6", "--project", "p.tgproj", "--threads", "1", "--no-progress" }));
        // More processes than folds: the cores are shared by the folds that run (5 by default).
        const TrainPlan wide = resolveWith({ "--data", "d", "--folds", "6", "--parallel-folds", "100" }, disk);
        QVERIFY2(wide.ok(), wide.error.c_str());
        QVERIFY(contains(wide.childArgs, { "--threads", "1" }));
    }

    void launchLocalPassesItsArguments()
    {
        FakeDisk disk;
        disk.coreCount = 6;
        const TrainPlan plan
            = resolveWith({ "--data", "d", "--launch-local=3", "--steps", "4", "--project", "p.tgproj" }, disk);
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.mode, TrainMode::LaunchLocal);
        QCOMPARE(plan.launchLocal, 3);
        QCOMPARE(plan.projectPath, std::string("p.tgproj"));
        QCOMPARE(plan.childArgs,
            (std::vector<std::string> { "--data", "d", "--steps", "4", "--project", "p.tgproj", "--threads", "2" }));
        // A launch decides before the data: the workers check their own.
        QVERIFY(resolveWith({ "--launch-local", "2" }).ok());
    }

    void dataParallelWorkers()
    {
        FakeDisk disk;
        disk.environment["TGRAPH_WORKER_TOKEN"] = "from-env";
        const TrainPlan worker = resolveWith({ "--data", "d", "--world-size", "4", "--rank", "2", "--master",
                                                 "[::1]:1234", "--dist-timeout", "9", "--project", "p.tgproj" },
            disk);
        QVERIFY2(worker.ok(), worker.error.c_str());
        QCOMPARE(worker.mode, TrainMode::Single);
        QVERIFY(worker.distributed());
        QCOMPARE(worker.rank, 2);
        QVERIFY(!worker.writer());
        QVERIFY(!worker.progressBar);
        QCOMPARE(worker.record, RunRecord::None); // rank 0 alone records the run
        QCOMPARE(worker.master.host, std::string("::1"));
        QCOMPARE(worker.master.port, 1234);
        QCOMPARE(worker.distTimeout, std::chrono::milliseconds(9000));
        QCOMPARE(worker.options.graphsPerStep, int64_t(4)); // one graph per worker
        QCOMPARE(worker.token, std::string("from-env"));

        disk.tokenFiles["t"] = "secret";
        const TrainPlan leader = resolveWith(
            { "--data", "d", "--world-size", "2", "--graphs-per-step", "6", "--token-file", "t", "--rendezvous", "r" },
            disk);
        QVERIFY2(leader.ok(), leader.error.c_str());
        QVERIFY(leader.writer());
        QCOMPARE(leader.options.graphsPerStep, int64_t(6));
        QCOMPARE(leader.token, std::string("secret")); // the file wins over the environment
        QCOMPARE(leader.rendezvous, std::string("r"));
    }

    void projectRunRecords()
    {
        FakeDisk disk;
        disk.runCheckpoints["p.tgproj|run-1"] = "p.tgproj.d/runs/abc/last.npz";
        disk.runCheckpoints["p.tgproj|q"] = "p.tgproj.d/runs/q/last.npz";
        disk.checkpoints["p.tgproj.d/runs/abc/last.npz"] = trainingState();
        disk.checkpoints["p.tgproj.d/runs/q/last.npz"] = trainingState();
        disk.checkpoints["file.npz"] = trainingState();
        disk.files.insert("file.npz");

        const TrainPlan start
            = resolveWith({ "--data", "d", "--project", "p.tgproj", "--experiment", "e", "--run-name", "n" }, disk);
        QVERIFY2(start.ok(), start.error.c_str());
        QCOMPARE(start.record, RunRecord::Start);
        QCOMPARE(start.experiment, std::string("e"));
        QCOMPARE(start.runName, std::string("n"));
        QCOMPARE(start.outDir, std::string("tgraph-run")); // unused: the run's folder

        const TrainPlan resume = resolveWith({ "--resume", "run-1", "--project", "p.tgproj" }, disk);
        QVERIFY2(resume.ok(), resume.error.c_str());
        QCOMPARE(resume.record, RunRecord::Resume);
        QCOMPARE(resume.resumeRun, std::string("run-1"));
        QCOMPARE(resume.resumePath, std::string("p.tgproj.d/runs/abc/last.npz"));

        // A file given to --resume with --project: a new run from that checkpoint.
        const TrainPlan fromFile = resolveWith({ "--resume", "file.npz", "--project", "p.tgproj" }, disk);
        QVERIFY2(fromFile.ok(), fromFile.error.c_str());
        QCOMPARE(fromFile.record, RunRecord::Start);
        QCOMPARE(fromFile.resumePath, std::string("file.npz"));

        const TrainPlan adopt = resolveWith({ "--data", "d", "--project", "p.tgproj", "--queued-run", "q" }, disk);
        QVERIFY2(adopt.ok(), adopt.error.c_str());
        QCOMPARE(adopt.record, RunRecord::AdoptQueued);
        QCOMPARE(adopt.queuedRun, std::string("q"));

        const TrainPlan again = resolveWith({ "--resume", "q", "--queued-run", "q", "--project", "p.tgproj" }, disk);
        QVERIFY2(again.ok(), again.error.c_str());
        QCOMPARE(again.record, RunRecord::ContinueQueued);

        const TrainPlan fold = resolveWith(
            { "--data", "d", "--folds", "6", "--fold", "1", "--attach-run", "cv1", "--project", "p.tgproj" }, disk);
        QVERIFY2(fold.ok(), fold.error.c_str());
        QCOMPARE(fold.mode, TrainMode::OneFold);
        QCOMPARE(fold.record, RunRecord::AttachFold);
        QCOMPARE(fold.attachRun, std::string("cv1"));

        // An unknown run is bad input from the project, not a usage error.
        QVERIFY_THROWS_EXCEPTION(InputError, resolveWith({ "--resume", "nope", "--project", "p.tgproj" }, disk));
    }

    void resumedTrainingStateKeepsItsOptions()
    {
        FakeDisk disk;
        disk.checkpoints["last.npz"] = trainingState();
        const TrainPlan plan = resolveWith({ "--resume", "last.npz", "--recompute", "on", "--threads", "2" }, disk);
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.mode, TrainMode::Single);
        QVERIFY(plan.continuing);
        QCOMPARE(plan.options.learningRate, 0.25);
        QCOMPARE(plan.options.seed, uint64_t(7));
        QCOMPARE(plan.options.model.hidden, int64_t(64));
        QCOMPARE(plan.options.recompute, model::RecomputeMode::On); // not a hyper-parameter
        QVERIFY(plan.dataEntries.empty()); // the checkpoint's files
        QCOMPARE(disk.checkpointsRead, 1);
    }

    void resumedWeightsTakeTheOptionsGiven()
    {
        FakeDisk disk;
        disk.checkpoints["w.npz"] = weightsOnly(true);
        const TrainPlan plan
            = resolveWith({ "--resume", "w.npz", "--data", "d", "--lr", "0.5", "--dropout", "0.1" }, disk);
        QVERIFY2(plan.ok(), plan.error.c_str());
        QVERIFY(!plan.continuing);
        QCOMPARE(plan.options.learningRate, 0.5);
        QCOMPARE(plan.options.model.hidden, int64_t(32)); // the weights' model
        QCOMPARE(plan.options.model.dropout, 0.1); // the option's dropout
    }

    void refusedCombinations_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        const QString cvOnly = QStringLiteral(" needs --folds");
        QTest::newRow("steps+epochs") << QStringList { "--data", "d", "--steps", "3", "--epochs", "2" }
                                      << "give --steps or --epochs, not both";
        QTest::newRow("reduction") << QStringList { "--data", "d", "--reduction", "lstm" }
                                   << "--reduction applies to --model kaufman only";
        QTest::newRow("hidden16") << QStringList { "--data", "d", "--hidden", "40" }
                                  << "--hidden must be a multiple of 16 for tgraph (two halves of channel gates with "
                                     "reduction 8)";
        QTest::newRow("hidden4") << QStringList { "--data", "d", "--model", "kaufman", "--reduction", "transformer",
            "--hidden", "6" } << "--hidden must be a multiple of 4 for the transformer reduction (4 heads)";
        for (const char* only : { "--cross-attn", "--residual-after-activation", "--bidirectional-edges" }) {
            QStringList args { "--data", "d", "--model", "tpgnn", only };
            if (QString(only) == "--cross-attn")
                args << "off";
            QTest::newRow(only) << args << QString(only) + " applies to --model tgraph only";
        }
        QTest::newRow("chunk-model") << QStringList { "--data", "d", "--model", "tpgnn", "--config-chunk", "8" }
                                     << "--config-chunk applies to --model tgraph only";
        QTest::newRow("chunk-cross") << QStringList { "--data", "d", "--config-chunk", "8" }
                                     << "--config-chunk 8 needs --cross-attn off (with cross-attention a config's "
                                        "score depends on the other configs of the step, so a step cannot be cut into "
                                        "chunks of configs)";
        for (const char* o : { "--train-folds", "--keep", "--fold-seed", "--fold", "--parallel-folds" })
            QTest::newRow(o) << QStringList { "--data", "d", o, "1" } << QString(o) + cvOnly;
        QTest::newRow("--assemble") << QStringList { "--out", "o", "--assemble" } << "--assemble" + cvOnly;
        QTest::newRow("train-folds>folds") << QStringList { "--data", "d", "--folds", "3", "--train-folds", "4" }
                                           << "--train-folds must be an integer in 1..--folds";
        QTest::newRow("keep>train-folds") << QStringList { "--data", "d", "--folds", "9", "--keep", "6" }
                                          << "--keep must be an integer in 1..--train-folds";
        QTest::newRow("fold>=folds") << QStringList { "--data", "d", "--folds", "6", "--fold", "6" }
                                     << "--fold must be an integer in 0..--folds - 1";
        QTest::newRow("fold+assemble") << QStringList { "--out", "o", "--folds", "6", "--fold", "1", "--assemble" }
                                       << "--fold, --parallel-folds and --assemble exclude each other";
        QTest::newRow("fold+parallel") << QStringList { "--data", "d", "--folds", "6", "--fold", "1",
            "--parallel-folds", "2" } << "--fold, --parallel-folds and --assemble exclude each other";
        QTest::newRow("parallel+jsonl")
            << QStringList { "--data", "d", "--folds", "6", "--parallel-folds", "2", "--metrics-jsonl", "m" }
            << "--metrics-jsonl with --parallel-folds: the folds' processes cannot share one "
               "file (use --project)";
        QTest::newRow("assemble-no-out") << QStringList { "--folds", "6", "--assemble" }
                                         << "--assemble reads the folds of an output directory: give --out DIR (not "
                                            "--project)";
        QTest::newRow("assemble-project") << QStringList { "--folds", "6", "--assemble", "--project", "p", "--out",
            "o" } << "--assemble reads the folds of an output directory: give --out DIR (not --project)";
        QTest::newRow("attach-no-fold") << QStringList { "--data", "d", "--folds", "6", "--attach-run", "r",
            "--project", "p" } << "--attach-run needs --fold and --project";
        QTest::newRow("attach-no-project") << QStringList { "--data", "d", "--folds", "6", "--fold", "0",
            "--attach-run", "r" } << "--attach-run needs --fold and --project";
        QTest::newRow("config-fold") << QStringList { "--data", "d", "--config-fold", "1" }
                                     << "--config-fold needs --config-folds";
        QTest::newRow("config-fold-seed")
            << QStringList { "--data", "d", "--config-fold-seed", "1" } << "--config-fold-seed needs --config-folds";
        QTest::newRow("config-fold>=") << QStringList { "--data", "d", "--config-folds", "3", "--config-fold", "3" }
                                       << "--config-fold must be an integer in 0..--config-folds - 1";
        QTest::newRow("config-folds+folds") << QStringList { "--data", "d", "--config-folds", "3", "--folds", "6" }
                                            << "--config-folds and --folds exclude each other (configs or graphs held "
                                               "out)";
        QTest::newRow("config-folds+resident") << QStringList { "--data", "d", "--config-folds", "3",
            "--resident-graphs", "2" } << "--config-folds needs every graph in memory: no --resident-graphs with it";
        for (const char* o : { "--world-size", "--rank", "--master", "--rendezvous" }) {
            const QString value = QString(o) == "--master" ? "h:1" : QString(o) == "--rendezvous" ? "f" : "1";
            QTest::newRow(o) << QStringList { "--data", "d", "--launch-local", "2", o, value }
                             << QString(o) + ": --launch-local chooses the workers' ranks and master itself";
        }
        QTest::newRow("rank-alone") << QStringList { "--data", "d", "--rank", "1" } << "--rank needs --world-size";
        QTest::newRow("rank>=world") << QStringList { "--data", "d", "--world-size", "2", "--rank", "2" }
                                     << "--rank must be an integer in 0..--world-size - 1";
        QTest::newRow("token-missing") << QStringList { "--data", "d", "--token-file", "absent" }
                                       << "--token-file absent: No such file or directory";
        QTest::newRow("token-empty") << QStringList { "--data", "d", "--token-file", "empty" }
                                     << "--token-file empty: the first line is empty";
        QTest::newRow("rendezvous+master") << QStringList { "--data", "d", "--world-size", "2", "--rendezvous", "f",
            "--master", "h:1" } << "--rendezvous: the workers meet through the file or at --master, not both";
        QTest::newRow("folds+workers") << QStringList { "--data", "d", "--folds", "6", "--world-size", "2" }
                                       << "--folds with data-parallel workers is not supported: a cross-validation "
                                          "trains its folds one after another in one process";
        QTest::newRow("folds+launch") << QStringList { "--data", "d", "--folds", "6", "--launch-local", "2" }
                                      << "--folds with data-parallel workers is not supported: a cross-validation "
                                         "trains its folds one after another in one process";
        QTest::newRow("graphs<workers") << QStringList { "--data", "d", "--world-size", "3", "--graphs-per-step",
            "2" } << "--graphs-per-step must be at least --world-size (each worker takes a graph)";
        QTest::newRow("out+project") << QStringList { "--data", "d", "--out", "o", "--project", "p" }
                                     << "--out and --project: a project run keeps its checkpoints in the project's "
                                        "run folder (P.tgproj.d/runs/<id>/)";
        QTest::newRow("experiment-alone") << QStringList { "--data", "d", "--experiment", "e" }
                                          << "--experiment and --run-name name a run of a project: give --project "
                                             "P.tgproj";
        QTest::newRow("run-name-alone") << QStringList { "--data", "d", "--run-name", "n" }
                                        << "--experiment and --run-name name a run of a project: give --project "
                                           "P.tgproj";
        QTest::newRow("resume-run+name") << QStringList { "--resume", "run-1", "--project", "p", "--run-name", "n" }
                                         << "a resumed run keeps its experiment and name";
        QTest::newRow("no-data") << QStringList { "--steps", "3" } << "no training data (--data DIR|FILE...)";
        // Where a new run starts (docs/model.md §4.7).
        QTest::newRow("pretrain-steps-alone") << QStringList { "--data", "d", "--pretrain-steps", "5" }
                                              << "--pretrain-steps needs --pretrain-sim";
        QTest::newRow("pretrain+init") << QStringList { "--data", "d", "--pretrain-sim", "10", "--init-from", "w.npz" }
                                       << "--pretrain-sim and --init-from exclude each other (both choose the run's "
                                          "starting weights)";
        QTest::newRow("init+resume") << QStringList { "--resume", "last.npz", "--init-from", "w.npz" }
                                     << "--resume continues a run from its own weights: no --pretrain-sim or "
                                        "--init-from with it";
        const QString single = "--pretrain-sim and --init-from start a single run: not with --folds or data-parallel "
                               "workers";
        QTest::newRow("pretrain+folds") << QStringList { "--data", "d", "--pretrain-sim", "10", "--folds", "6" }
                                        << single;
        QTest::newRow("init+workers") << QStringList { "--data", "d", "--init-from", "w.npz", "--world-size", "2" }
                                      << single;
        QTest::newRow("resume+folds") << QStringList { "--resume", "last.npz", "--folds", "6" }
                                      << "--resume continues one run; to continue a cross-validation fold, resume its "
                                         "fold-K/last.npz without --folds";
        const QString queued = "--queued-run takes over a run a sweep queued in --project: no --experiment, "
                               "--run-name, --folds, data-parallel workers or --resume of another run with it";
        QTest::newRow("queued-no-project") << QStringList { "--data", "d", "--queued-run", "q" } << queued;
        QTest::newRow("queued+experiment")
            << QStringList { "--data", "d", "--queued-run", "q", "--project", "p", "--experiment", "e" } << queued;
        QTest::newRow("queued+folds") << QStringList { "--data", "d", "--queued-run", "q", "--project", "p", "--folds",
            "6" } << queued;
        QTest::newRow("queued+workers") << QStringList { "--data", "d", "--queued-run", "q", "--project", "p",
            "--world-size", "2" } << queued;
        QTest::newRow("queued+other-run")
            << QStringList { "--queued-run", "q", "--project", "p", "--resume", "run-1" } << queued;
        QTest::newRow("queued+file") << QStringList { "--queued-run", "q", "--project", "p", "--resume", "last.npz" }
                                     << queued;
        // What the checkpoint decides.
        QTest::newRow("resume+lr") << QStringList { "--resume", "last.npz", "--lr", "0.1" }
                                   << "--lr: a resumed run keeps the hyper-parameters of its checkpoint (start a new "
                                      "run, or use 'tgraph weights export' + 'import' to restart from its weights)";
        QTest::newRow("resume+model") << QStringList { "--resume", "last.npz", "--model", "tgraph" }
                                      << "--model: a resumed run keeps the hyper-parameters of its checkpoint (start "
                                         "a new run, or use 'tgraph weights export' + 'import' to restart from its "
                                         "weights)";
        QTest::newRow("resume-fewer-graphs") << QStringList { "--resume", "last.npz", "--world-size", "3" }
                                             << "the checkpoint's run takes 2 graphs per step, fewer than --world-size";
        QTest::newRow("chunk+cross-weights")
            << QStringList { "--resume", "cross.npz", "--data", "d", "--cross-attn", "on", "--config-chunk", "4" }
            << "--config-chunk 4 needs --cross-attn off (with cross-attention a "
               "config's score depends on the other configs of the step, so a step "
               "cannot be cut into chunks of configs)";
        QTest::newRow("weights-no-files")
            << QStringList { "--resume", "cross.npz" } << "the checkpoint lists no data files: give --data";
        // --seeds N: single runs one after another into OUT/seed-K/, then their ensemble.
        const QString seedsProject = "--seeds writes OUT/seed-K/ and OUT/ensemble.npz: give --out DIR, not --project "
                                     "(tgraph sweep --seeds records seeds as runs of a project)";
        QTest::newRow("seeds+folds") << QStringList { "--data", "d", "--seeds", "3", "--folds",
            "6" } << "--seeds and --folds exclude each other (--folds makes an ensemble of its folds)";
        QTest::newRow("seeds+resume") << QStringList { "--resume", "last.npz", "--seeds", "2" }
                                      << "--resume continues one run: no --seeds with it (resume a seed's "
                                         "OUT/seed-K/last.npz alone)";
        QTest::newRow("seeds+world-size") << QStringList { "--data", "d", "--seeds", "2", "--world-size", "2", "--rank",
            "1" } << "--seeds trains its runs one after another in one process: not with data-parallel workers";
        QTest::newRow("seeds+launch-local") << QStringList { "--data", "d", "--seeds", "2", "--launch-local",
            "2" } << "--seeds trains its runs one after another in one process: not with data-parallel workers";
        QTest::newRow("seeds+init-from") << QStringList { "--data", "d", "--seeds", "2", "--init-from", "w.npz" }
                                         << "--pretrain-sim and --init-from start a single run: not with --seeds";
        QTest::newRow("seeds+project") << QStringList { "--data", "d", "--seeds", "2", "--project", "p.tgproj" }
                                       << seedsProject;
        QTest::newRow("seeds+queued-run")
            << QStringList { "--data", "d", "--seeds", "2", "--queued-run", "r", "--out", "o" } << seedsProject;
    }

    void refusedCombinations()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        FakeDisk disk;
        disk.files.insert("last.npz");
        disk.checkpoints["last.npz"] = trainingState();
        disk.checkpoints["cross.npz"] = weightsOnly(true);
        disk.runCheckpoints["p|run-1"] = "last.npz";
        disk.tokenFiles["empty"] = "";
        std::vector<std::string> argv;
        for (const QString& a : args)
            argv.push_back(a.toStdString());
        const TrainPlan plan = resolveWith(argv, disk);
        QCOMPARE(QString::fromStdString(plan.error), error);
        QVERIFY(!plan.ok());
    }

    void seedEnsemble()
    {
        const TrainPlan plan
            = resolveWith({ "--data", "d", "--seeds", "3", "--seed", "7", "--steps", "5", "--out", "o" });
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.mode, TrainMode::Seeds);
        QCOMPARE(plan.seeds, 3);
        QCOMPARE(plan.options.seed, uint64_t(7)); // the first run's; run k takes 7 + k
        QCOMPARE(plan.outDir, std::string("o"));
        QCOMPARE(plan.record, RunRecord::None);
        QVERIFY(!plan.crossValidation);
        // Without --seeds a plain run; the recipe applies to the seeds' runs as to a single run.
        QCOMPARE(resolveWith({ "--data", "d" }).seeds, 0);
        QCOMPARE(resolveWith({ "--data", "d" }).mode, TrainMode::Single);
        QVERIFY(resolveWith({ "--data", "d", "--seeds", "2" }).recipe);
        // --check-options stays what it is.
        QCOMPARE(resolveWith({ "--data", "d", "--seeds", "2", "--check-options" }).mode, TrainMode::CheckOptions);
        // Folds over configurations give every seed's run a validation set: allowed.
        const TrainPlan configFolds = resolveWith({ "--data", "d", "--seeds", "2", "--config-folds", "4" });
        QVERIFY2(configFolds.ok(), configFolds.error.c_str());
        QCOMPARE(configFolds.mode, TrainMode::Seeds);
    }

    void crossAttentionOfWeightsIsCheckedAgainstTheOption()
    {
        FakeDisk disk;
        disk.checkpoints["w.npz"] = weightsOnly(false);
        try {
            resolveWith({ "--resume", "w.npz", "--data", "d", "--cross-attn", "on" }, disk);
            QFAIL("no error");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("w.npz") != std::string::npos, what.c_str());
            QVERIFY2(what.find("--cross-attn says on") != std::string::npos, what.c_str());
        }
        // Without the option the weights' setting applies.
        const TrainPlan plan = resolveWith({ "--resume", "w.npz", "--data", "d" }, disk);
        QVERIFY2(plan.ok(), plan.error.c_str());
        QVERIFY(!plan.options.model.useCrossAttn);
    }

    void withoutOptionsDropsValuesAndFlags()
    {
        const std::vector<std::string> args { "--a", "1", "--b=2", "--c", "--d", "4", "--ab", "5" };
        QCOMPARE(withoutOptions(args, { "--a", "--b" }), (std::vector<std::string> { "--c", "--d", "4", "--ab", "5" }));
        QCOMPARE(withoutOptions(args, { "--c" }, true),
            (std::vector<std::string> { "--a", "1", "--b=2", "--d", "4", "--ab", "5" }));
    }

    void modeNamesAreDistinct()
    {
        std::set<std::string> names;
        for (TrainMode m :
            { TrainMode::CheckOptions, TrainMode::LaunchLocal, TrainMode::Assemble, TrainMode::ParallelFolds,
                TrainMode::OneFold, TrainMode::CrossValidation, TrainMode::Seeds, TrainMode::Single })
            names.insert(trainModeName(m));
        QCOMPARE(names.size(), size_t(8));
        for (RunRecord r : { RunRecord::None, RunRecord::Start, RunRecord::Resume, RunRecord::AdoptQueued,
                 RunRecord::ContinueQueued, RunRecord::AttachFold })
            names.insert(runRecordName(r));
        QCOMPARE(names.size(), size_t(14));
    }
};

QTEST_GUILESS_MAIN(TestTrainPlan)
#include "tst_trainplan.moc"
