// SPDX-License-Identifier: Apache-2.0
#pragma once

// Sim-to-real pretraining (docs/model.md §4.7): `tgraph train --pretrain-sim N` prices N sampled
// layouts of each training graph's own HLO module with the analytical simulator
// (core/synth/simulatedlayouts.h), trains on those first, and the measured run then starts from
// the weights so learned; `--init-from WEIGHTS` starts it from a weights file instead (a
// simulator-trained run's). The graph files of DATA keep no link to their module; it is found:
//   beside the file: DIR/STEM.pb, DIR/STEM.hlo or DIR/STEM.txt for DIR/STEM.npz (a tuning record,
//     an HloModuleProto / HloProto / HloSnapshot, or HLO text), accepted when its instructions
//     are the graph's nodes (count, then opcode per position);
//   `tgraph synth` collections: regenerated from meta_synthetic (model/infer/explainsimulator.h).

#include "model/train/checkpoint.h"
#include "model/train/trainoptions.h"

#include "core/sim/layoutcandidates.h"
#include "core/train/trainingevents.h"
#include "core/train/trainingset.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
struct HloModule;
} // namespace tgraph

namespace tgraph::model {

struct PretrainOptions
{
    int64_t simLayouts = 0; // --pretrain-sim N: simulated layouts per training graph whose module is known; 0 = off
    int64_t steps = 0; // --pretrain-steps S; 0 = pretrainStepsFor(the measured run's steps)
    LayoutSampler sampler = LayoutSampler::Default; // local search around the compiler default, as tuning runs do
    std::string initFrom; // --init-from WEIGHTS: start the measured run from these weights
    bool enabled() const { return simLayouts > 0; }
};

// The pretraining budget when none is given: as many steps as the measured run, at least 100
// (docs/model.md §4.7).
int64_t pretrainStepsFor(int64_t measuredSteps);

struct PretrainResult
{
    Checkpoint start; // weights and normalizer after pretraining; no schedule (the measured run fixes its own)
    std::vector<std::string> simulatedFiles; // OUT/pretrain/sim/*.npz
    std::vector<std::string> withoutModule; // training graphs left out: "FILE: why"
    int64_t steps = 0;
    std::string checkpoint; // OUT/pretrain/last.npz (a weights file; --init-from takes it)
};

// Writes OUT/pretrain/sim/STEM.npz (N simulated layouts, seed options.seed) for each training
// graph data.graphs[train] whose module is known, trains `pre.steps` steps on them with
// `options` (same model and seed; no validation), the normalizer fit on the measured training
// graphs, and returns the start of the measured run. InputError when no training graph has a
// known module (the message names the files and how to give one) or the model is not a TGraph
// layout model.
PretrainResult pretrainOnSimulator(const TrainingData& data, const std::vector<size_t>& train,
    const TrainOptions& options, const PretrainOptions& pre, const std::string& outDir, TrainingSink* sink,
    ProgressSink* progress);

// The start of a run from a weights file (or checkpoint): its weights and normalizer, no
// schedule. InputError naming the file when it holds a model of another kind than `kind`, or of
// another shape than `expected` (family, hidden, blocks, cross-attention, op table, edge and
// residual switches; the message names the option to give).
Checkpoint initFromWeights(const std::string& path, GraphKind kind, const ModelOptions& expected);

// What --pretrain-sim and --init-from ask for (they exclude each other): the start of the measured
// run (weights, normalizer, no schedule), or nullopt when neither is set.
std::optional<Checkpoint> startOfRun(const TrainingData& data, const TrainOptions& options, const PretrainOptions& pre,
    const std::string& outDir, TrainingSink* sink, ProgressSink* progress);

} // namespace tgraph::model
