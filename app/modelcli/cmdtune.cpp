// SPDX-License-Identifier: Apache-2.0
// `tgraph tune`: the XTAT-style autotuner. Searches a module's layout space (or a graph file's
// recombined per-node layouts, or a tile kernel's configs) with a strategy of core/tune/tunesearch.h,
// scoring candidates in batches with the learned model; re-scores the final candidates together,
// verifies the top-k with the simulator or a user's measuring command (model/infer/autotune.h), and writes the winners as a
// graph file, a readable layout assignment and the search history.

#include "precisionoption.h"

#include "app/cli/argparser.h"
#include "app/cli/commands.h"
#include "app/cli/sharedoptions.h"
#include "app/cli/terminalprogress.h"
#include "tuneplan.h"

#include "core/graph/graphio.h"
#include "core/io/filebytes.h"
#include "core/store/project.h"
#include "core/store/runwriter.h"
#include "core/tune/tunesearch.h"
#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/json.h"
#include "core/view/graphdocument.h"
#include "model/infer/autotune.h"
#include "model/runtime/torchruntime.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace tgraph::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kCommand = "tune";

// The output directory is written under a temporary name and renamed at the end, so a failed or
// interrupted run leaves nothing half-written. Its files are written atomically (synced), and the
// folder holding it is synced after the rename, so after a crash the directory is whole or absent.
class StagedDir
{
public:
    explicit StagedDir(std::string target)
        : m_target(std::move(target))
    {
        std::error_code ec;
        if (fs::exists(m_target, ec) && !(fs::is_directory(m_target, ec) && fs::is_empty(m_target, ec)))
            throw InputError(m_target, "-o", "exists and is not an empty directory (choose another output directory)");
        m_staging = m_target + ".partial-" + std::to_string(::getpid());
        fs::create_directories(m_staging, ec);
        if (ec)
            throw InputError(m_target, "-o", "cannot create the output directory: " + ec.message());
    }
    ~StagedDir()
    {
        std::error_code ec;
        if (!m_committed)
            fs::remove_all(m_staging, ec);
    }
    std::string file(const std::string& name) const { return (fs::path(m_staging) / name).string(); }
    std::string finalFile(const std::string& name) const { return (fs::path(m_target) / name).string(); }
    void commit()
    {
        std::error_code ec;
        if (fs::is_directory(m_target, ec))
            fs::remove(m_target, ec); // empty (checked at the start)
        fs::rename(m_staging, m_target, ec);
        if (ec)
            throw InputError(m_target, "-o", "cannot move the results into place: " + ec.message());
        m_committed = true;
        fs::path target = fs::absolute(m_target);
        if (!target.has_filename()) // "out/"
            target = target.parent_path();
        syncFolder(target.parent_path().string());
    }

private:
    std::string m_target;
    std::string m_staging;
    bool m_committed = false;
};

