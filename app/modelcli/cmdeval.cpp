// SPDX-License-Identifier: Apache-2.0
// `tgraph eval`: score graphs with measured runtimes like `tgraph predict` and report the ranking
// metrics of docs/model.md §7 per graph and their mean.

#include "scorefiles.h"

#include "app/cli/argparser.h"
#include "app/cli/commands.h"

#include "core/data/collections.h"
#include "core/util/json.h"

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

void printRow(const tgraph::GraphMetrics& m, size_t nameWidth)
{
    std::printf("%-*s %8lld %s %s %s %s %s", int(nameWidth), m.name.c_str(), (long long)m.configs,
        cell(m.kendallTau).c_str(), cell(m.opa).c_str(), cell(m.slowdown1, 100, "%8.2f%%").c_str(),
        cell(m.slowdown5, 100, "%8.2f%%").c_str(), cell(m.slowdown10, 100, "%8.2f%%").c_str());
    if (m.kind == GraphKind::Tile)
        std::printf(" %s", cell(m.tileScore).c_str());
    std::printf("\n");
}

void addMetrics(Json& j, const tgraph::GraphMetrics& m)
{
    j["configs"] = m.configs;
    j["kendall_tau"] = m.kendallTau;
    j["opa"] = m.opa;
    j["slowdown_top1"] = m.slowdown1;
    j["slowdown_top5"] = m.slowdown5;
    j["slowdown_top10"] = m.slowdown10;
    if (m.kind == GraphKind::Tile)
        j["tile_score"] = m.tileScore;
}

// The competition's score of one collection (docs/formats.md §16.5): the mean Kendall tau of its
// graphs (layout), or the mean tile score 2 - best of top 5 / best (tile:xla).
double collectionScore(const tgraph::GraphMetrics& mean)
{
    return mean.kind == GraphKind::Tile ? mean.tileScore : mean.kendallTau;
}

// --tree: one row per collection and the combined score, the mean over the collections.
int evalTree(const ArgParser& p, const std::vector<tgraph::GraphMetrics>& metrics,
    const std::vector<std::string>& collectionOf)
{
    struct Row
    {
        std::string id;
        tgraph::GraphMetrics mean;
        size_t graphs = 0;
    };
    std::vector<Row> rows;
    for (const std::string& id : treeCollections(p)) {
        std::vector<tgraph::GraphMetrics> part;
        for (size_t i = 0; i < metrics.size(); ++i)
            if (collectionOf[i] == id)
                part.push_back(metrics[i]);
        Row row { id, tgraph::meanMetrics(part), part.size() };
        row.mean.kind = id == "tile:xla" ? GraphKind::Tile : GraphKind::Layout;
        rows.push_back(row);
    }
    double sum = 0;
    size_t counted = 0;
    for (const Row& r : rows)
        if (r.graphs > 0 && !std::isnan(collectionScore(r.mean))) {
            sum += collectionScore(r.mean);
            ++counted;
        }
    const double combined = counted ? sum / double(counted) : std::nan("");
    if (p.has("--json")) {
        Json j;
        j["tree"] = p.value("--tree");
        j["split"] = p.value("--split");
        j["tile_runtime"] = p.value("--tile-runtime");
        Json& list = j["collections"] = Json::array();
        for (const Row& r : rows) {
            Json& c = list.emplace_back();
            c["collection"] = r.id;
            c["metric"] = r.mean.kind == GraphKind::Tile ? "tile_score" : "kendall_tau";
            c["score"] = collectionScore(r.mean);
            c["graphs"] = int64_t(r.graphs);
            addMetrics(c, r.mean);
        }
        j["combined_score"] = combined;
        j["collections_scored"] = int64_t(counted);
        std::printf("%s\n", jsonText(j).c_str());
        return ExitOk;
    }
    std::printf("%-20s %7s %-11s %9s %9s %9s\n", "collection", "graphs", "metric", "score", "OPA", "top-5");
    for (const Row& r : rows)
        std::printf("%-20s %7zu %-11s %s %s %s\n", r.id.c_str(), r.graphs,
            r.mean.kind == GraphKind::Tile ? "tile score" : "Kendall tau", cell(collectionScore(r.mean)).c_str(),
            cell(r.mean.opa).c_str(), cell(r.mean.slowdown5, 100, "%8.2f%%").c_str());
    std::printf("%-20s %7s %-11s %s\n", "combined", "", "mean", cell(combined).c_str());
    std::printf("\nscore: the competition's metric of each collection on its %s split, the mean over its graphs: "
                "Kendall tau-b of scores vs runtimes (layout), 2 - best runtime of the 5 predicted fastest / best runtime "
                "(tile:xla); combined: the mean over the %zu collection%s scored%s (docs/formats.md §16.5).\n",
        p.value("--split").c_str(), counted, counted == 1 ? "" : "s",
        counted == tpuCollections().size() ? "" : " (the competition's score averages all five)");
    return ExitOk;
}

