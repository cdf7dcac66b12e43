// SPDX-License-Identifier: Apache-2.0
#include "core/train/trainingset.h"

#include "core/train/graphcache.h"

#include "core/util/error.h"
#include "core/graph/graphio.h"
#include "core/io/npz.h"
#include "core/util/progress.h"
#include "core/graph/prune.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>

namespace tgraph {

namespace fs = std::filesystem;

const char* dataSplitName(DataSplit split) { return split == DataSplit::Train ? "train" : "valid"; }

int64_t TrainingGraph::configCount() const
{
    return kind == GraphKind::Layout ? layout.configCount() : tile.configCount();
}

int64_t TrainingGraph::nodeCount() const
{
    if (nodes >= 0)
        return nodes;
    return kind == GraphKind::Layout ? layout.nodeCount() : tile.nodeCount();
}

std::vector<size_t> TrainingData::indicesOf(DataSplit split) const
{
    std::vector<size_t> out;
    for (size_t i = 0; i < graphs.size(); ++i)
        if (graphs[i].split == split)
            out.push_back(i);
    return out;
}

std::vector<size_t> TrainingData::allIndices() const
{
    std::vector<size_t> out(graphs.size());
    std::iota(out.begin(), out.end(), size_t(0));
    return out;
}

namespace {

std::vector<std::string> npzFilesIn(const fs::path& dir)
{
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".npz" && it->is_regular_file(ec))
            files.push_back(it->path().string());
    }
    if (ec)
        throw InputError(dir.string(), "", "cannot list the directory: " + ec.message());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

std::vector<DataFile> listDataFiles(const std::vector<std::string>& entries)
{
    std::vector<DataFile> out;
    std::map<std::string, std::string> seen; // canonical path -> entry that listed it
    auto add = [&](const std::string& path, DataSplit split, bool explicitFile, const std::string& entry) {
        std::error_code ec;
        const std::string key = fs::weakly_canonical(path, ec).string();
        const auto [it, inserted] = seen.emplace(ec ? path : key, entry);
        if (!inserted)
            throw InputError(path, "", "listed twice (by '" + it->second + "' and by '" + entry + "')");
        out.push_back({ path, split, explicitFile });
    };
    for (const std::string& entry : entries) {
        std::error_code ec;
        const fs::file_status status = fs::status(entry, ec);
        if (ec || !fs::exists(status))
            throw InputError(entry, "", "no such file or directory");
        if (fs::is_directory(status)) {
            const fs::path dir(entry);
            if (fs::is_directory(dir / "train")) {
                const auto train = npzFilesIn(dir / "train");
                if (train.empty())
                    throw InputError((dir / "train").string(), "", "no .npz files in the training directory");
                for (const auto& f : train)
                    add(f, DataSplit::Train, false, entry);
                if (fs::is_directory(dir / "valid"))
                    for (const auto& f : npzFilesIn(dir / "valid"))
                        add(f, DataSplit::Valid, false, entry);
            } else {
                const auto files = npzFilesIn(dir);
                if (files.empty())
                    throw InputError(entry, "",
                        "no .npz files (expected train/ and valid/ subdirectories with TpuGraphs .npz files, or .npz "
                        "files)");
                for (const auto& f : files)
                    add(f, DataSplit::Train, false, entry);
            }
        } else {
            add(entry, DataSplit::Train, true, entry);
        }
    }
    if (out.empty())
        throw InputError("", "--data", "no training data given");
    return out;
}

namespace {

// Why a readable graph cannot be ranked, or "" when it can.
std::string unrankable(int64_t configs, bool measured)
{
    if (!measured)
        return "no measured runtimes (config_runtime is all zero, as in the published test split)";
    if (configs < 2)
        return std::to_string(configs) + " configuration" + (configs == 1 ? "" : "s")
            + "; ranking needs at least 2 (docs/model.md §2.5: such graphs are dropped)";
    return {};
}

} // namespace

PreparedGraph prepareTrainingGraph(const DataFile& f, const TrainingDataOptions& options)
{
    NpzReader npz(f.path);
    PreparedGraph out;
    TrainingGraph& g = out.graph;
    g.path = f.path;
    g.name = fs::path(f.path).filename().string();
    g.split = f.split;
    g.kind = detectGraphKind(npz);
    GraphLoadOptions load;
    load.minConfigs = 0; // the loading-time filter below decides (skip or error)
    load.repadLayout = options.repadLayout;
    auto cannotRank = [&out](const std::string& place, const std::string& why) {
        out.place = place;
        out.why = why;
        return std::move(out);
    };
    if (g.kind == GraphKind::Layout) {
        LayoutGraph graph = readLayoutGraph(npz, load);
        if (const std::string why = unrankable(graph.configCount(), graph.hasRuntimes()); !why.empty())
            return cannotRank("config_runtime", why);
        g.nodesBeforePruning = graph.nodeCount();
        // The configurations are the largest array by far (nlp: 4,000 x 3,200 x 18 floats, 0.9 GB):
        // never copied, compressed first (a sixth of the size), de-duplicated in compressed form.
        NdArray<float> configFeat = std::move(graph.nodeConfigFeat);
        graph.nodeConfigFeat = NdArray<float>();
        PrunedGraph pruned = pruneToConfigurable(graph, f.path); // configurations unchanged by pruning
        graph = LayoutGraph();
        g.layout = std::move(pruned.graph);
        g.configs = compressConfigs(configFeat, f.path);
        configFeat = NdArray<float>(); // held compressed from here on
        if (f.split == DataSplit::Train && options.dedup != DedupPolicy::None) {
            const DedupResult d = dedupCompressedConfigs(g.configs, g.layout.configRuntime, options.dedup);
            if (d.removed > 0) {
                g.configs = keepConfigRows(g.configs, d);
                g.layout.configRuntime = NdArray<int64_t>({ int64_t(d.keptRuntime.size()) });
                std::copy(d.keptRuntime.begin(), d.keptRuntime.end(), g.layout.configRuntime.data());
            }
            g.duplicatesRemoved = d.removed;
            if (g.layout.configCount() < 2)
                return cannotRank("node_config_feat",
                    "only " + std::to_string(g.layout.configCount())
                        + " distinct configuration after de-duplication; ranking needs at least 2");
        }
    } else {
        g.tile = readTileGraph(npz, load);
        if (const std::string why = unrankable(g.tile.configCount(), g.tile.hasRuntimes()); !why.empty())
            return cannotRank("config_runtime", why);
        g.nodesBeforePruning = g.tile.nodeCount();
    }
    g.nodes = g.nodeCount();
    return out;
}

namespace {

// Drops what acquire() reads again: the graph keeps its runtimes, counts and node statistics.
void makeLazy(TrainingGraph& g)
{
    g.nodeStats = Normalizer();
    g.nodeStats.add(g.layout.nodeFeat);
    NdArray<int64_t> runtimes = std::move(g.layout.configRuntime);
    std::map<std::string, ArrayStorage> storage = std::move(g.layout.storage);
    g.layout = LayoutGraph();
    g.layout.configRuntime = std::move(runtimes);
    g.layout.storage = std::move(storage);
    g.configs = NdArray<int32_t>();
    g.resident = false;
}

} // namespace

TrainingData loadTrainingData(const std::vector<DataFile>& files, const TrainingDataOptions& options)
{
    TrainingData data;
    ProgressScope progress(options.progress, "loading training data", files.size());
    std::string firstFile;
    for (const DataFile& f : files) {
        GraphKind kind;
        {
            NpzReader npz(f.path);
            kind = detectGraphKind(npz);
        }
        if (options.kind && kind != *options.kind)
            throw InputError(f.path, "",
                std::string("is a ") + graphKindName(kind) + " graph, but a " + graphKindName(*options.kind)
                    + " model was asked for (--kind " + graphKindName(*options.kind) + ")");
        if (firstFile.empty()) {
            data.kind = kind;
            firstFile = f.path;
        } else if (kind != data.kind) {
            throw InputError(f.path, "",
                std::string("is a ") + graphKindName(kind) + " graph, but " + firstFile + " is a "
                    + graphKindName(data.kind) + " graph: train one collection at a time");
        }
        PreparedGraph prepared = prepareTrainingGraph(f, options);
        progress.advanceBy(1);
        if (!prepared.why.empty()) {
            if (f.explicitFile)
                throw InputError(f.path, prepared.place, prepared.why);
            data.skipped.push_back(f.path + ": skipped: " + prepared.why);
            continue;
        }
        if (options.residentGraphs > 0 && kind == GraphKind::Layout)
            makeLazy(prepared.graph);
        data.graphs.push_back(std::move(prepared.graph));
    }
    if (options.residentGraphs > 0 && data.kind == GraphKind::Layout) {
        TrainingDataOptions again = options;
        again.progress = nullptr;
        data.cache = std::make_shared<GraphCache>(size_t(options.residentGraphs), again);
    }
    if (data.indicesOf(DataSplit::Train).empty()) {
        std::string why;
        for (const std::string& s : data.skipped)
            why += (why.empty() ? "" : "; ") + s;
        throw InputError(files.empty() ? std::string() : files.front().path, "",
            "no usable training graph" + (why.empty() ? std::string() : " (" + why + ")"));
    }
    return data;
}

std::shared_ptr<const TrainingGraph> TrainingData::acquire(size_t i) const
{
    const TrainingGraph& g = graphs.at(i);
    if (g.resident)
        return std::shared_ptr<const TrainingGraph>(std::shared_ptr<const TrainingGraph>(), &g); // not owned
    if (!cache)
        throw std::logic_error("TrainingData::acquire: a lazy graph without a cache");
    return cache->acquire(g);
}

Normalizer fitNormalizer(const TrainingData& data, const std::vector<size_t>& graphs)
{
    Normalizer n;
    for (size_t i : graphs) {
        const TrainingGraph& g = data.graphs.at(i);
        if (g.resident)
            n.add(g.nodeFeat());
        else
            n.merge(g.nodeStats);
    }
    n.finish();
    return n;
}

std::vector<size_t> sortedByName(const TrainingData& data, std::vector<size_t> graphs)
{
    std::stable_sort(graphs.begin(), graphs.end(), [&](size_t a, size_t b) {
        const TrainingGraph& x = data.graphs[a];
        const TrainingGraph& y = data.graphs[b];
        return x.name != y.name ? x.name < y.name : x.path < y.path;
    });
    return graphs;
}

} // namespace tgraph
