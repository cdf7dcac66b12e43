// SPDX-License-Identifier: Apache-2.0
#include "model/infer/explain.h"

#include "model/infer/explainsimulator.h"

#include "core/util/error.h"
#include "core/view/graphdocument.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloinput.h"
#include "core/io/npz.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tgraph::model {

namespace {

// Nodes per step when converting h to float64 for the shares: bounds the temporary to a few MB.
constexpr int64_t kShareNodeChunk = 256;

void checkLayoutMembers(const std::vector<EnsembleMember>& models)
{
    if (models.empty())
        throw std::invalid_argument("explain: no models");
    for (const EnsembleMember& m : models)
        if (m.kind != GraphKind::Layout)
            throw InputError(m.path, "",
                "holds a tile-model; explain needs a layout model (TGraph weights trained on layout graphs)");
        else if (m.zoo)
            throw InputError(m.path, "meta.model",
                "holds a " + m.modelName()
                    + " model; explain decomposes TGraph's scores (train with --model tgraph to explain a ranking)");
}

// A batch for `member`: with the simulator's inputs of its configs when the member reads them
// (docs/model.md §4.9), priced from the batch's own tokens (explain makes rows no file holds).
void priceBatch(LayoutBatch& batch, bool takesSimInputs, const GraphSimulator* simulator)
{
    if (!takesSimInputs) {
        batch.simInputs = torch::Tensor();
        return;
    }
    const auto values = (batch.configTokens - 2).to(torch::kFloat32).contiguous();
    NdArray<float> rows({ values.size(0), values.size(1), values.size(2) });
    std::copy_n(values.data_ptr<float>(), values.numel(), rows.data());
    batch.simInputs = makeSimInputs(priceConfigRows(simulator, rows), allRows(rows.dim(0)));
}

std::vector<double> toDoubles(const torch::Tensor& t)
{
    const auto d = t.to(torch::kFloat64).contiguous();
    return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

// First row and size of the array_split chunk holding `config`.
std::pair<int64_t, int64_t> chunkOf(int64_t config, int64_t configs, int64_t batchConfigs)
{
    int64_t first = 0;
    for (const int64_t size : arraySplitSizes(configs, batchConfigs)) {
        if (config < first + size)
            return { first, size };
        first += size;
    }
    throw std::out_of_range("explain: config outside the chunks");
}

void checkConfigIndex(int64_t config, int64_t configs, const std::string& source)
{
    if (config < 0 || config >= configs)
        throw InputError(source, "",
            "config " + std::to_string(config) + " is out of range: the graph has " + std::to_string(configs)
                + " configurations (0.." + std::to_string(configs - 1) + ")");
}

} // namespace

BatchDecomposition decomposeBatch(TGraphModel& model, const LayoutBatch& batch)
{
    torch::NoGradGuard noGrad;
    BatchDecomposition out;
    const auto h = model->nodeEmbeddings(batch); // (N, C, H)
    out.scores = model->classifier(h.mean(0)).squeeze(1).to(torch::kFloat32); // forward() exactly
    const int64_t n = h.size(0);
    const auto w = model->classifier->weight.reshape({ -1 }).to(torch::kFloat64);
    out.shares = torch::empty({ n, h.size(1) }, torch::kFloat64);
    for (int64_t first = 0; first < n; first += kShareNodeChunk) {
        const int64_t count = std::min(kShareNodeChunk, n - first);
        out.shares.narrow(0, first, count).copy_(torch::matmul(h.narrow(0, first, count).to(torch::kFloat64), w));
    }
    out.shares.div_(double(n));
    out.bias = model->classifier->bias.item<double>();
    return out;
}

torch::Tensor gradientTimesInput(TGraphModel& model, const LayoutBatch& batch, int64_t row)
{
    TORCH_CHECK(row >= 0 && row < batch.configs(), "gradientTimesInput: row out of range");
    torch::AutoGradMode withGradients(true);
    const auto embeddings = model->configEmbeddings(batch).detach().requires_grad_(true); // (C, Nc, 18, 4)
    const auto h = model->nodeEmbeddings(batch, embeddings);
    const auto scores = model->classifier(h.mean(0)).squeeze(1);
    const auto gradient = torch::autograd::grad({ scores[row] }, { embeddings })[0];
    return (gradient[row] * embeddings[row]).sum(-1).detach().to(torch::kFloat64); // (Nc, 18)
}

torch::Tensor withNodeLayouts(const torch::Tensor& base, const torch::Tensor& donor, const std::vector<int64_t>& nodes)
{
    auto out = base.clone();
    if (!nodes.empty()) {
        const auto index = torch::tensor(nodes, torch::kInt64);
        out.index_copy_(0, index, donor.index_select(0, index));
    }
    return out;
}

int64_t variantPasses(int64_t variants, int64_t anchors, int64_t batchConfigs)
{
    return int64_t(arraySplitSizes(variants, std::max<int64_t>(1, batchConfigs - anchors)).size());
}

VariantScores scoreVariants(TGraphModel& model, const GraphTensors& graph, const torch::Tensor& anchors,
    const torch::Tensor& variants, int64_t batchConfigs, const GraphSimulator* simulator)
{
    torch::NoGradGuard noGrad;
    VariantScores out;
    const int64_t k = anchors.size(0);
    const int64_t v = variants.size(0);
    int64_t first = 0;
    for (const int64_t size : arraySplitSizes(v, std::max<int64_t>(1, batchConfigs - k))) {
        LayoutBatch batch;
        batch.graph = graph;
        batch.configTokens = torch::cat({ anchors, variants.narrow(0, first, size) }, 0);
        priceBatch(batch, model->options().simInputs, simulator);
        const std::vector<double> s = toDoubles(model->forward(batch));
        out.anchorScores.emplace_back(s.begin(), s.begin() + k);
        for (int64_t j = 0; j < size; ++j) {
            out.scores.push_back(s[size_t(k + j)]);
            out.pass.push_back(int64_t(out.passSizes.size()));
        }
        out.passSizes.push_back(k + size);
        first += size;
    }
    return out;
}

Attribution explainConfigs(std::vector<EnsembleMember>& models, const PrunedGraph& pruned, int64_t a, int64_t b,
    const std::string& source, const ExplainOptions& options, ProgressSink* progress, const GraphSimulator* simulator)
{
    checkLayoutMembers(models);
    const LayoutGraph& graph = pruned.graph;
    const int64_t configs = graph.configCount();
    const int64_t nc = graph.configurableCount();
    const int64_t n = graph.nodeCount();
    for (const int64_t c : { a, b })
        checkConfigIndex(c, configs, source);
    if (a == b)
        throw InputError(source, "", "both configs to compare are config " + std::to_string(a));
    if (nc == 0)
        throw InputError(source, "node_config_ids", "the graph has no configurable nodes: there is nothing to explain");
    if (options.batchConfigs < 1)
        throw std::invalid_argument("explainConfigs: batchConfigs must be >= 1");

    Attribution out;
    out.file = source;
    out.configA = a;
    out.configB = b;
    out.labelA = configLabel(ConfigRole::Index, a);
    out.labelB = configLabel(ConfigRole::Index, b);
    out.configs = configs;
    out.nodesBeforePruning = pruned.newToOld.empty() ? n : int64_t(pruned.oldToNew.size());
    out.batchConfigs = options.batchConfigs;
    out.members = int(models.size());
    out.crossAttention = models.front().options().useCrossAttn;
    out.gradients = options.gradients;
    if (graph.hasRuntimes()) {
        out.runtimeA = graph.configRuntime[a];
        out.runtimeB = graph.configRuntime[b];
    }

    // The nodes, their layouts under A and B and which configurable nodes differ.
    out.nodes.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
        NodeAttribution& node = out.nodes[size_t(i)];
        node.node = i;
        node.fileNode = pruned.newToOld.empty() ? i : pruned.newToOld[size_t(i)];
        node.opcode = int(graph.nodeOpcode[i]);
    }
    std::vector<int64_t> differing; // configurable indices, ascending
    for (int64_t k = 0; k < nc; ++k) {
        NodeAttribution& node = out.nodes[size_t(graph.nodeConfigIds[k])];
        node.configurable = k;
        for (int s = 0; s < kLayoutConfigFeatures; ++s) {
            node.layoutA[size_t(s)] = int8_t(graph.nodeConfigFeat(a, k, s));
            node.layoutB[size_t(s)] = int8_t(graph.nodeConfigFeat(b, k, s));
            if (node.layoutA[size_t(s)] != node.layoutB[size_t(s)])
                node.differingValues |= 1u << s;
        }
        if (node.layoutDiffers())
            differing.push_back(k);
    }
    out.differingNodes = int64_t(differing.size());

