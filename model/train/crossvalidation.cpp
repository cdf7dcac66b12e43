// SPDX-License-Identifier: Apache-2.0
#include "model/train/crossvalidation.h"
#include "model/infer/ensemblecombine.h"

#include "core/io/filebytes.h"
#include "core/train/kfold.h"
#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "core/util/json.h"

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

// Written atomically (core/util/atomicfile.h): a reader never sees half a file.
void writeJsonFile(const std::string& path, const Json& json, const char* what)
{
    try {
        writeFileAtomically(path, jsonText(json) + "\n");
    } catch (const InputError& e) {
        throw InputError(path, "", std::string("cannot write the ") + what + ": " + e.problem());
    }
}

Json foldJson(const FoldResult& f)
{
    Json j;
    j["fold"] = f.fold;
    j["folds"] = f.folds;
    j["fold_seed"] = uint64_t(f.foldSeed);
    j["seed"] = f.seed;
    j["best_tau"] = f.bestTau;
    j["best_step"] = f.bestStep;
    j["steps"] = f.steps;
    j["diverged"] = f.diverged;
    j["message"] = f.message;
    j["kept"] = f.kept;
    j["checkpoint"] = f.checkpoint;
    j["train_graphs"] = uint64_t(f.trainGraphs);
    j["valid_graphs"] = f.validGraphs;
    return j;
}

void writeManifest(const std::string& path, const TrainOptions& options, const CrossValidationOptions& cv,
    const CrossValidationResult& result)
{
    Json j;
    j["folds"] = cv.folds;
    j["fold_seed"] = uint64_t(cv.foldSeed);
    j["keep"] = cv.keep;
    j["seed"] = options.seed;
    Json& trained = j["trained"] = Json::array();
    for (const FoldResult& f : result.folds)
        trained.push_back(foldJson(f));
    j["ensemble"] = result.ensemble;
    writeJsonFile(path, j, "ensemble manifest");
}

std::string foldDirName(int fold) { return "fold-" + std::to_string(fold); }

} // namespace

TrainOptions foldOptions(const TrainOptions& options, const CrossValidationOptions& cv, int fold)
{
    TrainOptions o = options;
    o.folds = cv.folds;
    o.fold = fold;
    o.foldSeed = cv.foldSeed;
    o.seed = options.seed + uint64_t(fold); // docs/model.md §4.4: run k uses seed 42 + k
    return o;
}

FoldResult trainFold(const TrainingData& data, const TrainOptions& options, const CrossValidationOptions& cv, int fold,
    const std::string& outDir, TrainingSink* sink, ProgressSink* progress)
{
    if (fold < 0 || fold >= cv.folds)
        throw std::invalid_argument("trainFold: fold out of range");
    const auto sets = foldValidationSets(data, cv.folds, cv.foldSeed);
    std::vector<bool> held(data.graphs.size(), false);
    for (size_t i : sets[size_t(fold)])
        held[i] = true;
    std::vector<size_t> train;
    for (size_t i = 0; i < data.graphs.size(); ++i)
        if (!held[i])
            train.push_back(i);
    const TrainOptions o = foldOptions(options, cv, fold);
    const std::string dir = (fs::path(outDir) / foldDirName(fold)).string();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw InputError(dir, "", "cannot create the fold directory: " + ec.message());

    Trainer trainer(data, train, sets[size_t(fold)], o);
    trainer.setSink(sink);
    trainer.setProgress(progress, "fold " + std::to_string(fold + 1) + "/" + std::to_string(cv.trainFolds));
    trainer.setOutputDir(dir);
    const TrainResult r = trainer.run();

    FoldResult fr;
    fr.fold = fold;
    fr.folds = cv.folds;
    fr.foldSeed = cv.foldSeed;
    fr.seed = o.seed;
    fr.bestTau = r.counters.bestTau;
    fr.bestStep = r.counters.bestStep;
    fr.steps = r.steps;
    fr.diverged = r.diverged;
    fr.message = r.message;
    fr.trainGraphs = train.size();
    if (fs::exists(fs::path(dir) / "best.npz"))
        fr.checkpoint = foldDirName(fold) + "/best.npz";
    for (size_t i : sets[size_t(fold)])
        fr.validGraphs.push_back(data.graphs[i].name);
    writeFoldResult((fs::path(dir) / "fold.json").string(), fr);
    return fr;
}

