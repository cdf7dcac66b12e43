// SPDX-License-Identifier: Apache-2.0
#include "scorefiles.h"

#include "app/cli/argparser.h"
#include "app/cli/sharedoptions.h"
#include "app/cli/terminalprogress.h"

#include "core/util/error.h"
#include "model/infer/inference.h"
#include "model/runtime/torchruntime.h"

#include <cstdio>
#include <memory>

namespace tgraph::cli {

namespace {

std::vector<std::string> dataEntries(const ArgParser& p)
{
    std::vector<std::string> entries = p.values("--data");
    entries.insert(entries.end(), p.positionals().begin(), p.positionals().end());
    return entries;
}

} // namespace

void addScoringOptions(ArgParser& p)
{
    p.addPositional("FILE...", "more graphs after --data (directories or .npz files)");
    p.addOption("--weights", "-w", "W",
        "a weights .npz or a checkpoint (tgraph train), or the ensemble.json of tgraph train --folds; repeat for an "
        "ensemble (mean of raw scores)");
    p.addOption(
        "--data", "", "DIR|FILE", "a TpuGraphs .npz graph, or a directory of them (sorted by name); repeatable");
    p.addOption("--batch-configs", "-b", "B",
        "configs per forward pass: all configs in ceil(C/B) near-equal chunks (numpy array_split); with cross-attn "
        "the scores depend on it (the code used 128 for xla:default, 256 for nlp:default)",
        "128", opt::integer(1));
    p.addOption("--tta", "", "N", "test-time augmentation: average over N seeded permutations of the configs (0 = off)",
        "0", opt::integer(0, 10000));
    p.addOption("--tta-seed", "", "S", "seed of the TTA permutations", "101", opt::size());
    p.addOption("--threads", "", "T", "LibTorch threads (0 = all cores)", "0", threadsType());
    p.addOption("--repad", "", "", "re-pad node_feat layout columns 134..139 with -1 (as the model was trained)");
    p.addOption("--output", "-o", "FILE",
        "scores as .csv (graph,config,score,rank; rank 1 = predicted fastest) or .npz (one float32 array per graph, "
        "keyed by file name without .npz, in config order)");
    p.addOption("--kaggle-csv", "", "FILE",
        "also write the competition's ID,TopConfigs (layout: every config, tile: the top 5, fastest first)");
    p.addOption("--collection-id", "", "ID",
        "Kaggle collection (layout:xla:default, layout:nlp:random, tile:xla, ...) when the path does not show "
        ".../layout/{xla,nlp}/{default,random}/ or .../tile/xla/");
}

std::string checkScoringOptions(const ArgParser& p)
{
    model::ScoresWriter::Format format;
    if (p.values("--weights").empty())
        return "missing --weights W";
    if (dataEntries(p).empty())
        return "missing --data DIR|FILE";
    if (p.has("--output") && !model::ScoresWriter::formatFromPath(p.value("--output"), &format))
        return "-o must name a .csv or .npz file, not '" + p.value("--output") + "'";
    if (p.has("--collection-id") && !p.has("--kaggle-csv"))
        return "--collection-id is only used with --kaggle-csv";
    return {};
}

void scoreFiles(const ArgParser& p, bool csvToStdout, const std::function<void(const model::GraphScores&)>& onGraph)
{
    model::initTorchRuntime(p.get<int>("--threads"));
    model::PredictFileOptions options;
    options.inference.batchConfigs = p.get<int64_t>("--batch-configs");
    options.inference.tta = p.get<int>("--tta");
    options.inference.ttaSeed = p.get<uint64_t>("--tta-seed");
    options.repadLayout = p.has("--repad");

    std::vector<model::EnsembleMember> models
        = model::loadEnsemble(model::expandWeightsArguments(p.values("--weights")));
    const std::vector<std::string> files = model::listGraphFiles(dataEntries(p));

    // Outputs first: an unwritable target fails before the work, and nothing is left behind on error.
    std::vector<std::unique_ptr<model::ScoresWriter>> writers;
    if (p.has("--output")) {
        model::ScoresWriter::Format format;
        model::ScoresWriter::formatFromPath(p.value("--output"), &format);
        writers.push_back(std::make_unique<model::ScoresWriter>(p.value("--output"), format));
    }
    if (p.has("--kaggle-csv"))
        writers.push_back(std::make_unique<model::ScoresWriter>(
            p.value("--kaggle-csv"), model::ScoresWriter::Format::Kaggle, p.value("--collection-id")));
    const bool toStdout = csvToStdout && writers.empty();
    if (toStdout)
        std::fputs("graph,config,score,rank\n", stdout);

    // Passes per file from the headers, so the bar counts forward passes; the kind and the output
    // keys (Kaggle collection, duplicate names) are checked here too, before any graph is scored.
    uint64_t total = 0;
    for (const std::string& file : files) {
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
    for (const std::string& file : files) {
        const model::GraphScores scores = model::predictFile(models, file, options, &scope);
        onGraph(scores);
        if (toStdout)
            std::fputs(model::scoresCsvRows(scores).c_str(), stdout);
        for (auto& w : writers)
            w->add(scores);
    }
    for (auto& w : writers)
        w->commit();
}

} // namespace tgraph::cli