    // The inference chunks of A and B (one pass when they share it).
    const auto [firstA, sizeA] = chunkOf(a, configs, options.batchConfigs);
    const auto [firstB, sizeB] = chunkOf(b, configs, options.batchConfigs);
    std::vector<std::pair<int64_t, int64_t>> chunks { { firstA, sizeA } };
    if (firstB != firstA)
        chunks.push_back({ firstB, sizeB });
    const int64_t d = int64_t(differing.size());
    out.passes.shares = int64_t(chunks.size());
    out.passes.gradient = options.gradients ? 2 : 0;
    out.passes.counterfactual = options.counterfactuals ? variantPasses(2 * d, 2, options.batchConfigs) : 0;
    ProgressScope scope(progress, "explaining",
        uint64_t(models.size()) * uint64_t(out.passes.shares + out.passes.gradient + out.passes.counterfactual));

    std::vector<double> sharesA(size_t(n), 0.0), sharesB(size_t(n), 0.0);
    std::vector<double> gradA(size_t(nc * kLayoutConfigFeatures), 0.0), gradB(gradA.size(), 0.0);
    std::vector<double> effectOnB(size_t(d), 0.0), effectOnA(size_t(d), 0.0);
    for (EnsembleMember& member : models) {
        const GraphTensors tensors = makeGraphTensors(graph, member.normalizer, member.options().opTableSize, source);
        for (const auto& [first, size] : chunks) {
            std::vector<int64_t> rows(static_cast<size_t>(size));
            for (int64_t j = 0; j < size; ++j)
                rows[size_t(j)] = first + j;
            LayoutBatch batch;
            batch.graph = tensors;
            batch.configTokens = makeConfigTokens(graph.nodeConfigFeat, rows, source);
            priceBatch(batch, member.options().simInputs, simulator);
            const BatchDecomposition dec = decomposeBatch(member.layout, batch);
            scope.advanceBy(1);
            const auto shares = dec.shares.contiguous();
            const double* s = shares.data_ptr<double>(); // (N, size)
            for (const auto& [config, score, target, grad] :
                { std::tuple(a, &out.scoreA, &sharesA, &gradA), std::tuple(b, &out.scoreB, &sharesB, &gradB) }) {
                if (config < first || config >= first + size)
                    continue;
                const int64_t row = config - first;
                *score += double(dec.scores[row].item<float>());
                for (int64_t i = 0; i < n; ++i)
                    (*target)[size_t(i)] += s[i * size + row];
                if (options.gradients) {
                    const std::vector<double> g = toDoubles(gradientTimesInput(member.layout, batch, row));
                    std::transform(grad->begin(), grad->end(), g.begin(), grad->begin(), std::plus<double>());
                    scope.advanceBy(1);
                }
            }
        }
        out.bias += member.layout->classifier->bias.item<double>();

        if (options.counterfactuals && d > 0) {
            const auto tokensA = makeConfigTokens(graph.nodeConfigFeat, { a }, source)[0]; // (Nc, 18)
            const auto tokensB = makeConfigTokens(graph.nodeConfigFeat, { b }, source)[0];
            std::vector<torch::Tensor> variants;
            for (const int64_t k : differing)
                variants.push_back(withNodeLayouts(tokensB, tokensA, { k })); // B with A's layout of k
            for (const int64_t k : differing)
                variants.push_back(withNodeLayouts(tokensA, tokensB, { k })); // A with B's layout of k
            const VariantScores v = scoreVariants(member.layout, tensors, torch::stack({ tokensA, tokensB }),
                torch::stack(variants), options.batchConfigs, simulator);
            scope.advanceBy(uint64_t(v.passSizes.size()));
            for (int64_t j = 0; j < d; ++j) {
                effectOnB[size_t(j)] += v.scores[size_t(j)] - v.anchorScores[size_t(v.pass[size_t(j)])][1];
                effectOnA[size_t(j)] += v.scores[size_t(d + j)] - v.anchorScores[size_t(v.pass[size_t(d + j)])][0];
            }
            if (out.counterfactualBatchSizes.empty()) {
                out.counterfactualBatchSizes = v.passSizes;
                out.anchorScoresA.assign(v.passSizes.size(), 0.0);
                out.anchorScoresB.assign(v.passSizes.size(), 0.0);
            }
            for (size_t p = 0; p < v.passSizes.size(); ++p) {
                out.anchorScoresA[p] += v.anchorScores[p][0];
                out.anchorScoresB[p] += v.anchorScores[p][1];
            }
        }
    }

