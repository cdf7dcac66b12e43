// SPDX-License-Identifier: Apache-2.0
#pragma once

// K-fold cross-validation as the TGraph paper describes it (spec tgraph-model.md §4.4): all graphs
// (train + valid splits) sorted by file name and cut into K folds at graph level (sklearn KFold,
// shuffled with `foldSeed`, kfold.h); folds 0..trainFolds-1 are trained, each holding its fold
// out as validation, with its own normalizer and seed + fold; the `keep` folds with the best
// validation mean tau form the ensemble.
//
// Output directory: fold-K/best.npz and fold-K/last.npz per trained fold, and ensemble.json:
//   {"folds": 20, "fold_seed": 123, "keep": 4, "seed": 42,
//    "trained": [{"fold": 0, "seed": 42, "best_tau": 0.41, "best_step": 400, "steps": 400,
//                 "diverged": false, "kept": true, "checkpoint": "fold-0/best.npz",
//                 "train_graphs": 19, "valid_graphs": ["a.npz", ...]}, ...],
//    "ensemble": ["fold-3/best.npz", "fold-0/best.npz", ...]}   (best first; paths relative)

#include "trainer.h"

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
};

// The held-out graphs (indices into data.graphs) of each fold, for all K folds.
std::vector<std::vector<size_t>> foldValidationSets(const TrainingData& data, int folds, uint32_t foldSeed);

// Trains the folds one after the other. InputError when the data have fewer graphs than folds
// or the output directory cannot be written; Cancelled through `progress` (checkpoints already
// written stay).
CrossValidationResult runCrossValidation(const TrainingData& data, const TrainOptions& options,
    const CrossValidationOptions& cv, const std::string& outDir, TrainingSink* sink, ProgressSink* progress);

} // namespace tgraph::model
