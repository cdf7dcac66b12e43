// SPDX-License-Identifier: Apache-2.0
#include "scorefiles.h"

#include "precisionoption.h"

#include "app/cli/argparser.h"
#include "app/cli/sharedoptions.h"
#include "app/cli/terminalprogress.h"

#include "core/data/collections.h"
#include "core/util/error.h"
#include "model/infer/inference.h"
#include "model/runtime/torchruntime.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

namespace tgraph::cli {

namespace {

std::vector<std::string> dataEntries(const ArgParser& p)
{
    std::vector<std::string> entries = p.values("--data");
    entries.insert(entries.end(), p.positionals().begin(), p.positionals().end());
    return entries;
}

// --weights-for ID=W[,W2...] by collection id; the problem in `error` when one is malformed.
std::map<std::string, std::vector<std::string>> weightsFor(const ArgParser& p, std::string* error)
{
    std::map<std::string, std::vector<std::string>> byCollection;
    for (const std::string& v : p.values("--weights-for")) {
        const size_t eq = v.find('=');
        const std::string id = v.substr(0, eq);
        if (eq == std::string::npos || eq + 1 == v.size() || !findTpuCollection(id)) {
            *error = "--weights-for '" + v
                + "' is not COLLECTION=W (tile:xla, layout:xla:default, layout:xla:random, "
                  "layout:nlp:default, layout:nlp:random)";
            return {};
        }
        if (byCollection.count(id)) {
            *error = "--weights-for names " + id + " twice";
            return {};
        }
        std::vector<std::string>& weights = byCollection[id];
        for (size_t start = eq + 1; start <= v.size();) {
            const size_t comma = std::min(v.find(',', start), v.size());
            if (comma > start)
                weights.push_back(v.substr(start, comma - start));
            start = comma + 1;
        }
    }
    return byCollection;
}

// A group of graph files scored by one ensemble.
struct ScoringGroup
{
    std::vector<std::string> weights;
    std::vector<std::string> files;
};

std::vector<ScoringGroup> scoringGroups(const ArgParser& p)
{
    if (!p.has("--tree"))
        return { ScoringGroup { p.values("--weights"), model::listGraphFiles(dataEntries(p)) } };
    namespace fs = std::filesystem;
    fs::path root(p.value("--tree"));
    std::error_code ec;
    if (!fs::is_directory(root / "npz", ec) && root.filename() == "npz")
        root = root.parent_path();
    std::string error;
    const auto byCollection = weightsFor(p, &error);
    const std::string split = p.value("--split");
    std::vector<ScoringGroup> groups;
    for (const std::string& id : treeCollections(p)) {
        const fs::path folder = root / splitFolder(*findTpuCollection(id), split);
        if (!fs::is_directory(folder, ec))
            throw InputError(folder.string(), "",
                "not a folder: fetch it with tgraph data fetch --collections " + id + " --splits " + split);
        groups.push_back({ byCollection.at(id), model::listGraphFiles({ folder.string() }) });
    }
    return groups;
}

} // namespace

std::vector<std::string> treeCollections(const ArgParser& p)
{
    std::string error;
    const auto byCollection = weightsFor(p, &error);
    std::vector<std::string> ids;
    for (const auto& c : tpuCollections())
        if (byCollection.count(c.id))
            ids.push_back(c.id);
    return ids;
}

void addScoringOptions(ArgParser& p, const char* treeSplit)
{
    p.addPositional("FILE...", "more graphs after --data (directories or .npz files)");
    p.addOption("--weights", "-w", "W",
        "a weights .npz or a checkpoint (tgraph train), an ensemble file (tgraph weights combine, train --seeds) or "
        "the ensemble.json of tgraph train --folds; repeat for an ensemble (mean of raw scores)");
    p.addOption(
        "--data", "", "DIR|FILE", "a TpuGraphs .npz graph, or a directory of them (sorted by name); repeatable");
    p.addOption("--batch-configs", "-b", "B",
        "configs per forward pass: all configs in ceil(C/B) near-equal chunks (numpy array_split); with cross-attn "
        "the scores depend on it (the code used 128 for xla:default, 256 for nlp:default); memory grows with B x nodes "
        "(one (nodes, B, 256) float activation with cross-attn, docs/model.md §6.1)",
        "128", opt::integer(1));
    p.addOption("--tta", "", "N", "test-time augmentation: average over N seeded permutations of the configs (0 = off)",
        "0", opt::integer(0, 10000));
    p.addOption("--tta-seed", "", "S", "seed of the TTA permutations", "101", opt::size());
    p.addOption("--threads", "", "T", "LibTorch threads (0 = all cores)", "0", threadsType());
    addPrecisionOption(p);
    p.addOption("--repad", "", "", "re-pad node_feat layout columns 134..139 with -1 (as the model was trained)");
    p.addOption("--output", "-o", "FILE",
        "scores as .csv (graph,config,score,rank; rank 1 = predicted fastest) or .npz (one float32 array per graph, "
        "keyed by file name without .npz, in config order)");
    p.addOption("--kaggle-csv", "", "FILE",
        "also write the competition's ID,TopConfigs (layout: every config, tile: the top 5, fastest first)");
    p.addOption("--collection-id", "", "ID",
        "Kaggle collection (layout:xla:default, layout:nlp:random, tile:xla, ...) when the path does not show "
        ".../layout/{xla,nlp}/{default,random}/ or .../tile/xla/");
    p.addOption("--tree", "", "DIR",
        "instead of --data and --weights: a TpuGraphs tree (tgraph data fetch -o DIR); each collection named by "
        "--weights-for is scored on its --split split with its own model");
    p.addOption("--weights-for", "", "ID=W",
        "with --tree: the model of one collection (tile:xla, layout:xla:default, layout:xla:random, "
        "layout:nlp:default, layout:nlp:random), W as for --weights, several comma-separated for an ensemble; "
        "repeat per collection");
    p.addOption(
        "--split", "", "S", "with --tree: the split scored", treeSplit, opt::oneOf({ "train", "valid", "test" }));
}

std::string checkScoringOptions(const ArgParser& p)
{
    tgraph::ScoresWriter::Format format;
    if (p.has("--tree")) {
        if (p.has("--weights") || !dataEntries(p).empty())
            return "--tree replaces --weights and --data (use --weights-for ID=W per collection)";
        if (p.has("--collection-id"))
            return "--tree tells each graph's collection; --collection-id is not used with it";
        if (!p.has("--weights-for"))
            return "--tree needs --weights-for ID=W for at least one collection";
        std::string error;
        weightsFor(p, &error);
        if (!error.empty())
            return error;
    } else {
        if (p.has("--weights-for") || p.has("--split"))
            return "--weights-for and --split are used with --tree";
        if (p.values("--weights").empty())
            return "missing --weights W";
        if (dataEntries(p).empty())
            return "missing --data DIR|FILE";
    }
    if (p.has("--output") && !tgraph::ScoresWriter::formatFromPath(p.value("--output"), &format))
        return "-o must name a .csv or .npz file, not '" + p.value("--output") + "'";
    if (p.has("--collection-id") && !p.has("--kaggle-csv"))
        return "--collection-id is only used with --kaggle-csv";
    return {};
}

std::string scoreFiles(
    const ArgParser& p, bool csvToStdout, const std::function<void(const tgraph::GraphScores&)>& onGraph)
{
    model::initTorchRuntime(p.get<int>("--threads"));
    const std::string precision = applyPrecisionOption(p);
    model::PredictFileOptions options;
    options.inference.batchConfigs = p.get<int64_t>("--batch-configs");
    options.inference.tta = p.get<int>("--tta");
    options.inference.ttaSeed = p.get<uint64_t>("--tta-seed");
    options.repadLayout = p.has("--repad");

    // One ensemble per group of files (one group, or one per collection of a --tree), all loaded
    // and checked before any graph is scored.
    const std::vector<ScoringGroup> groups = scoringGroups(p);
    std::vector<std::vector<model::EnsembleMember>> ensembles;
    for (const ScoringGroup& g : groups)
        ensembles.push_back(model::loadEnsemble(model::expandWeightsArguments(g.weights)));

    // Outputs first: an unwritable target fails before the work, and nothing is left behind on error.
    std::vector<std::unique_ptr<tgraph::ScoresWriter>> writers;
    if (p.has("--output")) {
        tgraph::ScoresWriter::Format format;
        tgraph::ScoresWriter::formatFromPath(p.value("--output"), &format);
        writers.push_back(std::make_unique<tgraph::ScoresWriter>(p.value("--output"), format));
    }
    if (p.has("--kaggle-csv"))
        writers.push_back(std::make_unique<tgraph::ScoresWriter>(
            p.value("--kaggle-csv"), tgraph::ScoresWriter::Format::Kaggle, p.value("--collection-id")));
    const bool toStdout = csvToStdout && writers.empty();
    if (toStdout)
        std::fputs("graph,config,score,rank\n", stdout);

    // Passes per file from the headers, so the bar counts forward passes; the kind and the output
    // keys (Kaggle collection, duplicate names) are checked here too, before any graph is scored.
    uint64_t total = 0;
    for (size_t gi = 0; gi < groups.size(); ++gi)
        for (const std::string& file : groups[gi].files) {
            const std::vector<model::EnsembleMember>& models = ensembles[gi];
            GraphKind kind;
            const int64_t configs = model::configCountOfFile(file, &kind);
            if (kind != models.front().kind)
                throw InputError(file, "",
                    std::string("is a ") + graphKindName(kind) + " graph but " + models.front().path + " holds a "
                        + graphKindName(models.front().kind) + "-model");
            for (auto& w : writers)
                w->plan(file, kind);
            total += uint64_t(model::inferencePasses(models, configs, options.inference));
        }
    TerminalProgress progress;
    ProgressScope scope(&progress, "scoring", total);
    for (size_t gi = 0; gi < groups.size(); ++gi)
        for (const std::string& file : groups[gi].files) {
            const tgraph::GraphScores scores = model::predictFile(ensembles[gi], file, options, &scope);
            if (scores.simInputs.rfind("unpriced", 0) == 0) // docs/model.md §4.9
                std::fprintf(stderr, "warning: %s: the model's simulator inputs are %s\n", file.c_str(),
                    scores.simInputs.c_str());
            onGraph(scores);
            if (toStdout)
                std::fputs(tgraph::scoresCsvRows(scores).c_str(), stdout);
            for (auto& w : writers)
                w->add(scores);
        }
    for (auto& w : writers)
        w->commit();
    return precision;
}

} // namespace tgraph::cli