    // Means over the members.
    const double members = double(models.size());
    out.scoreA /= members;
    out.scoreB /= members;
    out.bias /= members;
    for (double& v : out.anchorScoresA)
        v /= members;
    for (double& v : out.anchorScoresB)
        v /= members;
    for (int64_t i = 0; i < n; ++i) {
        out.nodes[size_t(i)].shareA = sharesA[size_t(i)] / members;
        out.nodes[size_t(i)].shareB = sharesB[size_t(i)] / members;
    }
    for (int64_t k = 0; k < nc; ++k) {
        NodeAttribution& node = out.nodes[size_t(graph.nodeConfigIds[k])];
        for (int s = 0; s < kLayoutConfigFeatures; ++s) {
            node.gradInputA[size_t(s)] = float(gradA[size_t(k * kLayoutConfigFeatures + s)] / members);
            node.gradInputB[size_t(s)] = float(gradB[size_t(k * kLayoutConfigFeatures + s)] / members);
        }
    }
    if (options.counterfactuals)
        for (int64_t j = 0; j < d; ++j) {
            NodeAttribution& node = out.nodes[size_t(graph.nodeConfigIds[differing[size_t(j)]])];
            node.effectOnB = effectOnB[size_t(j)] / members;
            node.effectOnA = effectOnA[size_t(j)] / members;
        }
    return out;
}

