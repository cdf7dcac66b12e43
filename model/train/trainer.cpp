// SPDX-License-Identifier: Apache-2.0
#include "model/train/trainer.h"

#include "model/train/rankloss.h"

#include "model/nn/fusedops.h"
#include "model/nn/recomputedlayer.h"

#include "core/util/error.h"
#include "core/metrics/metrics.h"
#include "core/util/progress.h"

#include <ATen/CPUGeneratorImpl.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <numeric>
#include <sstream>
#include <unistd.h>

namespace tgraph::model {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Uniform in 0..n-1 by rejection (no modulo bias; deterministic for a given generator state).
uint64_t uniformBelow(std::mt19937_64& rng, uint64_t n)
{
    const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
    uint64_t v = 0;
    do
        v = rng();
    while (v >= limit);
    return v % n;
}

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::vector<int64_t> pick(const NdArray<int64_t>& values, const std::vector<int64_t>& rows)
{
    std::vector<int64_t> out;
    out.reserve(rows.size());
    for (int64_t r : rows)
        out.push_back(values[r]);
    return out;
}

std::vector<std::pair<std::string, torch::Tensor>> namedParameters(const torch::nn::Module& m)
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& item : m.named_parameters())
        out.emplace_back(item.key(), item.value());
    return out;
}

// Seed of visit `visit`'s generators (splitmix64 of the run seed and the visit), so that a
// visit's config sample and dropout do not depend on the worker that takes it.
uint64_t visitSeed(uint64_t seed, int64_t visit, uint64_t stream)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (uint64_t(visit) + 1) + stream * 0xD1B54A32D192ED03ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The progress bar of a data-parallel worker: shown, but a stop request is not raised inside the
// bar (that would stop this worker alone); the trainer passes it to all workers instead.
class AgreedStopProgress final : public ProgressSink
{
public:
    explicit AgreedStopProgress(ProgressSink* inner)
        : m_inner(inner)
    { }
    void begin(std::string_view label, uint64_t total) override { m_inner->begin(label, total); }
    void update(uint64_t done) override { m_inner->update(done); }
    void end() override { m_inner->end(); }

private:
    ProgressSink* m_inner;
};

bool isBias(const std::string& name) { return name.size() >= 5 && name.compare(name.size() - 5, 5, ".bias") == 0; }

} // namespace

std::vector<std::pair<int64_t, int64_t>> arraySplitChunks(int64_t count, int64_t batch)
{
    std::vector<std::pair<int64_t, int64_t>> chunks;
    if (count <= 0)
        return chunks;
    const int64_t k = (count + batch - 1) / batch;
    const int64_t base = count / k;
    const int64_t larger = count % k;
    int64_t begin = 0;
    for (int64_t i = 0; i < k; ++i) {
        const int64_t size = base + (i < larger ? 1 : 0);
        chunks.emplace_back(begin, begin + size);
        begin += size;
    }
    return chunks;
}

std::vector<int64_t> sampleWithoutReplacement(int64_t population, int64_t count, std::mt19937_64& rng)
{
    if (population <= count)
        return allRows(population);
    std::vector<int64_t> items = allRows(population);
    for (int64_t i = 0; i < count; ++i) {
        const int64_t j = i + int64_t(uniformBelow(rng, uint64_t(population - i)));
        std::swap(items[size_t(i)], items[size_t(j)]);
    }
    items.resize(size_t(count));
    return items;
}

