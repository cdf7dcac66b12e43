// SPDX-License-Identifier: Apache-2.0
#include "model/infer/inference.h"
#include "model/infer/siminputs.h"

#include "model/nn/ensemblefile.h"
#include "model/nn/weights.h"

#include "core/graph/graphio.h"
#include "core/graph/prune.h"
#include "core/io/filebytes.h"
#include "core/io/npz.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/progress.h"

#include <algorithm>
#include <filesystem>
#include <functional>

namespace tgraph::model {

namespace {

namespace fs = std::filesystem;

// Adds `chunk` (rows = the chunk's configs) into `total` (rows = file order) at rows order[first + j].
void addChunkMaps(
    const AttentionMaps& chunk, const std::vector<int64_t>& order, size_t first, int64_t configs, AttentionMaps* total)
{
    if (total->layers.empty()) {
        for (const LayerAttention& layer : chunk.layers) {
            LayerAttention full;
            full.layer = layer.layer;
            full.configs = configs;
            full.channels = layer.channels;
            full.gate.assign(size_t(configs * layer.channels), 0.0f);
            if (!layer.cross.empty())
                full.cross.assign(size_t(configs * layer.channels), 0.0f);
            if (layer.hasNodeMaps() && configs * layer.nodes <= kMaxNodeMapValues) {
                full.nodes = layer.nodes;
                full.nodeGate.assign(size_t(configs * layer.nodes), 0.0f);
                if (!layer.nodeCross.empty())
                    full.nodeCross.assign(size_t(configs * layer.nodes), 0.0f);
            }
            total->layers.push_back(std::move(full));
        }
    }
    // Adds the chunk's row j (of `width` values) to the row of its config in file order.
    const auto addRows = [&](const std::vector<float>& from, std::vector<float>& to, int64_t configs, size_t width) {
        if (from.empty() || to.empty())
            return;
        for (int64_t j = 0; j < configs; ++j) {
            const float* src = from.data() + size_t(j) * width;
            float* dst = to.data() + size_t(order[first + size_t(j)]) * width;
            for (size_t f = 0; f < width; ++f)
                dst[f] += src[f];
        }
    };
    for (size_t l = 0; l < chunk.layers.size(); ++l) {
        const LayerAttention& from = chunk.layers[l];
        LayerAttention& to = total->layers[l];
        addRows(from.gate, to.gate, from.configs, size_t(from.channels));
        addRows(from.cross, to.cross, from.configs, size_t(from.channels));
        if (to.hasNodeMaps()) {
            addRows(from.nodeGate, to.nodeGate, from.configs, size_t(to.nodes));
            addRows(from.nodeCross, to.nodeCross, from.configs, size_t(to.nodes));
        }
    }
}

void scaleMaps(AttentionMaps& maps, float factor)
{
    for (LayerAttention& layer : maps.layers) {
        for (float& v : layer.gate)
            v *= factor;
        for (float& v : layer.cross)
            v *= factor;
        for (float& v : layer.nodeGate)
            v *= factor;
        for (float& v : layer.nodeCross)
            v *= factor;
    }
}

// Mean over members, then the ranking.
void finish(GraphScores& out, const std::vector<std::vector<double>>& perMember)
{
    const size_t configs = perMember.front().size();
    out.scores.assign(configs, 0.0f);
    for (size_t c = 0; c < configs; ++c) {
        double sum = 0;
        for (const auto& member : perMember)
            sum += member[c];
        out.scores[c] = float(sum / double(perMember.size()));
    }
    out.ranking = rankingOf(out.scores);
}

std::vector<double> toVector(const torch::Tensor& scores)
{
    const auto s = scores.to(torch::kFloat64).contiguous();
    return std::vector<double>(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
}

void checkRankable(int64_t configs, const std::string& source)
{
    if (configs < 2)
        throw InputError(source, "config_runtime",
            configs == 0 ? "the graph has no configurations to rank"
                         : "the graph has a single configuration; at least 2 are needed to rank configurations");
}

void checkMembers(const std::vector<EnsembleMember>& models, GraphKind kind, const std::string& source)
{
    if (models.empty())
        throw std::invalid_argument("inference: no models");
    if (models.front().kind != kind)
        throw InputError(source, "",
            std::string("is a ") + graphKindName(kind) + " graph but " + models.front().path + " holds a "
                + graphKindName(models.front().kind) + "-model");
}

} // namespace

std::string EnsembleMember::modelName() const { return zoo ? modelFamilyName(zoo->options().family) : "TGraph"; }

const ModelOptions& EnsembleMember::options() const
{
    if (zoo)
        return zoo->options();
    return kind == GraphKind::Layout ? layout->options() : tile->options();
}

std::vector<EnsembleMember> loadEnsemble(const std::vector<std::string>& paths)
{
    if (paths.empty())
        throw InputError("", "--weights", "no weights file given");
    std::vector<EnsembleMember> members;
    const auto add = [&](const std::string& path, const std::string& prefix, const std::string& name) {
        EnsembleMember m;
        m.path = name;
        AnyWeights w = loadAnyWeightsNpz(path, prefix);
        m.kind = w.kind;
        m.layout = w.layout;
        m.tile = w.tile;
        m.zoo = w.zoo;
        m.normalizer = w.normalizer;
        if (!members.empty() && members.front().kind != m.kind)
            throw InputError(path, prefix.empty() ? std::string() : prefix + "*",
                std::string(prefix.empty() ? "" : "member " + prefix.substr(7, prefix.size() - 8) + " ") + "holds a "
                    + graphKindName(m.kind) + "-model but " + members.front().path + " a "
                    + graphKindName(members.front().kind) + "-model; an ensemble has members of one kind");
        members.push_back(std::move(m));
    };
    for (const std::string& path : paths) {
        NpzReader npz(path);
        if (!isEnsembleFile(npz)) {
            add(path, {}, path);
            continue;
        }
        // An ensemble file (docs/formats.md §12): each of its members counts as one.
        const EnsembleFileIndex index = readEnsembleIndex(npz);
        for (int64_t k = 0; k < index.members; ++k)
            add(path, ensembleMemberPrefix(k), path + " (member " + std::to_string(k) + ")");
    }
    return members;
}

std::vector<std::string> expandWeightsArguments(const std::vector<std::string>& arguments)
{
    std::vector<std::string> paths;
    for (const std::string& argument : arguments) {
        if (fs::path(argument).extension() != ".json") {
            paths.push_back(argument);
            continue;
        }
        const FileBytes bytes = FileBytes::read(argument);
        const Json manifest = parseJson(bytes.view(), argument);
        try {
            const Json& list = jsonArray(manifest, "ensemble");
            if (list.empty())
                throw InputError(argument, "ensemble", "the list of checkpoints is empty");
            for (const Json& item : list)
                paths.push_back(
                    (fs::path(argument).parent_path() / jsonStringValue(item, "an item of \"ensemble\"")).string());
        } catch (const InputError&) {
            throw;
        } catch (const std::runtime_error& e) {
            throw InputError(
                argument, "", std::string("not an ensemble manifest of tgraph train --folds: ") + e.what());
        }
    }
    return paths;
}

int64_t inferencePasses(const std::vector<EnsembleMember>& models, int64_t configs, const InferenceOptions& options)
{
    if (models.empty())
        return 0;
    if (models.front().kind == GraphKind::Tile)
        return int64_t(models.size());
    const int64_t chunks = int64_t(arraySplitSizes(configs, std::max<int64_t>(1, options.batchConfigs)).size());
    return chunks * std::max(1, options.tta) * int64_t(models.size());
}

namespace {

using LayoutScorer = std::function<torch::Tensor(const LayoutBatch&, AttentionMaps*)>;

torch::Tensor scoreChunks(const LayoutScorer& model, bool takesSimInputs, const GraphTensors& graph,
    const NdArray<float>& nodeConfigFeat, const NdArray<float>& simInputs, const std::vector<int64_t>& order, int64_t batchConfigs, const std::string& source, AttentionMaps* attention,
    ProgressScope* progress)
{
    const int64_t configs = int64_t(order.size());
    auto scores = torch::empty({ configs }, torch::kFloat32);
    if (attention)
        attention->layers.clear();
    size_t first = 0;
    for (const int64_t size : arraySplitSizes(configs, batchConfigs)) {
        const std::vector<int64_t> rows(order.begin() + int64_t(first), order.begin() + int64_t(first) + size);
        LayoutBatch batch;
        batch.graph = graph;
        batch.configTokens = makeConfigTokens(nodeConfigFeat, rows, source);
        if (batch.configTokens.size(1) != graph.configNodeIds.size(0))
            throw InputError(source, "node_config_feat",
                "has " + std::to_string(batch.configTokens.size(1))
                    + " configurable nodes per config but node_config_ids lists "
                    + std::to_string(graph.configNodeIds.size(0)));
        attachSimInputRows(batch, takesSimInputs, simInputs, rows, source);
        AttentionMaps chunkMaps;
        const auto chunkScores = model(batch, attention ? &chunkMaps : nullptr).to(torch::kFloat32);
        const auto chunk = chunkScores.contiguous();
        const float* in = chunk.data_ptr<float>();
        float* out = scores.data_ptr<float>();
        for (size_t j = 0; j < rows.size(); ++j)
            out[rows[j]] = in[j]; // back at the config's row
        if (attention)
            addChunkMaps(chunkMaps, order, first, configs, attention);
        first += size_t(size);
        if (progress)
            progress->advanceBy(1);
    }
    return scores;
}

} // namespace

torch::Tensor scoreLayoutConfigs(TGraphModel& model, const GraphTensors& graph, const NdArray<float>& nodeConfigFeat,
    const NdArray<float>& simInputs, const std::vector<int64_t>& order, int64_t batchConfigs, const std::string& source,
    AttentionMaps* attention, ProgressScope* progress)
{
    return scoreChunks([&](const LayoutBatch& b, AttentionMaps* maps) { return model->forward(b, maps); },
        model->options().simInputs, graph, nodeConfigFeat, simInputs, order, batchConfigs, source, attention, progress);
}

torch::Tensor scoreLayoutConfigs(EnsembleMember& member, const GraphTensors& graph,
    const NdArray<float>& nodeConfigFeat, const NdArray<float>& simInputs, const std::vector<int64_t>& order,
    int64_t batchConfigs, const std::string& source, AttentionMaps* attention, ProgressScope* progress)
{
    if (!member.zoo)
        return scoreLayoutConfigs(
            member.layout, graph, nodeConfigFeat, simInputs, order, batchConfigs, source, attention, progress);
    return scoreChunks([&](const LayoutBatch& b, AttentionMaps*) { return member.zoo->score(b); }, false, graph,
        nodeConfigFeat, simInputs, order, batchConfigs, source, attention, progress);
}

torch::Tensor scoreTileBatch(EnsembleMember& member, const TileBatch& batch, AttentionMaps* attention)
{
    if (member.zoo)
        return member.zoo->score(batch);
    return member.tile->forward(batch, attention);
}

GraphScores scoreLayoutGraph(std::vector<EnsembleMember>& models, const LayoutGraph& graph, const std::string& source,
    const InferenceOptions& options, ProgressScope* progress)
{
    checkMembers(models, GraphKind::Layout, source);
    const int64_t configs = graph.configCount();
    checkRankable(configs, source);
    if (graph.configurableCount() == 0)
        throw InputError(source, "node_config_ids", "the graph has no configurable nodes: there is nothing to rank");
    if (options.batchConfigs < 1)
        throw std::invalid_argument("scoreLayoutGraph: batchConfigs must be >= 1");

    GraphScores out;
    out.file = source;
    out.name = fs::path(source).stem().string();
    out.kind = GraphKind::Layout;
    out.nodes = graph.nodeCount();
    out.nodesBeforePruning = graph.nodeCount();
    out.runtimes.assign(graph.configRuntime.data(), graph.configRuntime.data() + configs);

    const std::vector<std::vector<int64_t>> orders = options.tta > 0
        ? ttaPermutations(configs, options.tta, options.ttaSeed)
        : std::vector<std::vector<int64_t>> { allRows(configs) };
    c10::InferenceMode inferenceMode;
    std::vector<std::vector<double>> perMember;
    for (EnsembleMember& member : models) {
        const GraphTensors tensors = makeGraphTensors(graph, member.normalizer, member.options().opTableSize, source);
        torch::Tensor sum;
        AttentionMaps maps;
        for (const auto& order : orders) {
            AttentionMaps passMaps;
            const auto s = scoreLayoutConfigs(member, tensors, graph.nodeConfigFeat, graph.simInputs, order, options.batchConfigs,
                source, options.attention ? &passMaps : nullptr, progress);
            sum = sum.defined() ? sum + s.to(torch::kFloat64) : s.to(torch::kFloat64);
            if (options.attention) {
                if (maps.layers.empty())
                    maps = std::move(passMaps);
                else
                    for (size_t l = 0; l < maps.layers.size(); ++l) {
                        const auto add = [](std::vector<float>& to, const std::vector<float>& from) {
                            std::transform(to.begin(), to.end(), from.begin(), to.begin(), std::plus<float>());
                        };
                        add(maps.layers[l].gate, passMaps.layers[l].gate);
                        add(maps.layers[l].cross, passMaps.layers[l].cross);
                        add(maps.layers[l].nodeGate, passMaps.layers[l].nodeGate);
                        add(maps.layers[l].nodeCross, passMaps.layers[l].nodeCross);
                    }
            }
        }
        perMember.push_back(toVector(sum / double(orders.size())));
        if (options.attention) {
            scaleMaps(maps, 1.0f / float(orders.size()));
            out.attention.push_back(std::move(maps));
        }
    }
    finish(out, perMember);
    return out;
}

GraphScores scoreTileGraph(std::vector<EnsembleMember>& models, const TileGraph& graph, const std::string& source,
    const InferenceOptions& options, ProgressScope* progress)
{
    checkMembers(models, GraphKind::Tile, source);
    const int64_t configs = graph.configCount();
    checkRankable(configs, source);

    GraphScores out;
    out.file = source;
    out.name = fs::path(source).stem().string();
    out.kind = GraphKind::Tile;
    out.nodes = graph.nodeCount();
    out.nodesBeforePruning = graph.nodeCount();
    out.runtimes.assign(graph.configRuntime.data(), graph.configRuntime.data() + configs);
    out.runtimeNormalizers.assign(graph.configRuntimeNormalizers.data(),
        graph.configRuntimeNormalizers.data() + graph.configRuntimeNormalizers.size());

    c10::InferenceMode inferenceMode;
    std::vector<std::vector<double>> perMember;
    for (EnsembleMember& member : models) {
        const TileBatch batch
            = makeTileBatch(graph, member.normalizer, allRows(configs), member.options().opTableSize, source);
        AttentionMaps maps;
        perMember.push_back(toVector(scoreTileBatch(member, batch, options.attention ? &maps : nullptr)));
        if (options.attention)
            out.attention.push_back(std::move(maps));
        if (progress)
            progress->advanceBy(1);
    }
    finish(out, perMember);
    return out;
}

bool takesSimInputs(const std::vector<EnsembleMember>& models)
{
    for (const EnsembleMember& m : models)
        if (m.kind == GraphKind::Layout && m.options().simInputs)
            return true;
    return false;
}

GraphScores predictFile(std::vector<EnsembleMember>& models, const std::string& path, const PredictFileOptions& options,
    ProgressScope* progress)
{
    if (models.empty())
        throw std::invalid_argument("predictFile: no models");
    NpzReader npz(path);
    const GraphKind kind = detectGraphKind(npz);
    checkMembers(models, kind, path);
    GraphLoadOptions load;
    load.minConfigs = 2;
    load.repadLayout = options.repadLayout;
    if (kind == GraphKind::Tile)
        return scoreTileGraph(models, readTileGraph(npz, load), path, options.inference, progress);

    PrunedGraph pruned;
    int64_t nodesBefore = 0;
    std::string simNote;
    {
        LayoutGraph graph = readLayoutGraph(npz, load);
        checkRankable(graph.configCount(), path);
        if (graph.configurableCount() == 0)
            throw InputError(path, "node_config_ids", "the graph has no configurable nodes: there is nothing to rank");
        nodesBefore = graph.nodeCount();
        simNote = attachSimulatorInputsFor(takesSimInputs(models), graph, path, nullptr);
        pruned = pruneToConfigurable(graph, path); // as training does; a pruned file stays as it is
    }
    GraphScores scores = scoreLayoutGraph(models, pruned.graph, path, options.inference, progress);
    scores.nodesBeforePruning = nodesBefore;
    scores.simInputs = simNote;
    return scores;
}

int64_t configCountOfFile(const std::string& path, GraphKind* kind)
{
    NpzReader npz(path);
    const GraphKind k = detectGraphKind(npz);
    if (kind)
        *kind = k;
    if (!npz.contains("config_runtime"))
        return 0;
    const auto shape = npz.header("config_runtime").shape;
    return shape.empty() ? 1 : shapeElementCount(shape);
}

std::vector<std::string> listGraphFiles(const std::vector<std::string>& entries)
{
    std::vector<std::string> files;
    for (const std::string& entry : entries) {
        std::error_code ec;
        const auto status = fs::status(entry, ec);
        if (ec || !fs::exists(status))
            throw InputError(entry, "", "no such file or directory");
        if (!fs::is_directory(status)) {
            files.push_back(entry);
            continue;
        }
        std::vector<std::string> found;
        std::vector<std::string> subdirs;
        for (const auto& item : fs::directory_iterator(entry, ec)) {
            if (item.is_directory())
                subdirs.push_back(item.path().filename().string());
            else if (item.path().extension() == ".npz")
                found.push_back(item.path().string());
        }
        if (ec)
            throw InputError(entry, "", "cannot list the directory: " + ec.message());
        if (found.empty()) {
            std::string hint;
            if (!subdirs.empty()) {
                std::sort(subdirs.begin(), subdirs.end());
                hint = " (it has the directories";
                for (const std::string& d : subdirs)
                    hint += " " + d + "/";
                hint += "; point --data at one of them)";
            }
            throw InputError(entry, "", "the directory holds no .npz files" + hint);
        }
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

} // namespace tgraph::model