EditedScore scoreEditedLayout(std::vector<EnsembleMember>& models, const PrunedGraph& pruned, int64_t base,
    int64_t configurable, const std::array<float, 18>& values, int64_t batchConfigs, const std::string& source,
    const GraphSimulator* simulator)
{
    checkLayoutMembers(models);
    const LayoutGraph& graph = pruned.graph;
    const int64_t configs = graph.configCount();
    const int64_t nc = graph.configurableCount();
    checkConfigIndex(base, configs, source);
    if (configurable < 0 || configurable >= nc)
        throw InputError(source, "node_config_ids",
            "configurable node " + std::to_string(configurable) + " out of range (the graph has " + std::to_string(nc)
                + ")");
    for (size_t s = 0; s < values.size(); ++s)
        if (!(values[s] >= -1 && values[s] <= 5) || values[s] != std::floor(values[s]))
            throw InputError(source,
                "configurable node " + std::to_string(configurable) + ", layout value " + std::to_string(s),
                "must be an integer from -1 (compiler default) to 5");
    const auto [first, size] = chunkOf(base, configs, std::max<int64_t>(1, batchConfigs));
    const int64_t rowSize = nc * kLayoutConfigFeatures;
    NdArray<float> feat({ size + 1, nc, kLayoutConfigFeatures });
    std::copy_n(graph.nodeConfigFeat.row(first), size * rowSize, feat.data());
    std::copy_n(graph.nodeConfigFeat.row(base), rowSize, feat.row(size));
    std::copy(values.begin(), values.end(), feat.row(size) + configurable * kLayoutConfigFeatures);
    std::vector<int64_t> rows(static_cast<size_t>(size + 1));
    std::iota(rows.begin(), rows.end(), int64_t(0));
    EditedScore out;
    for (EnsembleMember& member : models) {
        LayoutBatch batch;
        batch.graph = makeGraphTensors(graph, member.normalizer, member.options().opTableSize, source);
        batch.configTokens = makeConfigTokens(feat, rows, source);
        priceBatch(batch, member.options().simInputs, simulator);
        const BatchDecomposition dec = decomposeBatch(member.layout, batch);
        out.base += double(dec.scores[base - first].item<float>());
        out.edited += double(dec.scores[size].item<float>());
    }
    out.base /= double(models.size());
    out.edited /= double(models.size());
    return out;
}