Trainer::Trainer(const TrainingData& data, std::vector<size_t> trainGraphs, std::vector<size_t> validGraphs,
    const TrainOptions& options, const Checkpoint* resume)
    : m_data(data)
    , m_train(std::move(trainGraphs))
    , m_valid(std::move(validGraphs))
    , m_options(options)
    , m_kind(data.kind)
{
    if (m_train.empty())
        throw std::invalid_argument("Trainer: no training graphs");
    if (options.configsPerStep < 1 || options.evalBatch < 1 || options.logEvery < 1 || options.maxNonFiniteRun < 1)
        throw std::invalid_argument("Trainer: configsPerStep, evalBatch, logEvery and maxNonFiniteRun must be >= 1");
    if (resume && resume->kind != m_kind)
        throw std::invalid_argument("Trainer: checkpoint and data are of different kinds");
    if (options.configChunk < kConfigChunkAuto)
        throw std::invalid_argument("Trainer: configChunk must be auto, off or a number of configs");
    if (options.deterministic)
        at::globalContext().setDeterministicAlgorithms(true, false);

    const bool continuing = resume && resume->totalSteps > 0;
    m_total = continuing ? resume->totalSteps : tgraph::model::totalSteps(options, int64_t(m_train.size()));
    m_warmup = continuing ? resume->warmupSteps : tgraph::model::warmupSteps(options, m_total);

    ModelOptions modelOptions = options.model;
    if (resume) {
        modelOptions = resume->modelOptions();
        modelOptions.dropout = options.model.dropout;
        m_options.model = modelOptions;
    }
    torch::manual_seed(options.seed);
    if (modelOptions.family != ModelFamily::TGraph)
        m_zoo = makeZooModel(modelOptions, m_kind);
    else if (m_kind == GraphKind::Layout)
        m_layout = TGraphModel(modelOptions);
    else
        m_tile = TileModel(modelOptions);
    m_loss = effectiveLoss(m_options);
    if (m_layout)
        m_layout->encoder.setRecompute(m_options.recompute);
    if (m_tile)
        m_tile->encoder.setRecompute(m_options.recompute);
    if (m_options.configChunk > 0 && m_options.model.useCrossAttn)
        throw std::invalid_argument("Trainer: config chunks need cross-config attention off (with it a config's score "
                                    "depends on the other configs of the step)");
    if (resume) {
        torch::NoGradGuard noGrad;
        const auto source = resume->module().named_parameters();
        for (auto& p : module().named_parameters())
            p.value().copy_(source[p.key()]);
        const auto buffers = resume->module().named_buffers();
        for (auto& b : module().named_buffers())
            b.value().copy_(buffers[b.key()]);
        m_normalizer = resume->normalizer;
    } else {
        m_normalizer = fitNormalizer(data, m_train);
        if (m_kind == GraphKind::Tile) {
            std::vector<const TileGraph*> kernels;
            for (size_t i : m_train)
                kernels.push_back(&data.graphs[i].tile);
            if (m_tile)
                m_tile->setConfigStats(computeConfigStats(kernels));
            else
                m_zoo->setConfigStats(computeConfigStats(kernels));
        }
    }
    // Regression targets: log runtime standardized per graph over all its configs.
    m_targetStats.assign(data.graphs.size(), { 0.0, 1.0 });
    for (size_t i : m_train) {
        const TrainingGraph& g = data.graphs[i];
        double sum = 0, squares = 0;
        for (int64_t c = 0; c < g.configCount(); ++c) {
            const double v = logRuntime(i, c);
            sum += v;
            squares += v * v;
        }
        const double n = double(std::max<int64_t>(1, g.configCount()));
        const double mean = sum / n;
        const double var = squares / n - mean * mean;
        m_targetStats[i] = { mean, var > 1e-12 ? std::sqrt(var) : 1.0 };
    }

    m_tensors.resize(data.graphs.size());
    m_tileConfigs.resize(data.graphs.size());
    m_used.assign(data.graphs.size(), false);
    std::vector<size_t> used = m_train;
    used.insert(used.end(), m_valid.begin(), m_valid.end());
    const int64_t opTable = modelOptions.opTableSize;
    for (size_t i : used) {
        const TrainingGraph& g = data.graphs.at(i);
        m_used[i] = true;
        if (m_tensors[i].numeric.defined() || !g.resident)
            continue; // lazily loaded graphs: built when a step or a validation pass uses them
        if (m_kind == GraphKind::Layout) {
            m_tensors[i] = makeGraphTensors(g.layout, m_normalizer, opTable, g.path);
        } else {
            TileBatch b = makeTileBatch(g.tile, m_normalizer, allRows(g.configCount()), opTable, g.path);
            m_tensors[i] = std::move(b.graph);
            m_tileConfigs[i] = b.configFeat;
        }
    }

    const auto decayed = [this](const std::string& name) { return m_options.decayBiases || !isBias(name); };
    m_optimizer.emplace(namedParameters(module()),
        AdamWOptions { options.beta1, options.beta2, options.adamEps, options.weightDecay }, decayed);
    m_sampler.seed(options.seed);
    if (continuing) {
        m_optimizer->setState(resume->optimizerStep, resume->moments);
        m_counters = resume->counters;
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        generator.set_state(resume->torchRng);
        std::istringstream s(resume->samplerRng);
        s >> m_sampler;
    }
}

torch::nn::Module& Trainer::module()
{
    if (m_zoo)
        return *m_zoo;
    if (m_layout)
        return *m_layout;
    return *m_tile;
}