int eval(const ArgParser& p)
{
    const tgraph::TileTarget target = p.get<tgraph::TileTarget>("--tile-runtime");
    std::vector<tgraph::GraphMetrics> metrics;
    std::vector<std::string> files;
    std::vector<std::string> collectionOf;
    scoreFiles(p, false, [&](const tgraph::GraphScores& g) {
        metrics.push_back(tgraph::evaluate(g, target));
        files.push_back(g.file);
        collectionOf.push_back(tgraph::collectionIdFromPath(g.file));
    });
    if (p.has("--tree"))
        return evalTree(p, metrics, collectionOf);
    const tgraph::GraphMetrics mean = tgraph::meanMetrics(metrics);
    const bool tile = !metrics.empty() && metrics.front().kind == GraphKind::Tile;

    if (p.has("--json")) {
        Json j;
        j["kind"] = tile ? "tile" : "layout";
        j["weights"] = p.values("--weights");
        j["batch_configs"] = p.get<int64_t>("--batch-configs");
        j["tta"] = p.get<int64_t>("--tta");
        if (tile)
            j["tile_runtime"] = p.value("--tile-runtime");
        Json& graphs = j["graphs"] = Json::array();
        for (size_t i = 0; i < metrics.size(); ++i) {
            Json& graph = graphs.emplace_back();
            graph["graph"] = metrics[i].name;
            graph["file"] = files[i];
            addMetrics(graph, metrics[i]);
        }
        Json& meanJson = j["mean"] = Json::object();
        meanJson["graphs"] = int64_t(metrics.size());
        addMetrics(meanJson, mean);
        std::printf("%s\n", jsonText(j).c_str());
        return ExitOk;
    }
    size_t width = 5;
    for (const auto& m : metrics)
        width = std::max(width, m.name.size());
    std::printf("%-*s %8s %9s %9s %9s %9s %9s%s\n", int(width), "graph", "configs", "tau", "OPA", "top-1", "top-5",
        "top-10", tile ? "      tile" : "");
    for (const auto& m : metrics)
        printRow(m, width);
    tgraph::GraphMetrics shown = mean;
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
        "accuracy and the top-1/5/10 slowdown per graph and their mean (docs/model.md §7); tile graphs also get the\n"
        "tile metric 2 - min runtime of the top 5 / min runtime (docs/model.md §7.3). Test-split files (all runtimes 0) are\n"
        "refused. With --tree DIR and --weights-for ID=W per collection: each collection's valid split scored\n"
        "with its own model, one row per collection with the competition's metric, and their mean (docs/formats.md §16.5).",
        "--weights W [--weights W2 ...] --data DIR|FILE [FILE...] [--batch-configs B] [--tta N]\n"
        "              [--threads T] [--json] [--tile-runtime raw|normalized] [-o scores.csv|scores.npz]\n"
        "       | --tree DIR --weights-for ID=W [--weights-for ID=W ...] [--split S] [options]");
    addScoringOptions(p, "valid");
    p.addOption("--json", "", "", "print the metrics as JSON");
    p.addOption("--tile-runtime", "", "raw|normalized",
        "tile runtimes as config_runtime (the authors' code) or divided by config_runtime_normalizers (the official "
        "TpuGraphs target)",
        "raw", opt::oneOf({ tgraph::TileTarget::Raw, tgraph::TileTarget::Normalized }, [](tgraph::TileTarget t) {
            return t == tgraph::TileTarget::Raw ? "raw" : "normalized";
        }));
    p.addNote("Exit codes: 0 ok, 1 bad input (nothing is written), 2 usage error, 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (const std::string error = checkScoringOptions(p); !error.empty())
        return usageError(kCommand, error);
    return guarded(kCommand, eval, p);
}

} // namespace tgraph::cli