Attribution explainFile(std::vector<EnsembleMember>& models, const std::string& path, const ConfigSelector& selectorA,
    const ConfigSelector& selectorB, const ExplainFileOptions& options, std::string* moduleNote, ProgressSink* progress)
{
    checkLayoutMembers(models);
    if (detectInputKind(path) != InputKind::Npz) {
        // HLO text, HloModuleProto or a tuning record: the first layout module with configurations.
        std::string why = "holds no module";
        for (const std::shared_ptr<GraphDocument>& doc : openGraphDocuments(path)) {
            if (doc->kind != GraphKind::Layout)
                continue;
            if (doc->configCount() < 2) {
                why = "has " + std::to_string(doc->configCount())
                    + " configuration(s): explain compares two (a tuning record holds many; convert a module "
                      "with tgraph simulate FILE --configs N -o G.npz first)";
                continue;
            }
            if (!doc->prunedGraph)
                throw InputError(path, "", doc->pruneError);
            return explainLayoutGraph(models, doc->layout, *doc->prunedGraph, doc->path, selectorA, selectorB, options,
                doc->module, moduleNote, progress);
        }
        throw InputError(path, "", why);
    }
    NpzReader npz(path);
    if (detectGraphKind(npz) != GraphKind::Layout)
        throw InputError(path, "", "is a tile graph; explain compares layout configurations of layout graphs");
    GraphLoadOptions load;
    load.minConfigs = 2;
    load.repadLayout = options.repadLayout;
    const LayoutGraph fileGraph = readLayoutGraph(npz, load);
    if (fileGraph.configurableCount() == 0)
        throw InputError(path, "node_config_ids", "the graph has no configurable nodes: there is nothing to explain");
    const PrunedGraph pruned = pruneToConfigurable(fileGraph, path); // as training and predict do
    return explainLayoutGraph(
        models, fileGraph, pruned, path, selectorA, selectorB, options, nullptr, moduleNote, progress);
}