void Trainer::setCommunicator(Communicator* comm)
{
    if (comm && m_options.graphsPerStep < comm->worldSize())
        throw std::invalid_argument("Trainer: graphsPerStep must be at least the number of workers");
    m_comm = comm && comm->worldSize() > 1 ? comm : nullptr;
}

void Trainer::setProgress(ProgressSink* progress, std::string label)
{
    m_progress = progress;
    m_progressLabel = std::move(label);
}

void Trainer::emit(RunEventKind kind, std::string message, std::string path)
{
    if (m_sink)
        m_sink->runEvent({ kind, m_options.fold, m_counters.step, std::move(message), std::move(path) });
}

size_t Trainer::graphAtVisit(int64_t visit)
{
    const int64_t n = int64_t(m_train.size());
    const int64_t epoch = visit / n;
    if (epoch != m_orderEpoch) {
        // Each epoch's order depends only on the seed and the epoch, so a resumed run needs no state.
        std::mt19937_64 rng(m_options.seed ^ (0x9E3779B97F4A7C15ULL * uint64_t(epoch + 1)));
        m_order = m_train;
        for (int64_t i = n - 1; i >= 1; --i)
            std::swap(m_order[size_t(i)], m_order[uniformBelow(rng, uint64_t(i + 1))]);
        m_orderEpoch = epoch;
    }
    return m_order[size_t(visit % n)];
}

const GraphTensors& Trainer::tensorsOf(size_t graph, const NdArray<int32_t>** configs)
{
    const TrainingGraph& g = m_data.graphs[graph];
    if (g.resident) {
        *configs = &g.configs;
        return m_tensors[graph];
    }
    if (m_loaded.index != graph) {
        m_loaded = LoadedGraph(); // let the previous graph go before reading the next
        auto full = m_data.acquire(graph);
        m_loaded.tensors = makeGraphTensors(full->layout, m_normalizer, m_options.model.opTableSize, full->path);
        m_loaded.graph = std::move(full);
        m_loaded.index = graph;
    }
    *configs = &m_loaded.graph->configs;
    return m_loaded.tensors;
}

torch::Tensor Trainer::forward(size_t graph, const std::vector<int64_t>& rows, const ConfigWindow& window)
{
    const TrainingGraph& g = m_data.graphs[graph];
    if (m_kind == GraphKind::Layout) {
        LayoutBatch batch;
        const NdArray<int32_t>* configs = nullptr;
        batch.graph = tensorsOf(graph, &configs);
        batch.configTokens = makeConfigTokens(*configs, rows, g.path);
        attachSimInputRows(batch, m_options.model.simInputs, g.simInputs, rows, g.path);
        batch.window = window;
        return m_zoo ? m_zoo->score(batch) : m_layout->forward(batch);
    }
    TileBatch batch;
    batch.graph = m_tensors[graph];
    batch.configFeat = m_tileConfigs[graph].index_select(0, torch::tensor(rows, torch::kInt64));
    return m_zoo ? m_zoo->score(batch) : m_tile->forward(batch);
}

double Trainer::logRuntime(size_t graph, int64_t config) const
{
    const TrainingGraph& g = m_data.graphs[graph];
    double t = double(g.runtimes()[config]);
    if (m_kind == GraphKind::Tile)
        t /= double(g.tile.configRuntimeNormalizers[config]);
    return std::log(std::max(t, 1e-30));
}

torch::Tensor Trainer::logTarget(size_t graph, const std::vector<int64_t>& rows) const
{
    const auto [mean, stddev] = m_targetStats[graph];
    std::vector<double> values;
    values.reserve(rows.size());
    for (int64_t r : rows)
        values.push_back((logRuntime(graph, r) - mean) / stddev);
    return torch::tensor(values, torch::kFloat64).to(torch::kFloat32);
}

torch::Tensor Trainer::loss(const torch::Tensor& scores, size_t graph, const std::vector<int64_t>& rows) const
{
    switch (m_loss) {
    case LossKind::Logistic:
        return pairwiseLogisticLoss(scores, targetMask(graph, rows));
    case LossKind::ListMle:
        // The TpuGraphs baseline's ListMLE with a small MSE term (docs/model.md §8.1).
        return listMleLoss(scores, logTarget(graph, rows)) + 0.01 * mseLoss(scores, logTarget(graph, rows));
    case LossKind::Mse:
        return mseLoss(scores, logTarget(graph, rows));
    case LossKind::Auto:
    case LossKind::Hinge:
        break;
    }
    return pairwiseHingeLoss(scores, targetMask(graph, rows));
}

