// SPDX-License-Identifier: Apache-2.0
#pragma once

// K-fold cross-validation as the TGraph paper describes it (docs/model.md §4.4): all graphs
// (train + valid splits) sorted by file name and cut into K folds at graph level (sklearn KFold,
// shuffled with `foldSeed`, kfold.h); folds 0..trainFolds-1 are trained, each holding its fold
// out as validation, with its own normalizer and seed + fold; the `keep` folds with the best
// validation mean tau form the ensemble.
//
// The folds train one after the other in one process (runCrossValidation), or each in a process
// of its own (`tgraph train --fold K`, locally several at once with --parallel-folds, or on other
// machines), after which assembleEnsemble picks the best folds from their fold.json files.
//
// Output directory: fold-K/best.npz, fold-K/last.npz and fold-K/fold.json (its FoldResult) per
// trained fold, ensemble.json and ensemble.npz (the same ensemble as one file), where ensemble.json is:
//   {"folds": 20, "fold_seed": 123, "keep": 4, "seed": 42,
//    "trained": [{"fold": 0, "seed": 42, "best_tau": 0.41, "best_step": 400, "steps": 400,
//                 "diverged": false, "kept": true, "checkpoint": "fold-0/best.npz",
//                 "train_graphs": 19, "valid_graphs": ["a.npz", ...]}, ...],
//    "ensemble": ["fold-3/best.npz", "fold-0/best.npz", ...]}   (best first; paths relative)

#include "model/train/trainer.h"

#include <string>
#include <vector>

namespace tgraph::model {

struct CrossValidationOptions
{
    int folds = 20;
    int trainFolds = 5;
    int keep = 4;
    uint32_t foldSeed = 123; // the code's KFold random_state
};

struct FoldResult
{
    int fold = 0;
    int folds = 0; // the protocol it belongs to (K and the shuffle seed)
    uint32_t foldSeed = 0;
    uint64_t seed = 0;
    double bestTau = 0;
    int64_t bestStep = -1;
    int64_t steps = 0;
    bool diverged = false;
    std::string message;
    bool kept = false;
    std::string checkpoint; // relative to the output directory ("" when none was written)
    size_t trainGraphs = 0;
    std::vector<std::string> validGraphs;
};

struct CrossValidationResult
{
    std::vector<FoldResult> folds; // in training order
    std::vector<std::string> ensemble; // checkpoint paths relative to the output dir, best first
    std::string manifest; // path of ensemble.json
    std::string ensembleFile; // path of ensemble.npz, the same ensemble as one file ("" when empty)
};

// The held-out graphs (indices into data.graphs) of each fold, for all K folds.
std::vector<std::vector<size_t>> foldValidationSets(const TrainingData& data, int folds, uint32_t foldSeed);

// The training options of fold `fold`: folds/fold/foldSeed set, seed + fold (docs/model.md §4.4).
TrainOptions foldOptions(const TrainOptions& options, const CrossValidationOptions& cv, int fold);

// Trains fold `fold` into OUT/fold-K/ (best.npz, last.npz, fold.json). A sink and progress as for
// runCrossValidation; Cancelled through `progress`.
FoldResult trainFold(const TrainingData& data, const TrainOptions& options, const CrossValidationOptions& cv, int fold,
    const std::string& outDir, TrainingSink* sink, ProgressSink* progress);

// fold.json: a fold's result. readFoldResult throws InputError naming the file.
void writeFoldResult(const std::string& path, const FoldResult& fold);
FoldResult readFoldResult(const std::string& path);

// Picks the `keep` best folds by validation mean tau (a fold without a checkpoint is never kept)
// and writes OUT/ensemble.json and OUT/ensemble.npz (the kept checkpoints as one ensemble file,
// model/infer/ensemblecombine.h).
CrossValidationResult assembleEnsemble(std::vector<FoldResult> folds, const TrainOptions& options,
    const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink);
// The same from the fold.json files of folds 0..trainFolds-1 in OUT (InputError naming the first
// missing or unreadable one, or one trained with other fold settings).
CrossValidationResult assembleEnsembleFromDir(
    const TrainOptions& options, const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink);

// Trains the folds one after the other. InputError when the data have fewer graphs than folds
// or the output directory cannot be written; Cancelled through `progress` (checkpoints already
// written stay).
CrossValidationResult runCrossValidation(const TrainingData& data, const TrainOptions& options,
    const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink, ProgressSink* progress);

} // namespace tgraph::model