void writeFoldResult(const std::string& path, const FoldResult& fold)
{
    writeJsonFile(path, foldJson(fold), "fold result");
}

FoldResult readFoldResult(const std::string& path)
{
    std::string text;
    try {
        text = std::string(FileBytes::read(path).view());
    } catch (const InputError&) {
        throw InputError(path, "", "no fold result: the fold has not finished training here (train it with "
                                   "--fold K and the same --out, or copy its fold-K folder here)");
    }
    const Json root = parseJson(text, path);
    try {
        FoldResult f;
        f.fold = int(jsonInteger(root, "fold"));
        f.folds = int(jsonInteger(root, "folds"));
        f.foldSeed = uint32_t(jsonUnsigned(root, "fold_seed"));
        f.seed = jsonUnsigned(root, "seed");
        f.bestTau = jsonMember(root, "best_tau").is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                           : jsonNumber(root, "best_tau");
        f.bestStep = jsonInteger(root, "best_step");
        f.steps = jsonInteger(root, "steps");
        f.diverged = jsonBool(root, "diverged");
        f.message = jsonString(root, "message");
        f.checkpoint = jsonString(root, "checkpoint");
        f.trainGraphs = size_t(jsonUnsigned(root, "train_graphs"));
        for (const Json& g : jsonArray(root, "valid_graphs"))
            f.validGraphs.push_back(jsonStringValue(g, "an item of \"valid_graphs\""));
        return f;
    } catch (const std::runtime_error& e) {
        throw InputError(path, "", std::string("not a fold result: ") + e.what());
    }
}

CrossValidationResult assembleEnsemble(std::vector<FoldResult> folds, const TrainOptions& options,
    const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink)
{
    CrossValidationResult result;
    result.folds = std::move(folds);
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
    // The same ensemble as one file (docs/formats.md §12), beside the manifest.
    if (!result.ensemble.empty()) {
        result.ensembleFile = (fs::path(outDir) / "ensemble.npz").string();
        combineWeights({ result.manifest }, result.ensembleFile, "tgraph train --folds " + std::to_string(cv.folds));
        if (sink)
            sink->runEvent(
                { RunEventKind::Info, -1, 0, "the ensemble as one file: " + result.ensembleFile, result.ensembleFile });
    }
    return result;
}

CrossValidationResult assembleEnsembleFromDir(
    const TrainOptions& options, const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink)
{
    std::vector<FoldResult> folds;
    for (int k = 0; k < cv.trainFolds; ++k) {
        const std::string path = (fs::path(outDir) / foldDirName(k) / "fold.json").string();
        FoldResult f = readFoldResult(path);
        if (f.fold != k || f.folds != cv.folds || f.foldSeed != cv.foldSeed || f.seed != options.seed + uint64_t(k))
            throw InputError(path, "fold",
                "was trained as fold " + std::to_string(f.fold) + " of " + std::to_string(f.folds) + " (fold seed "
                    + std::to_string(f.foldSeed) + ", seed " + std::to_string(f.seed) + "), not as fold "
                    + std::to_string(k) + " of " + std::to_string(cv.folds) + " (fold seed "
                    + std::to_string(cv.foldSeed) + ", seed " + std::to_string(options.seed + uint64_t(k)) + ")");
        f.kept = false;
        folds.push_back(std::move(f));
    }
    return assembleEnsemble(std::move(folds), options, cv, outDir, sink);
}

CrossValidationResult runCrossValidation(const TrainingData& data, const TrainOptions& options,
    const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink, ProgressSink* progress)
{
    if (cv.trainFolds < 1 || cv.trainFolds > cv.folds || cv.keep < 1 || cv.keep > cv.trainFolds)
        throw std::invalid_argument("runCrossValidation: need 1 <= keep <= trainFolds <= folds");
    foldValidationSets(data, cv.folds, cv.foldSeed); // too few graphs: an error before any training
    std::vector<FoldResult> folds;
    for (int f = 0; f < cv.trainFolds; ++f)
        folds.push_back(trainFold(data, options, cv, f, outDir, sink, progress));
    return assembleEnsemble(std::move(folds), options, cv, outDir, sink);
}

} // namespace tgraph::model
