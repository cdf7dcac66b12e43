// SPDX-License-Identifier: Apache-2.0
#pragma once

// The training loop of docs/model.md §4 (layout) and §5 (tile):
//   one graph per optimizer step, graphs visited in a fresh random order every epoch;
//   layout: `configsPerStep` configs sampled without replacement at every visit (all when fewer);
//   tile: all configs of the kernel;
//   pairwise hinge loss over all C^2 pairs (rankloss.h), ordering from raw integer runtimes
//   (tile: runtime / normalizer);
//   AdamW (adamw.h), linear warm-up + cosine schedule (trainoptions.h), global gradient clipping;
//   a step whose loss or gradient norm is not finite is skipped (no update) and counted; a run of
//   `maxNonFiniteRun` of them stops training;
//   every `evalEvery` steps and at the last step: all configs of every validation graph scored in
//   array_split chunks of `evalBatch`, tau / OPA / top-5 slowdown per graph and mean; the best
//   mean tau is kept as `best.npz`, the latest state as `last.npz` (checkpoint.h) in the output
//   directory.
// With graphsPerStep > 1 a step averages the losses of that many graphs; with a Communicator
// (data-parallel workers, gloocommunicator.h) each worker takes the step's graphs i with
// i % worldSize == rank, and the gradients, losses and counters are summed over the workers in
// one bucketed all-reduce before the (identical) optimizer step on every worker; validation
// graphs are shared out the same way and their metrics summed. A stop request (SIGINT/SIGTERM)
// on any worker travels in the same all-reduce, so all workers stop after the same step.
// Without cross-config attention a layout step may run in config chunks (TrainOptions::configChunk,
// docs/model.md §11): scores without gradients, the loss's gradient with respect to them, then
// forward and backward chunk by chunk from the same dropout generator state: the same gradients.
// fp32 throughout (the code's bf16/fp16 autocast is not used on CPU; docs/model.md §10.12).

#include "model/train/adamw.h"
#include "model/nn/batch.h"
#include "model/train/checkpoint.h"
#include "model/train/communicator.h"
#include "model/nn/tgraphmodel.h"
#include "model/nn/tilemodel.h"
#include "model/train/trainoptions.h"
#include "model/nn/zoomodel.h"

#include "core/graph/normalizer.h"
#include "core/train/trainingevents.h"
#include "core/train/trainingset.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::model {

struct StepOutcome
{
    size_t graph = 0; // index into TrainingData::graphs
    int64_t configs = 0;
    int64_t nodes = 0;
    double loss = 0;
    double gradNorm = 0; // before clipping (NaN when the loss was not finite)
    double learningRate = 0;
    bool skipped = false;
};

struct TrainResult
{
    int64_t steps = 0; // steps done when run() returned
    bool finished = false; // reached the last step of the schedule
    bool diverged = false; // stopped by a run of non-finite steps
    std::string message; // why it stopped (diverged)
    TrainingCounters counters;
    std::optional<EvalMetrics> lastEval;
    std::string bestCheckpoint; // written paths ("" = none)
    std::string lastCheckpoint;
};

class Trainer
{
public:
    // Trains on data.graphs[trainGraphs], validates on data.graphs[validGraphs] (may be empty).
    // Fresh run: the model is initialized from options.seed and the normalizer fit on the
    // training graphs. With `resume`: model weights, normalizer, optimizer moments, schedule,
    // generator states and counters come from the checkpoint (its kind and model shape must
    // match; options.model.dropout is used). A checkpoint with no schedule yet (from `weights
    // import`) only provides the weights and normalizer, and the run starts at step 0.
    // Throws InputError for data the model cannot take (an opcode outside the op table, ...).
    Trainer(const TrainingData& data, std::vector<size_t> trainGraphs, std::vector<size_t> validGraphs,
        const TrainOptions& options, const Checkpoint* resume = nullptr);

    void setSink(TrainingSink* sink) { m_sink = sink; }
    // Data-parallel: this trainer is worker comm->rank() of comm->worldSize(); every worker must
    // be constructed with the same data, options and checkpoint. Only rank 0 should have an
    // output directory and sinks. Collectives throw WorkerLost.
    void setCommunicator(Communicator* comm);
    void setProgress(ProgressSink* progress, std::string label = "training");
    // Directory for best.npz and last.npz; "" = write nothing.
    void setOutputDir(std::string dir) { m_outDir = std::move(dir); }

    // Runs until `untilStep` steps are done (-1 = the end of the schedule), a run of non-finite
    // steps, or cancellation through the progress sink (tgraph::Cancelled).
    TrainResult run(int64_t untilStep = -1);

    StepOutcome step();
    EvalMetrics evaluate();
    // Scores of all configs of data.graphs[graph], in config order (eval mode, chunked as in
    // evaluation for layout graphs).
    std::vector<double> scoreAllConfigs(size_t graph);

    Checkpoint checkpoint() const;
    void saveCheckpoint(const std::string& path) const;

