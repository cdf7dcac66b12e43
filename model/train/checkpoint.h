// SPDX-License-Identifier: Apache-2.0
#pragma once

// Training checkpoints: ONE .npz file that is a complete weights file (weights.h: the same keys,
// so `tgraph predict` and loadWeightsNpz read it directly) plus the training state:
//
//   checkpoint.version         int64 0-d, 1
//   optimizer.step             int64 0-d: AdamW updates taken (bias correction)
//   optimizer.exp_avg.<name>   float32, shape of parameter <name> (every parameter)
//   optimizer.exp_avg_sq.<name>
//   scheduler.total_steps      int64 0-d (0 = not fixed yet: a checkpoint made by `weights import`)
//   scheduler.warmup_steps     int64 0-d
//   rng.torch                  uint8 (K,): LibTorch's CPU generator state (dropout)
//   rng.sampler                uint8: the config sampler's std::mt19937_64 state, as text
//   train.step                 int64 0-d: steps done (taken + skipped)
//   train.hparams              uint8: TrainOptions as JSON (trainoptions.h)
//   train.best_tau             float64 0-d: best validation mean tau so far (NaN: none yet)
//   train.best_step            int64 0-d (-1: none)
//   train.nonfinite_total      int64 0-d: steps skipped for a non-finite loss or gradient
//   train.nonfinite_run        int64 0-d: of them, consecutive up to train.step
//   train.data_files           uint8: JSON array of {"path": ..., "split": "train"|"valid"}
//
// Written atomically (temporary file renamed into place). Loading checks every key (presence,
// dtype-compatible values, shape, finiteness, consistency with the weights) and refuses missing,
// extra or mis-shaped ones with an InputError naming the file and the key.

#include "model/train/adamw.h"
#include "model/nn/tgraphmodel.h"
#include "model/nn/tilemodel.h"
#include "model/train/trainoptions.h"
#include "model/nn/weights.h"

#include "core/graph/graph.h"
#include "core/graph/normalizer.h"
#include "core/train/trainingset.h"

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace tgraph::model {

inline constexpr int64_t kCheckpointVersion = 1;

struct TrainingCounters
{
    int64_t step = 0;
    double bestTau = std::numeric_limits<double>::quiet_NaN();
    int64_t bestStep = -1;
    int64_t nonFiniteTotal = 0;
    int64_t nonFiniteRun = 0;
};

struct Checkpoint
{
    GraphKind kind = GraphKind::Layout;
    TGraphModel layout { nullptr }; // set for layout checkpoints
    TileModel tile { nullptr }; // set for tile checkpoints
    ZooModel zoo; // set instead of both for a zoo model (`--model` other than tgraph)
    Normalizer normalizer;
    TrainOptions options; // options.model matches the model
    int64_t optimizerStep = 0;
    std::map<std::string, AdamW::Moments> moments; // by parameter name
    int64_t totalSteps = 0;
    int64_t warmupSteps = 0;
    torch::Tensor torchRng; // uint8 (K,)
    std::string samplerRng;
    TrainingCounters counters;
    std::vector<DataFile> dataFiles;

    torch::nn::Module& module() const;
    const ModelOptions& modelOptions() const;
};

void saveCheckpoint(const Checkpoint& checkpoint, const std::string& path);
Checkpoint loadCheckpoint(const std::string& path);

// A checkpoint to start training from given weights: zero optimizer moments, step 0, no schedule
// yet (the run's options fix it), the current generator states. `options.model` is taken from
// the weights.
Checkpoint checkpointFromWeights(const std::string& weightsPath);

bool isCheckpoint(const std::string& path);

} // namespace tgraph::model
