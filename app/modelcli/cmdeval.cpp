// SPDX-License-Identifier: Apache-2.0
// `tgraph eval`: score graphs with measured runtimes like `tgraph predict` and report the ranking
// metrics of spec tgraph-model.md §7 per graph and their mean.

#include "scorefiles.h"

#include "app/cli/argparser.h"
#include "app/cli/commands.h"

#include "core/util/jsonwriter.h"

#include <cmath>
#include <cstdio>

namespace tgraph::cli {

namespace {

constexpr const char* kCommand = "eval";

std::string cell(double v, double scale = 1, const char* format = "%9.4f")
{
    if (std::isnan(v))
        return "        -";
    char buf[32];
    std::snprintf(buf, sizeof buf, format, v * scale);
    return buf;
}

void printRow(const model::GraphMetrics& m, size_t nameWidth)
{
    std::printf("%-*s %8lld %s %s %s %s %s", int(nameWidth), m.name.c_str(), (long long)m.configs,
        cell(m.kendallTau).c_str(), cell(m.opa).c_str(), cell(m.slowdown1, 100, "%8.2f%%").c_str(),
        cell(m.slowdown5, 100, "%8.2f%%").c_str(), cell(m.slowdown10, 100, "%8.2f%%").c_str());
    if (m.kind == GraphKind::Tile)
        std::printf(" %s", cell(m.tileScore).c_str());
    std::printf("\n");
}

void addMetrics(JsonWriter& j, const model::GraphMetrics& m)
{
    j.key("configs").value(m.configs);
    j.key("kendall_tau").value(m.kendallTau);
    j.key("opa").value(m.opa);
    j.key("slowdown_top1").value(m.slowdown1);
    j.key("slowdown_top5").value(m.slowdown5);
    j.key("slowdown_top10").value(m.slowdown10);
    if (m.kind == GraphKind::Tile)
        j.key("tile_score").value(m.tileScore);
}

int eval(const ArgParser& p)
{
    const model::TileTarget target = p.get<model::TileTarget>("--tile-runtime");
    std::vector<model::GraphMetrics> metrics;
    std::vector<std::string> files;
    scoreFiles(p, false, [&](const model::GraphScores& g) {
        metrics.push_back(model::evaluate(g, target));
        files.push_back(g.file);
    });
    const model::GraphMetrics mean = model::meanMetrics(metrics);
    const bool tile = !metrics.empty() && metrics.front().kind == GraphKind::Tile;

    if (p.has("--json")) {
        JsonWriter j;
        j.beginObject();
        j.key("kind").value(tile ? "tile" : "layout");
        j.key("weights").beginArray();
        for (const std::string& w : p.values("--weights"))
            j.value(w);
        j.endArray();
        j.key("batch_configs").value(p.get<int64_t>("--batch-configs"));
        j.key("tta").value(p.get<int64_t>("--tta"));
        if (tile)
            j.key("tile_runtime").value(p.value("--tile-runtime"));
        j.key("graphs").beginArray();
        for (size_t i = 0; i < metrics.size(); ++i) {
            j.beginObject();
            j.key("graph").value(metrics[i].name);
            j.key("file").value(files[i]);
            addMetrics(j, metrics[i]);
            j.endObject();
        }
        j.endArray();
        j.key("mean").beginObject();
        j.key("graphs").value(int64_t(metrics.size()));
        addMetrics(j, mean);
        j.endObject();
        j.endObject();
        std::printf("%s\n", j.str().c_str());
        return ExitOk;
    }
    size_t width = 5;
    for (const auto& m : metrics)
        width = std::max(width, m.name.size());
    std::printf("%-*s %8s %9s %9s %9s %9s %9s%s\n", int(width), "graph", "configs", "tau", "OPA", "top-1", "top-5",
        "top-10", tile ? "      tile" : "");
    for (const auto& m : metrics)
        printRow(m, width);
    model::GraphMetrics shown = mean;
    shown.name = "mean (" + std::to_string(metrics.size()) + (metrics.size() == 1 ? " graph)" : " graphs)");
    shown.name.resize(std::max(shown.name.size(), width), ' ');
    printRow(shown, width);
    std::printf("\ntau: Kendall tau-b of scores vs runtimes; OPA: ordered-pair accuracy; top-k: slowdown of the best "
                "of the k predicted fastest over the best config%s.\n",
        tile ? "; tile: 2 - best of top 5 / best (1 = the best config is in the top 5)" : "");
    return ExitOk;
}

} // namespace

int runEval(const std::vector<std::string>& args)
{
    ArgParser p(kCommand,
        "Score graphs with measured runtimes as tgraph predict does, and report Kendall tau-b, ordered-pair\n"
        "accuracy and the top-1/5/10 slowdown per graph and their mean (spec §7); tile graphs also get the\n"
        "tile metric 2 - min runtime of the top 5 / min runtime (§7.3). Test-split files (all runtimes 0) are\n"
        "refused.",
        "--weights W [--weights W2 ...] --data DIR|FILE [FILE...] [--batch-configs B] [--tta N]\n"
        "              [--threads T] [--json] [--tile-runtime raw|normalized] [-o scores.csv|scores.npz]");
    addScoringOptions(p);
    p.addOption("--json", "", "", "print the metrics as JSON");
    p.addOption("--tile-runtime", "", "raw|normalized",
        "tile runtimes as config_runtime (the authors' code) or divided by config_runtime_normalizers (the official "
        "TpuGraphs target)",
        "raw", opt::oneOf({ model::TileTarget::Raw, model::TileTarget::Normalized }, [](model::TileTarget t) {
            return t == model::TileTarget::Raw ? "raw" : "normalized";
        }));
    p.addNote("Exit codes: 0 ok, 1 bad input (nothing is written), 2 usage error, 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (const std::string error = checkScoringOptions(p); !error.empty())
        return usageError(kCommand, error);
    return guarded(kCommand, eval, p);
}

} // namespace tgraph::cli