Attribution explainLayoutGraph(std::vector<EnsembleMember>& models, const LayoutGraph& fileGraph,
    const PrunedGraph& pruned, const std::string& path, const ConfigSelector& selectorA,
    const ConfigSelector& selectorB, const ExplainFileOptions& options, std::shared_ptr<const HloModule> module,
    std::string* moduleNote, ProgressSink* progress)
{
    checkLayoutMembers(models);
    if (fileGraph.configCount() < 2)
        throw InputError(path, "node_config_feat", "explain needs at least two configurations");

    // Indices and the compiler default first: a bad request fails before any scoring.
    for (const ConfigSelector& s : { selectorA, selectorB })
        if (s.role == ConfigRole::Index)
            checkConfigIndex(s.index, fileGraph.configCount(), path);
    int64_t compilerDefault = -1;
    if (selectorA.role == ConfigRole::CompilerDefault || selectorB.role == ConfigRole::CompilerDefault) {
        compilerDefault = compilerDefaultConfig(fileGraph);
        if (compilerDefault < 0)
            throw InputError(path, "node_config_feat",
                "no configuration is the compiler default (none has all layout values -1 and no tuning run is marked "
                "is_default; TpuGraphs .npz files do not mark it): compare with 'slowest', 'fastest' or a config index "
                "instead");
    }

    // Predicted ranks: needed for fastest / slowest, and shown when asked for.
    const bool needRanking = options.rankAll || selectorA.role == ConfigRole::PredictedFastest
        || selectorA.role == ConfigRole::PredictedSlowest || selectorB.role == ConfigRole::PredictedFastest
        || selectorB.role == ConfigRole::PredictedSlowest;
    // Models with simulator inputs (docs/model.md §4.9): every config explain scores is priced on the
    // graph's module, found as predict finds it; without one the inputs are the unpriced ones.
    std::shared_ptr<const GraphSimulator> simulator;
    std::string simWhy;
    if (takesSimInputs(models)) {
        std::shared_ptr<const HloModule> pricing = module;
        if (!options.moduleFile.empty())
            pricing = linkModuleFile(fileGraph, path, options.moduleFile).module;
        simulator = findGraphSimulator(pruned, path, pricing, &fileGraph, &simWhy);
        if (!simulator->simulator && moduleNote)
            *moduleNote += (moduleNote->empty() ? "" : "; ") + std::string("the model's simulator inputs are unpriced: ") + simWhy;
    }
    GraphScores ranking;
    int64_t rankingPasses = 0;
    if (needRanking) {
        InferenceOptions inference;
        inference.batchConfigs = options.explain.batchConfigs;
        const int64_t passes = inferencePasses(models, fileGraph.configCount(), inference);
        rankingPasses = passes / int64_t(models.size());
        ProgressScope scope(progress, "ranking configs", uint64_t(passes));
        if (simulator) {
            LayoutGraph priced = pruned.graph;
            priced.simInputs = priceConfigRows(simulator.get(), pruned.graph.nodeConfigFeat);
            ranking = scoreLayoutGraph(models, priced, path, inference, &scope);
        } else {
            ranking = scoreLayoutGraph(models, pruned.graph, path, inference, &scope);
        }
    }
    auto resolve = [&](const ConfigSelector& s) -> int64_t {
        switch (s.role) {
        case ConfigRole::Index:
            return s.index;
        case ConfigRole::PredictedFastest:
            return ranking.ranking.front();
        case ConfigRole::PredictedSlowest:
            return ranking.ranking.back();
        case ConfigRole::CompilerDefault:
            return compilerDefault;
        }
        return -1;
    };
    const int64_t a = resolve(selectorA);
    const int64_t b = resolve(selectorB);
    if (a == b)
        throw InputError(path, "",
            configLabel(selectorA.role, a) + " and " + configLabel(selectorB.role, b)
                + " are the same configuration: nothing to compare (choose another with --config or --vs)");
    Attribution out = explainConfigs(models, pruned, a, b, path, options.explain, progress, simulator.get());
    out.labelA = configLabel(selectorA.role, a);
    out.labelB = configLabel(selectorB.role, b);
    out.nodesBeforePruning = fileGraph.nodeCount();
    out.passes.ranking = rankingPasses;
    if (needRanking) {
        out.configScores.assign(ranking.scores.begin(), ranking.scores.end());
        for (size_t r = 0; r < ranking.ranking.size(); ++r) {
            if (ranking.ranking[r] == a)
                out.rankA = int64_t(r + 1);
            if (ranking.ranking[r] == b)
                out.rankB = int64_t(r + 1);
        }
    }

    // The simulator's side when the module is known.
    std::string note;
    std::optional<LinkedModule> link;
    if (!options.moduleFile.empty())
        link = linkModuleFile(fileGraph, path, options.moduleFile);
    else if (module)
        link = linkModule(fileGraph, module, path, &note);
    else if (options.regenerateModule)
        link = regenerateSynthModule(fileGraph, &note);
    else
        note = "no module given (--module FILE.hlo)";
    if (link) {
        link->params = simulatorParamsOf(fileGraph, options.simulatorParams, path);
        addSimulatorBreakdown(out, fileGraph, pruned, *link);
        note.clear();
    }
    if (moduleNote)
        *moduleNote = note;
    return out;
}

} // namespace tgraph::model