int tune(const TunePlan& plan)
{
    model::initTorchRuntime(plan.threads);
    applyPrecision(plan.precision);
    const TuneOptions& options = plan.search;
    const std::string& input = plan.input;
    const std::string& measureCommand = plan.measureCommand;
    const bool simulate = plan.simulate;

    std::error_code ec;
    if (!fs::is_regular_file(input, ec))
        throw InputError(input, "", "no such file");
    TerminalProgress progress;
    auto documents = openGraphDocuments(input, &progress);
    if (documents.empty())
        throw InputError(input, "", "holds no graph");
    std::vector<model::EnsembleMember> models
        = model::loadEnsemble(model::expandWeightsArguments(plan.weights));
    StagedDir out(plan.outputDir);
    tgraph::AutotuneRequest request;
    request.search = options;
    request.topK = plan.topK;
    request.simulate = simulate;
    request.measureCommand = measureCommand;
    request.measureTimeoutMs = int(plan.measureTimeout.count()); // at most a day
    request.configDir = out.file("configs");
    request.space = plan.space;
    request.moduleFile = plan.moduleFile;
    request.simulatorParams = plan.simulatorParams;
    model::Autotuner tuner(models, documents.front(), request);
    const TuneSpace& space = tuner.space();
    const GraphDocument& doc = tuner.document();

    // Project run (optional): parameters, best-so-far curve, verified runtimes.
    std::unique_ptr<RunWriter> run;
    if (!plan.projectPath.empty()) {
        Project project = Project::openOrCreate(plan.projectPath);
        RunStart start;
        start.experiment = plan.experiment;
        start.name = plan.runName;
        start.commandLine = "tgraph tune " + input;
        const std::string id = project.startRun(start);
        project.setParams(id,
            { { "kind", "tune" }, { "graph", fs::absolute(input).string() },
                { "strategy", tuneStrategyName(options.strategy) }, { "budget", std::to_string(options.budget) },
                { "batch", std::to_string(options.batch) }, { "seed", std::to_string(options.seed) },
                { "space", space.origin }, { "weights", plan.weights.front() } });
        run = std::make_unique<RunWriter>(plan.projectPath, id);
    }

    std::fprintf(stderr,
        "%s: %s space of %zu dimensions, about 10^%.1f candidates; %s search, budget %lld, batches of %lld%s\n",
        input.c_str(), space.origin.c_str(), space.dimensions.size(), space.log10Size(),
        tuneStrategyName(options.strategy), (long long)options.budget, (long long)options.batch,
        tuner.crossAttention() ? " (cross-attn: final candidates re-scored together)" : "");
    tgraph::AutotuneOutcome outcome;
    try {
        outcome = tuner.run(&progress, [&run](const TuneResult& r) {
            if (run)
                run->logMetric("best_score", int64_t(r.evaluated.size()), r.bestSoFar.back(), "tune");
        });
    } catch (const Cancelled&) {
        if (run)
            run->finish(RunStatus::Killed, "interrupted");
        throw;
    }
    const TuneResult& result = outcome.result;
    const auto& top = outcome.top;
    const auto& defaultEntry = outcome.defaultEntry;
    const int winner = outcome.winner;
    const double searchSeconds = outcome.searchSeconds;
    const bool verify = !outcome.verification.empty();
    for (const auto& c : top)
        if (!c.note.empty())
            std::fprintf(stderr, "tgraph tune: warning: measuring config-%zu.json failed: %s\n",
                size_t(&c - top.data()) + 1, c.note.c_str());
    if (!defaultEntry.note.empty())
        std::fprintf(
            stderr, "tgraph tune: warning: measuring config-default.json failed: %s\n", defaultEntry.note.c_str());

    // Outputs.
    const std::string how = outcome.verification;
    {
        std::ostringstream csv;
        csv << "rank,evaluation,search_score,score,runtime_ns,speedup_vs_default,file_runtime_ns,note\n";
        const auto line = [&](const std::string& rank, const tgraph::AutotuneCandidate& v) {
            csv << rank << ',' << v.evaluation << ',' << v.searchScore << ',' << v.score << ',';
            if (std::isfinite(v.runtime))
                csv << std::llround(v.runtime);
            csv << ',';
            if (std::isfinite(v.runtime) && std::isfinite(defaultEntry.runtime))
                csv << defaultEntry.runtime / v.runtime;
            csv << ',';
            if (v.fileRuntime > 0)
                csv << v.fileRuntime;
            csv << ',' << v.note << '\n';
        };
        line("default", defaultEntry);
        for (size_t r = 0; r < top.size(); ++r)
            line(std::to_string(r + 1), top[r]);
        writeFileAtomically(out.file("top.csv"), csv.str());
    }
    {
        std::ostringstream history;
        history << "evaluation,batch,score,best_so_far\n";
        for (size_t i = 0; i < result.evaluated.size(); ++i)
            history << i << ',' << result.evaluated[i].batch << ',' << result.evaluated[i].score << ','
                    << result.bestSoFar[i] << '\n';
        writeFileAtomically(out.file("history.csv"), history.str());
    }
    {
        std::ostringstream text;
        text << "# " << input << ": top " << top.size() << " of " << result.evaluated.size() << " candidates ("
             << tuneStrategyName(options.strategy) << ", seed " << options.seed
             << "); lower score = predicted faster\n";
        for (size_t r = 0; r < top.size(); ++r) {
            text << "#" << (r + 1) << " score " << top[r].score;
            if (std::isfinite(top[r].runtime))
                text << ", " << how << ' ' << formatDuration(std::llround(top[r].runtime));
            text << '\n' << tuner.layoutAssignment(space.row(result.evaluated[top[r].evaluation].genes));
        }
        writeFileAtomically(out.file("layouts.txt"), text.str());
    }
    // The winners as a graph file of the input's kind: top-k configs in rank order, runtimes as verified (0 = not).
    if (space.kind == GraphKind::Tile) {
        TileGraph g = doc.tile;
        NdArray<float> feat({ int64_t(top.size()), int64_t(space.rowWidth) });
        g.configRuntime = NdArray<int64_t>({ int64_t(top.size()) }, 0);
        for (size_t r = 0; r < top.size(); ++r) {
            space.writeRow(result.evaluated[top[r].evaluation].genes, feat.data() + int64_t(r) * space.rowWidth);
            g.configRuntime.data()[r] = std::isfinite(top[r].runtime) ? std::llround(top[r].runtime) : 0;
        }
        g.configFeat = std::move(feat);
        if (g.configRuntimeNormalizers.size() > 0)
            g.configRuntimeNormalizers = NdArray<int64_t>({ int64_t(top.size()) }, 1);
        saveTileGraph(g, out.file("top.npz"));
    } else {
        LayoutGraph g = tuner.fileGraph();
        const int64_t nc = g.configurableCount();
        NdArray<float> feat({ int64_t(top.size()), nc, 18 });
        g.configRuntime = NdArray<int64_t>({ int64_t(top.size()) }, 0);
        for (size_t r = 0; r < top.size(); ++r) {
            space.writeRow(result.evaluated[top[r].evaluation].genes, feat.data() + int64_t(r) * nc * 18);
            g.configRuntime.data()[r] = std::isfinite(top[r].runtime) ? std::llround(top[r].runtime) : 0;
        }
        g.nodeConfigFeat = std::move(feat);
        g.defaultConfig = -1;
        saveLayoutGraph(g, out.file("top.npz"));
    }
    {
        Json j;
        j["graph"] = input;
        j["kind"] = graphKindName(space.kind);
        j["space"] = space.origin;
        j["module"] = tuner.moduleNote();
        j["dimensions"] = int64_t(space.dimensions.size());
        j["log10_candidates"] = space.log10Size();
        j["strategy"] = tuneStrategyName(options.strategy);
        j["budget"] = options.budget;
        j["batch"] = options.batch;
        j["seed"] = options.seed;
        j["evaluated"] = int64_t(result.evaluated.size());
        j["batches"] = result.batches;
        j["duplicates_skipped"] = result.duplicatesSkipped;
        j["exhausted"] = result.exhausted;
        j["cross_attention"] = tuner.crossAttention();
        j["search_seconds"] = searchSeconds;
        j["verification"] = simulate ? "simulator" : measureCommand.empty() ? "none" : "measure";
        j["default_score"] = defaultEntry.score;
        j["default_runtime_ns"] = defaultEntry.runtime;
        j["winner"] = winner; // rank in top to apply; 0 = keep the default (or not verified)
        Json& topJson = j["top"] = Json::array();
        for (const tgraph::AutotuneCandidate& v : top) {
            Json& item = topJson.emplace_back();
            item["evaluation"] = int64_t(v.evaluation);
            item["score"] = v.score;
            item["runtime_ns"] = v.runtime;
            item["speedup_vs_default"] = defaultEntry.runtime / v.runtime;
        }
        writeFileAtomically(out.file("summary.json"), jsonText(j) + "\n");
    }
    out.commit();

    // The report.
    if (!tuner.simInputsNote().empty())
        std::fprintf(stderr, "tgraph tune: warning: %s\n", tuner.simInputsNote().c_str());
    std::printf("%s: %lld candidates scored in %.1f s (%lld batches, %lld duplicates skipped)%s\n", input.c_str(),
        (long long)result.evaluated.size(), searchSeconds, (long long)result.batches,
        (long long)result.duplicatesSkipped, result.exhausted ? ", the whole space" : "");
    std::printf("%6s %12s %14s %10s\n", "rank", "score", verify ? (how + " ns").c_str() : "", verify ? "speed-up" : "");
    const auto row = [&](const std::string& rank, const tgraph::AutotuneCandidate& v) {
        std::printf("%6s %12.6f", rank.c_str(), v.score);
        if (std::isfinite(v.runtime))
            std::printf(" %14lld %9.3fx", (long long)std::llround(v.runtime),
                std::isfinite(defaultEntry.runtime) ? defaultEntry.runtime / v.runtime : NAN);
        else if (!v.note.empty())
            std::printf(" %14s", "failed");
        std::printf("\n");
    };
    row("default", defaultEntry);
    for (size_t r = 0; r < top.size(); ++r)
        row(std::to_string(r + 1), top[r]);
    if (verify) {
        if (winner > 0)
            std::printf("apply #%d: %s %s vs the default's %s: %.3fx\n", winner, how.c_str(),
                formatDuration(std::llround(top[size_t(winner - 1)].runtime)).c_str(),
                formatDuration(std::llround(defaultEntry.runtime)).c_str(),
                defaultEntry.runtime / top[size_t(winner - 1)].runtime);
        else
            std::printf(
                "keep the compiler default: no %s candidate of the top-%zu is faster\n", how.c_str(), top.size());
    }
    std::printf(
        "written: %s (top.npz, top.csv, layouts.txt, history.csv, summary.json)\n", plan.outputDir.c_str());
    if (run) {
        run->predictions(
            0, fs::absolute(input).string(),
            [&] {
                std::vector<double> s;
                for (const tgraph::AutotuneCandidate& v : top)
                    s.push_back(v.score);
                return s;
            }(),
            [&] {
                std::vector<int64_t> r;
                for (const tgraph::AutotuneCandidate& v : top)
                    r.push_back(std::isfinite(v.runtime) ? std::llround(v.runtime) : 0);
                return r;
            }());
        if (std::isfinite(defaultEntry.runtime))
            run->logMetric("default_runtime_ns", 0, defaultEntry.runtime, "verify");
        for (size_t r = 0; r < top.size(); ++r)
            if (std::isfinite(top[r].runtime))
                run->logMetric("runtime_ns", int64_t(r + 1), top[r].runtime, "verify");
        run->project().addArtifact(run->runId(), "tune", out.finalFile("top.npz"), 0);
        run->finish(RunStatus::Finished);
    }
    return ExitOk;
}

} // namespace

int runTune(const std::vector<std::string>& args)
{
    ArgParser p = tuneArgumentParser();
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    const TunePlan plan = resolveTunePlan(p);
    if (!plan.ok())
        return usageError(kCommand, plan.error);
    return guarded(kCommand, [&] { return tune(plan); });
}

} // namespace tgraph::cli
