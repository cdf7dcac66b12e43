// SPDX-License-Identifier: Apache-2.0
#pragma once

// Hyper-parameters of a training run and its learning-rate schedule (docs/model.md §4),
// torch-free so the CLI and the GUI can hold them. Checkpoints store them as JSON.

#include "model/nn/modeloptions.h"
#include "model/nn/recompute.h"

#include "core/graph/configs.h"

#include <cstdint>
#include <string>

namespace tgraph::model {

// Training loss; Auto = the model family's own (issue "model zoo"): TGraph and Kaufman the
// pairwise hinge (rankloss.h), the TpuGraphs baseline ListMLE plus 0.01 x MSE, TPGNN the MSE.
// MSE is on the log runtime (tile: log(runtime / normalizer)) standardized per graph over all its
// configs, as TVM's cost models normalize their targets per task: the model learns the ranking
// within a graph, not the graphs' absolute runtimes.
enum class LossKind { Auto, Hinge, Logistic, ListMle, Mse };
const char* lossKindName(LossKind loss);
bool parseLossKind(const std::string& text, LossKind* loss);

// TrainOptions::configChunk: chunks sized from the graph, or none.
constexpr int64_t kConfigChunkAuto = -1;
constexpr int64_t kConfigChunkOff = 0;
// Auto's chunk: as many configs as keep one (N, k, H) float32 activation under 96 MiB. A chunk's
// step peaks at about 23 such activations (docs/benchmarks.md §12: 2.48 GiB for chunks of 8 configs
// at 11 657 nodes), under issue 27's 3 GB.
constexpr int64_t kConfigChunkAutoBytes = int64_t(96) << 20;
// "auto", "off", or the number of configs.
std::string configChunkName(int64_t chunk);
// Reads "auto", "off", "0" (off) or a number of configs in 1..2^31 - 1.
bool parseConfigChunk(const std::string& text, int64_t* chunk);

struct TrainOptions
{
    ModelOptions model;
    LossKind loss = LossKind::Auto;

    // Length: `steps` optimizer steps, or when 0, ceil(epochs x training graphs / graphsPerStep)
    // (one epoch = one pass over the training graphs).
    int64_t steps = 0;
    double epochs = 0;

    // Layout: configs sampled without replacement each time a graph is visited (docs/model.md §4.3; the
    // code uses 64 for default collections, 128 for random ones); all of them when a graph has
    // fewer. Tile collections always use all configs of a kernel (docs/model.md §5).
    int64_t configsPerStep = 64;
    // Graphs per optimizer step (the global batch): their losses are averaged. 1 = the code's one
    // graph per step. With data-parallel workers each takes its share of a step's graphs; each
    // visit's config sample and dropout come from generators seeded by (seed, visit) so that the
    // result does not depend on which worker takes a graph (with 1, the run's own generators).
    int64_t graphsPerStep = 1;

    // AdamW exactly as torch.optim.AdamW (docs/model.md §4.2).
    double learningRate = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double adamEps = 1e-8;
    double weightDecay = 1e-5;
    // Code: decay on every parameter (biases, embeddings and temperatures too). Paper: false =
    // no decay on parameters named *.bias.
    bool decayBiases = true;
    double warmupShare = 0.05; // linear warm-up over ceil(share x steps), then cosine to 0
    double clipNorm = 1.0; // global L2 norm of all gradients; <= 0 disables clipping

    int64_t evalEvery = 2000; // steps between validation passes (and checkpoints); the last step always
    int64_t evalBatch = 128; // configs per forward pass when scoring all configs (array_split chunks, docs/model.md §6.1)
    int64_t logEvery = 50; // steps per StepMetrics interval
    int64_t maxNonFiniteRun = 20; // stop after this many consecutive skipped (non-finite) steps

    uint64_t seed = 42; // model initialization, dropout, config sampling, graph order
    bool deterministic = false; // deterministic algorithms: runs repeat bitwise for a fixed thread count
    // Activation recomputation of the TGraph layers in the backward pass (recompute.h,
    // docs/model.md §11): the same gradients for less memory. A setting of the process, not of the
    // run: not written to checkpoints, and a resumed run takes the one it is given.
    RecomputeMode recompute = RecomputeMode::Auto;
    // Config chunks (docs/model.md §11): a layout step of the TGraph model without cross-config
    // attention scores its configs without gradients, takes the loss's gradient with respect to the
    // scores, then runs forward and backward again chunk by chunk (at most configChunk configs each),
    // with the same dropout masks: the gradients of the whole step in the memory of a chunk.
    // kConfigChunkAuto: chunks when one (N, C, H) float32 activation of the step reaches
    // kRecomputeAutoBytes and `recompute` is Auto, of as many configs as stay below
    // kConfigChunkAutoBytes; 0: off.
    // Refused with cross-attention (Trainer throws); not used by tile and zoo models, nor with dropout
    // on the composed ATen path (TGRAPH_FUSED=0), whose masks are not keyed by config. A setting of
    // the process like `recompute`: not written to checkpoints.
    int64_t configChunk = kConfigChunkAuto;

    DedupPolicy dedup = DedupPolicy::KeepFirst; // of train-split files (docs/model.md §2.3)

    // Cross-validation (docs/model.md §4.4): which fold of how many this run holds out, so a fold's
    // checkpoint can be resumed on the same split. folds = 0: a plain train/valid run.
    int folds = 0;
    int fold = -1;
    uint32_t foldSeed = 123;
};

// The loss a run uses: options.loss, or the family's own for Auto.
LossKind effectiveLoss(const TrainOptions& options);

// Steps of the run for `trainGraphs` training graphs (at least 1).
int64_t totalSteps(const TrainOptions& options, int64_t trainGraphs);
int64_t warmupSteps(const TrainOptions& options, int64_t total);

// Learning rate of the step with 0-based index `step`, as HF Trainer's cosine schedule with
// warm-up (LambdaLR evaluated before each optimizer step): step / warmup during the warm-up
// (so the very first step runs at 0), then 0.5 (1 + cos(pi (step - warmup) / (total - warmup))),
// times the base rate; 0 from `total` on.
double learningRateAt(int64_t step, int64_t total, int64_t warmup, double baseRate);

// JSON object with every field (model options nested under "model"). fromJson throws
// std::runtime_error naming the member for a missing or mistyped one.
std::string toJson(const TrainOptions& options);
TrainOptions trainOptionsFromJson(const std::string& json);

} // namespace tgraph::model