torch::Tensor Trainer::targetMask(size_t graph, const std::vector<int64_t>& rows) const
{
    const TrainingGraph& g = m_data.graphs[graph];
    if (m_kind == GraphKind::Layout)
        return slowerMask(pick(g.layout.configRuntime, rows));
    return slowerMask(pick(g.tile.configRuntime, rows), pick(g.tile.configRuntimeNormalizers, rows));
}

StepOutcome Trainer::step()
{
    if (m_options.graphsPerStep > 1 || m_comm)
        return batchedStep();
    StepOutcome out;
    const int64_t t = m_counters.step;
    out.graph = graphAtStep(t);
    const TrainingGraph& g = m_data.graphs[out.graph];
    const std::vector<int64_t> rows = m_kind == GraphKind::Layout
        ? sampleWithoutReplacement(g.configCount(), m_options.configsPerStep, m_sampler)
        : allRows(g.configCount());
    out.configs = int64_t(rows.size());
    out.nodes = g.nodeCount();
    out.learningRate = learningRateAt(t, m_total, m_warmup, m_options.learningRate);

    module().train();
    out.loss = lossAndGradients(out.graph, rows, 1.0);
    out.gradNorm = kNaN;
    out.skipped = !std::isfinite(out.loss);
    std::vector<torch::Tensor> params;
    for (const auto& [name, p] : m_optimizer->parameters())
        params.push_back(p);
    finishStep(out, params);
    return out;
}

int64_t Trainer::configChunkFor(int64_t nodes, int64_t configs) const
{
    // Only the TGraph layout model without cross-attention has per-config scores; on the composed
    // ATen path dropout's masks are not keyed by config, so chunks would draw other masks.
    if (!m_layout || m_options.model.useCrossAttn || m_options.configChunk == kConfigChunkOff)
        return 0;
    if (m_options.model.dropout > 0.0 && !fusedKernelsEnabled())
        return 0;
    int64_t chunk = m_options.configChunk;
    if (chunk == kConfigChunkAuto) {
        const int64_t perConfig = std::max<int64_t>(1, nodes * m_options.model.hidden * int64_t(sizeof(float)));
        if (m_options.recompute != RecomputeMode::Auto || perConfig * configs < kRecomputeAutoBytes)
            return 0;
        chunk = std::max<int64_t>(1, (kConfigChunkAutoBytes - 1) / perConfig);
    }
    return chunk < configs ? chunk : 0;
}

double Trainer::lossAndGradients(size_t graph, const std::vector<int64_t>& rows, double divisor)
{
    if (const int64_t chunk = configChunkFor(m_data.graphs[graph].nodeCount(), int64_t(rows.size())))
        return chunkedLossAndGradients(graph, rows, chunk, divisor);
    const torch::Tensor loss = this->loss(forward(graph, rows), graph, rows);
    const double value = loss.item<double>();
    if (std::isfinite(value))
        (divisor == 1.0 ? loss : loss / divisor).backward();
    return value;
}

double Trainer::chunkedLossAndGradients(
    size_t graph, const std::vector<int64_t>& rows, int64_t chunk, double divisor)
{
    // 1. The scores of all configs, without gradients (the model scores them in sub-batches of
    //    bounded memory, with the masks of the whole batch).
    const torch::Tensor start = cpuGeneratorState();
    torch::Tensor scores;
    {
        torch::NoGradGuard noGrad;
        scores = forward(graph, rows);
    }
    // 2. The loss on a leaf copy of the scores, and its gradient g = dLoss/dscores.
    const torch::Tensor leaf = scores.detach().requires_grad_(true);
    const torch::Tensor loss = this->loss(leaf, graph, rows);
    const double value = loss.item<double>();
    if (!std::isfinite(value))
        return value;
    (divisor == 1.0 ? loss : loss / divisor).backward();
    const torch::Tensor g = leaf.grad();
    // 3. Each chunk forward again with gradients, from the same generator state and with its place
    //    in the batch (same dropout masks), and backward from its part of g: the parameters'
    //    gradients add up to those of the whole step. The generator ends where one forward leaves it.
    const int64_t total = int64_t(rows.size());
    for (const auto& [begin, end] : arraySplitChunks(total, chunk)) {
        setCpuGeneratorState(start);
        const std::vector<int64_t> part(rows.begin() + begin, rows.begin() + end);
        forward(graph, part, ConfigWindow { begin, total }).backward(g.narrow(0, begin, end - begin));
    }
    return value;
}

