// SPDX-License-Identifier: Apache-2.0
#include "crossvalidation.h"

#include "core/error.h"
#include "core/jsonwriter.h"
#include "core/kfold.h"

#include <filesystem>
#include <fstream>

namespace tgraph::model {

namespace fs = std::filesystem;

std::vector<std::vector<size_t>> foldValidationSets(const TrainingData& data, int folds, uint32_t foldSeed)
{
    const std::vector<size_t> order = sortedByName(data, data.allIndices());
    std::vector<int> assignment;
    try {
        assignment = kfoldAssignment(int64_t(order.size()), folds, foldSeed);
    } catch (const std::invalid_argument& e) {
        throw InputError(data.graphs.empty() ? std::string() : data.graphs.front().path, "--folds",
            std::string(e.what()) + " (train and valid graphs together)");
    }
    std::vector<std::vector<size_t>> sets(static_cast<size_t>(folds));
    for (size_t k = 0; k < order.size(); ++k)
        sets[size_t(assignment[k])].push_back(order[k]);
    return sets;
}

namespace {

void writeManifest(const std::string& path, const TrainOptions& options, const CrossValidationOptions& cv,
    const CrossValidationResult& result)
{
    JsonWriter w;
    w.beginObject();
    w.key("folds").value(cv.folds).key("fold_seed").value(uint64_t(cv.foldSeed));
    w.key("keep").value(cv.keep).key("seed").value(options.seed);
    w.key("trained").beginArray();
    for (const FoldResult& f : result.folds) {
        w.beginObject();
        w.key("fold").value(f.fold).key("seed").value(f.seed);
        w.key("best_tau").value(f.bestTau).key("best_step").value(f.bestStep).key("steps").value(f.steps);
        w.key("diverged").value(f.diverged).key("kept").value(f.kept);
        w.key("checkpoint").value(f.checkpoint);
        w.key("train_graphs").value(uint64_t(f.trainGraphs));
        w.key("valid_graphs").beginArray();
        for (const std::string& g : f.validGraphs)
            w.value(g);
        w.endArray().endObject();
    }
    w.endArray();
    w.key("ensemble").beginArray();
    for (const std::string& e : result.ensemble)
        w.value(e);
    w.endArray().endObject();
    const std::string temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::trunc);
        out << w.str() << "\n";
        if (!out.flush())
            throw InputError(path, "", "cannot write the ensemble manifest");
    }
    std::error_code ec;
    fs::rename(temp, path, ec);
    if (ec) {
        fs::remove(temp, ec);
        throw InputError(path, "", "cannot write the ensemble manifest: " + ec.message());
    }
}

} // namespace

CrossValidationResult runCrossValidation(const TrainingData& data, const TrainOptions& options,
    const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink, ProgressSink* progress)
{
    if (cv.trainFolds < 1 || cv.trainFolds > cv.folds || cv.keep < 1 || cv.keep > cv.trainFolds)
        throw std::invalid_argument("runCrossValidation: need 1 <= keep <= trainFolds <= folds");
    const auto sets = foldValidationSets(data, cv.folds, cv.foldSeed);
    CrossValidationResult result;
    for (int f = 0; f < cv.trainFolds; ++f) {
        std::vector<bool> held(data.graphs.size(), false);
        for (size_t i : sets[size_t(f)])
            held[i] = true;
        std::vector<size_t> train;
        for (size_t i = 0; i < data.graphs.size(); ++i)
            if (!held[i])
                train.push_back(i);
        TrainOptions o = options;
        o.folds = cv.folds;
        o.fold = f;
        o.foldSeed = cv.foldSeed;
        o.seed = options.seed + uint64_t(f); // spec §4.2: run k uses seed 42 + k
        const std::string dir = (fs::path(outDir) / ("fold-" + std::to_string(f))).string();
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec)
            throw InputError(dir, "", "cannot create the fold directory: " + ec.message());

        Trainer trainer(data, train, sets[size_t(f)], o);
        trainer.setSink(sink);
        trainer.setProgress(progress, "fold " + std::to_string(f + 1) + "/" + std::to_string(cv.trainFolds));
        trainer.setOutputDir(dir);
        const TrainResult r = trainer.run();

        FoldResult fr;
        fr.fold = f;
        fr.seed = o.seed;
        fr.bestTau = r.counters.bestTau;
        fr.bestStep = r.counters.bestStep;
        fr.steps = r.steps;
        fr.diverged = r.diverged;
        fr.message = r.message;
        fr.trainGraphs = train.size();
        if (fs::exists(fs::path(dir) / "best.npz"))
            fr.checkpoint = "fold-" + std::to_string(f) + "/best.npz";
        for (size_t i : sets[size_t(f)])
            fr.validGraphs.push_back(data.graphs[i].name);
        result.folds.push_back(std::move(fr));
    }
    // A fold without a checkpoint (diverged before its first evaluation) cannot be kept.
    std::vector<double> scores;
    for (const FoldResult& f : result.folds)
        scores.push_back(f.checkpoint.empty() ? std::numeric_limits<double>::quiet_NaN() : f.bestTau);
    for (int k : selectBest(scores, cv.keep)) {
        if (result.folds[size_t(k)].checkpoint.empty())
            continue;
        result.folds[size_t(k)].kept = true;
        result.ensemble.push_back(result.folds[size_t(k)].checkpoint);
    }
    result.manifest = (fs::path(outDir) / "ensemble.json").string();
    writeManifest(result.manifest, options, cv, result);
    if (sink)
        sink->runEvent({ RunEventKind::Info, -1, 0,
            "ensemble of " + std::to_string(result.ensemble.size()) + " folds written to " + result.manifest,
            result.manifest });
    return result;
}

} // namespace tgraph::model