    int64_t stepsDone() const { return m_counters.step; }
    int64_t totalSteps() const { return m_total; }
    int64_t warmupSteps() const { return m_warmup; }
    const TrainingCounters& counters() const { return m_counters; }
    const TrainOptions& options() const { return m_options; }
    const Normalizer& normalizer() const { return m_normalizer; }
    torch::nn::Module& module();
    TGraphModel layoutModel() const { return m_layout; }
    TileModel tileModel() const { return m_tile; }
    ZooModel zooModel() const { return m_zoo; } // set for --model other than tgraph

    // Configs per chunk of a training step over `configs` configs of a graph of `nodes` nodes
    // (options().configChunk, docs/model.md §11); 0 = the step is not chunked.
    int64_t configChunkFor(int64_t nodes, int64_t configs) const;
    // What a step does for one graph before clipping and the optimizer step: the loss of the
    // configs `rows` of data.graphs[graph] (the module in train mode) and, when it is finite, the
    // gradients of loss / divisor added to the parameters' (in config chunks when configChunkFor()
    // says so). Returns the loss.
    double lossAndGradients(size_t graph, const std::vector<int64_t>& rows, double divisor = 1.0);

    // The first graph visited at 0-based step `step` (epoch order from the seed).
    size_t graphAtStep(int64_t step) { return graphAtVisit(step * m_options.graphsPerStep); }
    // The graph of 0-based visit `visit` (step s visits s x graphsPerStep ... + graphsPerStep - 1).
    size_t graphAtVisit(int64_t visit);

private:
    StepOutcome batchedStep();
    void finishStep(StepOutcome& out, const std::vector<torch::Tensor>& params);
    struct GraphScore;
    GraphScore scoreGraph(size_t graph);
    void publishWorker();
    void reportWorkers(int64_t intervalSteps);
    torch::Tensor forward(size_t graph, const std::vector<int64_t>& rows, const ConfigWindow& window = {});
    double chunkedLossAndGradients(size_t graph, const std::vector<int64_t>& rows, int64_t chunk, double divisor);
    // The tensors and the compressed configurations of a training or validation graph.
    const GraphTensors& tensorsOf(size_t graph, const NdArray<int32_t>** configs);
    torch::Tensor targetMask(size_t graph, const std::vector<int64_t>& rows) const;
    // log runtime (tile: log(runtime / normalizer)) of one config.
    double logRuntime(size_t graph, int64_t config) const;
    // (C,) logRuntime standardized by the graph's mean and std over all its configs.
    torch::Tensor logTarget(size_t graph, const std::vector<int64_t>& rows) const;
    torch::Tensor loss(const torch::Tensor& scores, size_t graph, const std::vector<int64_t>& rows) const;
    void emit(RunEventKind kind, std::string message, std::string path = {});

    const TrainingData& m_data;
    std::vector<size_t> m_train;
    std::vector<size_t> m_valid;
    TrainOptions m_options;
    int64_t m_total = 0;
    int64_t m_warmup = 0;
    GraphKind m_kind;
    TGraphModel m_layout { nullptr };
    TileModel m_tile { nullptr };
    ZooModel m_zoo;
    LossKind m_loss = LossKind::Hinge;
    std::vector<std::pair<double, double>> m_targetStats; // per data graph: mean, std of log runtime
    Normalizer m_normalizer;
    std::vector<GraphTensors> m_tensors; // per data graph; empty entries for unused and lazily loaded graphs
    std::vector<bool> m_used; // per data graph: a training or validation graph of this trainer
    // Lazily loaded data (TrainingData::acquire): the graph the last forward() used, with its tensors.
    struct LoadedGraph
    {
        size_t index = size_t(-1);
        std::shared_ptr<const TrainingGraph> graph;
        GraphTensors tensors;
    };
    LoadedGraph m_loaded;
    std::vector<torch::Tensor> m_tileConfigs; // tile: config_feat (C, 24) per data graph
    std::optional<AdamW> m_optimizer;
    std::mt19937_64 m_sampler;
    TrainingCounters m_counters;
    int64_t m_orderEpoch = -1;
    std::vector<size_t> m_order;
    TrainingSink* m_sink = nullptr;
    ProgressSink* m_progress = nullptr;
    std::string m_progressLabel = "training";
    std::string m_outDir;
    Communicator* m_comm = nullptr;
    bool m_stopAgreed = false; // a worker asked to stop: all stop after this step
    std::vector<std::string> m_workerNames; // rank 0: "pid P on HOST" per worker
    std::vector<double> m_workerSeconds; // compute seconds per worker in the current log interval
};

// Row bounds of numpy.array_split(range(count), ceil(count / batch)): near-equal contiguous
// chunks (sizes differ by at most one, larger ones first), each at most `batch` (docs/model.md §6.1).
std::vector<std::pair<int64_t, int64_t>> arraySplitChunks(int64_t count, int64_t batch);

// `count` distinct indices in 0..population-1, uniformly without replacement (a partial
// Fisher-Yates shuffle), or all of them in order when population <= count.
std::vector<int64_t> sampleWithoutReplacement(int64_t population, int64_t count, std::mt19937_64& rng);

} // namespace tgraph::model