void Trainer::finishStep(StepOutcome& out, const std::vector<torch::Tensor>& params)
{
    // Clip and step unless the loss (out.skipped) or the gradient norm is not finite.
    if (!out.skipped) {
        out.gradNorm = clipGradNorm(params, m_options.clipNorm);
        out.skipped = !std::isfinite(out.gradNorm);
        if (!out.skipped)
            m_optimizer->step(out.learningRate);
    }
    m_optimizer->zeroGrad();
    if (out.skipped) {
        ++m_counters.nonFiniteTotal;
        ++m_counters.nonFiniteRun;
    } else {
        m_counters.nonFiniteRun = 0;
    }
    ++m_counters.step;
}

StepOutcome Trainer::batchedStep()
{
    StepOutcome out;
    const int64_t t = m_counters.step;
    const int64_t graphs = m_options.graphsPerStep;
    const int rank = m_comm ? m_comm->rank() : 0;
    const int world = m_comm ? m_comm->worldSize() : 1;
    out.learningRate = learningRateAt(t, m_total, m_warmup, m_options.learningRate);
    const auto start = std::chrono::steady_clock::now();

    module().train();
    double lossSum = 0;
    int64_t nonFinite = 0, configs = 0, nodes = 0;
    bool first = true;
    for (int64_t i = rank; i < graphs; i += world) {
        const int64_t visit = t * graphs + i;
        const size_t graph = graphAtVisit(visit);
        if (first)
            out.graph = graph;
        first = false;
        const TrainingGraph& g = m_data.graphs[graph];
        std::mt19937_64 rng(visitSeed(m_options.seed, visit, 1));
        const std::vector<int64_t> rows = m_kind == GraphKind::Layout
            ? sampleWithoutReplacement(g.configCount(), m_options.configsPerStep, rng)
            : allRows(g.configCount());
        torch::manual_seed(visitSeed(m_options.seed, visit, 2)); // dropout
        const double value = lossAndGradients(graph, rows, double(graphs));
        configs += int64_t(rows.size());
        nodes += int64_t(rows.size()) * g.nodeCount();
        if (!std::isfinite(value)) {
            ++nonFinite;
            continue;
        }
        lossSum += value;
    }

    std::vector<torch::Tensor> grads;
    std::vector<torch::Tensor> params;
    for (const auto& [name, p] : m_optimizer->parameters()) {
        if (!p.grad().defined())
            p.mutable_grad() = torch::zeros_like(p);
        grads.push_back(p.mutable_grad());
        params.push_back(p);
    }
    m_workerSeconds.resize(size_t(world), 0.0);
    if (m_comm) {
        // Counters ride with the gradients: loss sum, non-finite graphs, configs, config-nodes,
        // stop requests, then each worker's compute seconds in its own slot.
        torch::Tensor stats = torch::zeros({ 5 + world }, torch::kFloat64);
        auto s = stats.accessor<double, 1>();
        s[0] = lossSum;
        s[1] = double(nonFinite);
        s[2] = double(configs);
        s[3] = double(nodes);
        s[4] = m_progress && m_progress->isCancelled() ? 1.0 : 0.0;
        s[5 + rank] = seconds(start);
        grads.push_back(stats);
        m_comm->allReduceSum(grads);
        lossSum = s[0];
        nonFinite = int64_t(s[1]);
        configs = int64_t(s[2]);
        nodes = int64_t(s[3]);
        if (s[4] > 0)
            m_stopAgreed = true;
        for (int r = 0; r < world; ++r)
            m_workerSeconds[size_t(r)] += s[5 + r];
    } else {
        m_workerSeconds[0] += seconds(start);
    }
    out.configs = configs;
    out.nodes = configs ? nodes / configs : 0; // mean nodes: tokens = configs x nodes
    out.loss = nonFinite ? kNaN : lossSum / double(graphs);
    out.gradNorm = kNaN;
    out.skipped = nonFinite > 0;
    finishStep(out, params);
    return out;
}

