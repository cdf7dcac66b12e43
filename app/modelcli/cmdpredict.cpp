// SPDX-License-Identifier: Apache-2.0
// `tgraph predict`: rank every configuration of TpuGraphs graphs with a TGraph model or an ensemble
// (docs/model.md §6) and write the scores, the ranking and the Kaggle submission format.

#include "scorefiles.h"

#include "app/cli/argparser.h"
#include "app/cli/commands.h"

#include <cstdio>

namespace tgraph::cli {

namespace {

constexpr const char* kCommand = "predict";

int predict(const ArgParser& p)
{
    const bool toStdout = !p.has("--output") && !p.has("--kaggle-csv");
    int64_t graphs = 0;
    const std::string precision = scoreFiles(p, true, [&](const tgraph::GraphScores& g) {
        ++graphs;
        if (toStdout)
            return;
        std::string fastest;
        for (size_t r = 0; r < std::min<size_t>(5, g.ranking.size()); ++r)
            fastest += (r ? ", " : "") + std::to_string(g.ranking[r]);
        const std::string name = p.has("--tree") ? tgraph::collectionIdFromPath(g.file) + ":" + g.name : g.name;
        std::printf("%s: %lld configs, %lld nodes", name.c_str(), (long long)g.configs(), (long long)g.nodes);
        if (g.nodesBeforePruning != g.nodes)
            std::printf(" (pruned from %lld)", (long long)g.nodesBeforePruning);
        std::printf("; predicted fastest: %s\n", fastest.c_str());
    });
    if (!toStdout) {
        for (const char* option : { "--output", "--kaggle-csv" })
            if (p.has(option))
                std::printf("wrote %s (%lld graphs)\n", p.value(option).c_str(), (long long)graphs);
        std::printf("scored with %s\n", precision.c_str());
    }
    return ExitOk;
}

} // namespace

int runPredict(const std::vector<std::string>& args)
{
    ArgParser p(kCommand,
        "Score every configuration of layout or tile graphs with a TGraph model (or the mean of an ensemble),\n"
        "ascending = predicted fastest first. Layout graphs are pruned as in training (a pruned file is\n"
        "unchanged; configs stored plain or base-7 compressed); all configs are scored in near-equal chunks of\n"
        "at most B (numpy array_split, docs/model.md §6.1), optionally averaged over N permutations (TTA, docs/model.md §6.2).\n"
        "Without -o or --kaggle-csv the CSV goes to stdout. The competition's submission: --tree DIR (tgraph data fetch)\n"
        "with --weights-for ID=W per collection scores each collection's test split with its own model into one\n"
        "--kaggle-csv (docs/formats.md §16.5).",
        "--weights W [--weights W2 ...] --data DIR|FILE [FILE...] [--batch-configs B] [--tta N]\n"
        "              [--threads T] [--precision auto|fp32|bf16] [-o scores.csv|scores.npz]\n"
        "              [--kaggle-csv OUT.csv [--collection-id ID]]\n"
        "       | --tree DIR --weights-for ID=W [--weights-for ID=W ...] --kaggle-csv submission.csv [options]");
    addScoringOptions(p, "test");
    p.addNote("Exit codes: 0 ok, 1 bad input (nothing is written), 2 usage error, 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (const std::string error = checkScoringOptions(p); !error.empty())
        return usageError(kCommand, error);
    return guarded(kCommand, predict, p);
}

} // namespace tgraph::cli