std::vector<double> Trainer::scoreAllConfigs(size_t graph)
{
    torch::NoGradGuard noGrad;
    module().eval();
    const TrainingGraph& g = m_data.graphs.at(graph);
    if (!m_used[graph])
        throw std::invalid_argument("Trainer::scoreAllConfigs: graph is neither a training nor a validation graph");
    std::vector<double> scores;
    scores.reserve(size_t(g.configCount()));
    // Tile scores do not depend on the other configs of a batch: one pass. Layout: array_split
    // chunks, as the code's evaluation (cross-attention makes scores batch-dependent).
    const int64_t batch = m_kind == GraphKind::Layout ? m_options.evalBatch : std::max<int64_t>(1, g.configCount());
    for (const auto& [begin, end] : arraySplitChunks(g.configCount(), batch)) {
        std::vector<int64_t> rows(size_t(end - begin));
        std::iota(rows.begin(), rows.end(), begin);
        const auto s = forward(graph, rows).to(torch::kFloat64).contiguous();
        scores.insert(scores.end(), s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
    }
    return scores;
}

struct Trainer::GraphScore
{
    GraphEvalMetrics metrics;
    double top1 = kNaN; // top-1 slowdown (NaN: undefined)
    double apeNumerator = 0, apeDenominator = 0;
    bool finite = false; // all scores finite
};

Trainer::GraphScore Trainer::scoreGraph(size_t i)
{
    const TrainingGraph& g = m_data.graphs[i];
    const std::vector<double> scores = scoreAllConfigs(i);
    std::vector<double> target(size_t(g.configCount()));
    std::vector<double> raw(size_t(g.configCount()));
    for (int64_t c = 0; c < g.configCount(); ++c) {
        raw[size_t(c)] = double(g.runtimes()[c]);
        target[size_t(c)] = m_kind == GraphKind::Layout ? raw[size_t(c)]
                                                        : raw[size_t(c)] / double(g.tile.configRuntimeNormalizers[c]);
    }
    GraphScore out;
    GraphEvalMetrics& e = out.metrics;
    e.graph = g.name;
    e.configs = g.configCount();
    out.finite = std::all_of(scores.begin(), scores.end(), [](double s) { return std::isfinite(s); });
    if (!out.finite) {
        e.kendallTau = e.opa = e.top5Slowdown = e.tileScore = kNaN;
        return out;
    }
    e.kendallTau = kendallTauB(target, scores);
    e.opa = orderedPairAccuracy(target, scores);
    e.top5Slowdown = topKSlowdown(target, scores, 5);
    e.tileScore = m_kind == GraphKind::Tile ? tileScore(raw, scores, 5) : kNaN;
    out.top1 = topKSlowdown(target, scores, 1);
    const size_t predicted = size_t(std::min_element(scores.begin(), scores.end()) - scores.begin());
    const double best = *std::min_element(raw.begin(), raw.end());
    out.apeNumerator = std::abs(raw[predicted] - best);
    out.apeDenominator = best;
    return out;
}

EvalMetrics Trainer::evaluate()
{
    const auto start = std::chrono::steady_clock::now();
    EvalMetrics m;
    m.fold = m_options.fold;
    m.step = m_counters.step;
    std::vector<GraphScore> scored(m_valid.size());
    if (!m_comm) {
        for (size_t j = 0; j < m_valid.size(); ++j)
            scored[j] = scoreGraph(m_valid[j]);
    } else {
        // Each worker scores validation graphs j % worldSize == rank; one all-reduce of a table
        // (a row per graph, zeros from the workers that did not score it) gives everyone all.
        constexpr int kColumns = 9;
        torch::Tensor table = torch::zeros({ int64_t(std::max<size_t>(1, m_valid.size())), kColumns }, torch::kFloat64);
        auto t = table.accessor<double, 2>();
        for (size_t j = size_t(m_comm->rank()); j < m_valid.size(); j += size_t(m_comm->worldSize())) {
            const GraphScore s = scoreGraph(m_valid[j]);
            const double row[kColumns] = { s.metrics.kendallTau, s.metrics.opa, s.metrics.top5Slowdown,
                s.metrics.tileScore, s.top1, s.apeNumerator, s.apeDenominator, s.finite ? 1.0 : 0.0, 0.0 };
            for (int k = 0; k < kColumns; ++k)
                t[int64_t(j)][k] = row[k];
        }
        std::vector<torch::Tensor> tensors { table };
        m_comm->allReduceSum(tensors);
        for (size_t j = 0; j < m_valid.size(); ++j) {
            const TrainingGraph& g = m_data.graphs[m_valid[j]];
            GraphScore& s = scored[j];
            s.metrics.graph = g.name;
            s.metrics.configs = g.configCount();
            s.metrics.kendallTau = t[int64_t(j)][0];
            s.metrics.opa = t[int64_t(j)][1];
            s.metrics.top5Slowdown = t[int64_t(j)][2];
            s.metrics.tileScore = t[int64_t(j)][3];
            s.top1 = t[int64_t(j)][4];
            s.apeNumerator = t[int64_t(j)][5];
            s.apeDenominator = t[int64_t(j)][6];
            s.finite = t[int64_t(j)][7] > 0.5;
        }
    }
    double top1Sum = 0, apeNumerator = 0, apeDenominator = 0;
    int64_t top1Count = 0;
    for (GraphScore& s : scored) {
        if (s.finite) {
            if (std::isfinite(s.top1)) {
                top1Sum += s.top1;
                ++top1Count;
            }
            apeNumerator += s.apeNumerator;
            apeDenominator += s.apeDenominator;
        }
        m.graphs.push_back(std::move(s.metrics));
    }
    summarizeGraphs(m, m_kind == GraphKind::Tile);
    m.meanTop1Slowdown = top1Count ? top1Sum / double(top1Count) : kNaN;
    m.ape = m_kind == GraphKind::Tile && apeDenominator > 0 ? 100.0 * apeNumerator / apeDenominator : kNaN;
    m.seconds = seconds(start);
    return m;
}

Checkpoint Trainer::checkpoint() const
{
    Checkpoint c;
    c.kind = m_kind;
    c.layout = m_layout;
    c.tile = m_tile;
    c.zoo = m_zoo;
    c.normalizer = m_normalizer;
    c.options = m_options;
    c.optimizerStep = m_optimizer->stepCount();
    c.moments = m_optimizer->moments();
    c.totalSteps = m_total;
    c.warmupSteps = m_warmup;
    c.torchRng = at::detail::getDefaultCPUGenerator().get_state();
    std::ostringstream s;
    s << m_sampler;
    c.samplerRng = s.str();
    c.counters = m_counters;
    std::vector<size_t> used = m_train;
    used.insert(used.end(), m_valid.begin(), m_valid.end());
    if (m_options.folds > 0) // a fold's split is rebuilt from all graphs on resume
        used = m_data.allIndices();
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (size_t i : used)
        c.dataFiles.push_back({ m_data.graphs[i].path, m_data.graphs[i].split, true });
    return c;
}

void Trainer::saveCheckpoint(const std::string& path) const { model::saveCheckpoint(checkpoint(), path); }

void Trainer::publishWorker()
{
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    m_comm->publish(
        "worker/" + std::to_string(m_comm->rank()), "pid " + std::to_string(::getpid()) + " on " + std::string(host));
    m_workerNames.clear();
    if (m_comm->rank() == 0)
        for (int r = 0; r < m_comm->worldSize(); ++r)
            m_workerNames.push_back(m_comm->read("worker/" + std::to_string(r)));
}

void Trainer::reportWorkers(int64_t intervalSteps)
{
    // Every step's all-reduce is each worker's heartbeat: rank 0 records who took part, and how
    // long each computed per step (a slow worker holds all the others up).
    if (m_comm->rank() == 0 && intervalSteps > 0) {
        const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
        char when[32];
        std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
        for (int r = 0; r < m_comm->worldSize(); ++r) {
            char text[320];
            std::snprintf(text, sizeof text, "%s: step %lld at %s, %.0f ms compute per step",
                r < int(m_workerNames.size()) ? m_workerNames[size_t(r)].c_str() : "?", (long long)m_counters.step,
                when, 1000.0 * m_workerSeconds[size_t(r)] / double(intervalSteps));
            emit(RunEventKind::Worker, text, "worker." + std::to_string(r));
        }
    }
    std::fill(m_workerSeconds.begin(), m_workerSeconds.end(), 0.0);
}

TrainResult Trainer::run(int64_t untilStep)
{
    namespace fs = std::filesystem;
    const int64_t end = untilStep < 0 ? m_total : std::min(untilStep, m_total);
    TrainResult result;
    std::optional<AgreedStopProgress> agreed;
    if (m_comm && m_progress)
        agreed.emplace(m_progress);
    ProgressScope progress(agreed ? &*agreed : m_progress, m_progressLabel, uint64_t(m_total));
    if (m_comm)
        publishWorker();
    progress.advanceTo(uint64_t(m_counters.step));
    if (m_counters.step == 0)
        emit(RunEventKind::Started,
            std::to_string(m_train.size()) + " training and " + std::to_string(m_valid.size()) + " validation graphs, "
                + std::to_string(m_total) + " steps (warm-up " + std::to_string(m_warmup) + "), "
                + describe(m_options.model) + ", loss " + lossKindName(m_loss) + ", seed "
                + std::to_string(m_options.seed));
    else
        emit(RunEventKind::Started,
            "resumed at step " + std::to_string(m_counters.step) + " of " + std::to_string(m_total));

    const auto path = [this](const char* name) { return (fs::path(m_outDir) / name).string(); };
    StepMetrics interval;
    double intervalSeconds = 0;
    double lossSum = 0, normSum = 0, tokens = 0;
    int64_t taken = 0;
    auto flush = [&] {
        if (interval.intervalSteps == 0)
            return;
        interval.fold = m_options.fold;
        interval.step = m_counters.step;
        interval.totalSteps = m_total;
        interval.epoch = double(m_counters.step * m_options.graphsPerStep) / double(m_train.size());
        interval.loss = taken ? lossSum / double(taken) : kNaN;
        interval.gradNorm = taken ? normSum / double(taken) : kNaN;
        interval.tokensPerSecond = intervalSeconds > 0 ? tokens / intervalSeconds : 0;
        interval.stepsPerSecond = intervalSeconds > 0 ? double(interval.intervalSteps) / intervalSeconds : 0;
        interval.skippedTotal = m_counters.nonFiniteTotal;
        if (m_sink)
            m_sink->stepMetrics(interval);
        if (m_comm)
            reportWorkers(interval.intervalSteps);
        interval = StepMetrics();
        intervalSeconds = lossSum = normSum = tokens = 0;
        taken = 0;
    };

    try {
        while (m_counters.step < end) {
            const auto start = std::chrono::steady_clock::now();
            const StepOutcome o = step();
            intervalSeconds += seconds(start);
            ++interval.intervalSteps;
            interval.learningRate = o.learningRate;
            tokens += double(o.configs) * double(o.nodes);
            if (o.skipped) {
                ++interval.skippedSteps;
            } else {
                lossSum += o.loss;
                normSum += o.gradNorm;
                ++taken;
            }
            const int64_t t = m_counters.step;
            if (m_counters.nonFiniteRun >= m_options.maxNonFiniteRun) {
                flush();
                result.diverged = true;
                result.message = "stopped at step " + std::to_string(t) + ": " + std::to_string(m_counters.nonFiniteRun)
                    + " consecutive steps with a non-finite loss or gradient (last on " + m_data.graphs[o.graph].path
                    + "); the model diverged or the data hold non-finite values. Try a lower --lr.";
                emit(RunEventKind::Stopped, result.message);
                break;
            }
            if (t % m_options.logEvery == 0 || t == end)
                flush();
            const bool milestone = (m_options.evalEvery > 0 && t % m_options.evalEvery == 0) || t == m_total;
            if (milestone && !m_valid.empty()) {
                EvalMetrics e = evaluate();
                const bool better
                    = m_counters.bestStep < 0 || (std::isfinite(e.meanTau) && !(e.meanTau <= m_counters.bestTau));
                if (better) {
                    m_counters.bestTau = e.meanTau;
                    m_counters.bestStep = t;
                    e.best = true;
                }
                if (m_sink)
                    m_sink->evalMetrics(e);
                if (better && !m_outDir.empty()) {
                    saveCheckpoint(path("best.npz"));
                    result.bestCheckpoint = path("best.npz");
                    emit(RunEventKind::Checkpoint, "best mean tau so far", result.bestCheckpoint);
                }
                result.lastEval = std::move(e);
            }
            if (milestone && !m_outDir.empty()) {
                saveCheckpoint(path("last.npz"));
                result.lastCheckpoint = path("last.npz");
                emit(RunEventKind::Checkpoint, "latest state", result.lastCheckpoint);
            }
            progress.advanceTo(uint64_t(t));
            if (m_stopAgreed) // every worker leaves after the same step
                throw Cancelled();
        }
    } catch (const Cancelled&) {
        flush(); // the steps since the last logging interval: a stopped run's history reaches its last step
        throw;
    }
    result.steps = m_counters.step;
    result.finished = m_counters.step == m_total;
    result.counters = m_counters;
    if (result.finished)
        emit(RunEventKind::Finished,
            "finished " + std::to_string(m_total) + " steps, " + std::to_string(m_counters.nonFiniteTotal)
                + " skipped");
    return result;
}

} // namespace tgraph::model
