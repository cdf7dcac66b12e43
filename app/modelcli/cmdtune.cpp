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

int tune(const ArgParser& p)
{
    model::initTorchRuntime(p.get<int>("--threads"));
    applyPrecisionOption(p);
    TuneOptions options;
    options.strategy = p.get<TuneStrategy>("--strategy");
    options.budget = p.get<int64_t>("--budget");
    options.batch = p.get<int64_t>("--batch");
    options.seed = p.get<uint64_t>("--seed");
    const bool topGiven = p.has("--top-k");
    const int64_t topK = topGiven ? p.get<int64_t>("--top-k") : 0;
    const auto measureTimeout = p.get<std::chrono::milliseconds>("--measure-timeout");
    const std::string input = p.positionals().front();
    const std::string measureCommand = p.value("--measure");
    const bool simulate = p.has("--simulate");

    std::error_code ec;
    if (!fs::is_regular_file(input, ec))
        throw InputError(input, "", "no such file");
    TerminalProgress progress;
    auto documents = openGraphDocuments(input, &progress);
    if (documents.empty())
        throw InputError(input, "", "holds no graph");
    std::vector<model::EnsembleMember> models
        = model::loadEnsemble(model::expandWeightsArguments(p.values("--weights")));
    StagedDir out(p.value("--output"));
    tgraph::AutotuneRequest request;
    request.search = options;
    request.topK = topGiven ? topK : 0;
    request.simulate = simulate;
    request.measureCommand = measureCommand;
    request.measureTimeoutMs = int(measureTimeout.count()); // at most a day
    request.configDir = out.file("configs");
    request.space = p.value("--space");
    request.moduleFile = p.value("--module");
    request.simulatorParams = p.value("--params");
    model::Autotuner tuner(models, documents.front(), request);
    const TuneSpace& space = tuner.space();
    const GraphDocument& doc = tuner.document();

    // Project run (optional): parameters, best-so-far curve, verified runtimes.
    std::unique_ptr<RunWriter> run;
    if (p.has("--project")) {
        Project project = Project::openOrCreate(p.value("--project"));
        RunStart start;
        start.experiment = p.value("--experiment");
        start.name = p.value("--run-name");
        start.commandLine = "tgraph tune " + input;
        const std::string id = project.startRun(start);
        project.setParams(id,
            { { "kind", "tune" }, { "graph", fs::absolute(input).string() },
                { "strategy", tuneStrategyName(options.strategy) }, { "budget", std::to_string(options.budget) },
                { "batch", std::to_string(options.batch) }, { "seed", std::to_string(options.seed) },
                { "space", space.origin }, { "weights", p.values("--weights").front() } });
        run = std::make_unique<RunWriter>(p.value("--project"), id);
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
        "written: %s (top.npz, top.csv, layouts.txt, history.csv, summary.json)\n", p.value("--output").c_str());
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
    ArgParser p(kCommand,
        "Search the layout configurations of a module (or the tile configs of a kernel) that the model predicts\n"
        "fastest, as the XTAT autotuner does with its learned cost model: candidates are scored in batches (one\n"
        "forward pass per member scores a batch), never twice, within a budget of model evaluations. The space:\n"
        "an HLO module's layout choices for its configurable nodes (convolution, dot, reshape), starting from the\n"
        "compiler default; for a .npz graph without its module, every combination of the layouts each\n"
        "configurable node takes in the file's configs; for a tile kernel, its listed configs. With cross-config\n"
        "attention a score depends on its batch, so the best candidates of the search are re-scored together in\n"
        "one batch and that decides the top-k (a model trained with --cross-attn off scores batch-independently).\n"
        "The top-k and the default are verified by the simulator (--simulate) or by your command (--measure).",
        "MODULE|GRAPH --weights W [--strategy sa|evo|random|exhaustive] [--budget N] [--batch B] [--top-k K]\n"
        "              [--simulate | --measure 'CMD {config_file}'] [--seed S] [-o DIR] [--project P.tgproj]");
    p.addPositional("MODULE|GRAPH",
        "an HLO module (text or protobuf), a layout tuning record, a TpuGraphs layout .npz or a tile .npz");
    p.addOption("--weights", "-w", "W",
        "the model: a weights .npz, a checkpoint or an ensemble.json (repeat for an ensemble: mean of the members' "
        "scores)");
    p.addOption("--strategy", "", "S", "sa (simulated annealing), evo (evolutionary), random or exhaustive", "sa",
        opt::oneOf(
            { TuneStrategy::Annealing, TuneStrategy::Evolutionary, TuneStrategy::Random, TuneStrategy::Exhaustive },
            tuneStrategyName)
            .alias("annealing", "sa")
            .alias("evolutionary", "evo"));
    p.addOption(
        "--budget", "", "N", "model evaluations (candidates scored, the default included)", "2000", opt::integer(1));
    p.addOption("--batch", "", "B", "candidates per forward pass", "64", opt::integer(1, 100000));
    p.addOption("--top-k", "-k", "K", "configurations to keep and verify (default: 10 for layouts, 5 for tiles)", {},
        opt::integer(1));
    p.addOption("--simulate", "", "", "verify the top-k and the default with the cost simulator (needs the module)");
    p.addOption("--measure", "", "CMD",
        "verify with your command, run by /bin/sh with {config_file} replaced by a JSON file of the config (its "
        "layout values and minor-to-major layouts per instruction); the last number it prints is the runtime in ns");
    p.addOption("--measure-timeout", "", "SECONDS", "--measure: kill a measurement after this long", "600",
        opt::duration(1, 86400));
    p.addOption("--space", "", "auto|module|file",
        "module: the module's layout choices; file: the per-node layouts of the file's configs; auto: module when "
        "the module is known (HLO input, --module, or a tgraph synth graph), else file",
        "auto", opt::oneOf({ "auto", "module", "file" }));
    p.addOption("--module", "", "FILE", "the .npz graph's HLO module (text or protobuf) for the space and --simulate");
    p.addOption("--params", "", "LIST", "simulator parameters to change, name=value[,...] (tgraph synth --explain)", {},
        simulatorParamsType());
    p.addOption("--seed", "", "S", "seed of the search", "1", opt::size());
    p.addOption("--output", "-o", "DIR",
        "results: top.npz (the top-k as a graph file, runtimes as verified), top.csv, layouts.txt, history.csv, "
        "summary.json, configs/ (--measure)",
        "tgraph-tune");
    p.addOption("--project", "", "P.tgproj", "also record the search as a run of this project");
    p.addOption("--experiment", "", "NAME", "project: the run's experiment", "Tune");
    p.addOption("--run-name", "", "NAME", "project: the run's name (default: run-N)");
    p.addOption("--threads", "", "T", "LibTorch threads (0 = all cores)", "0", threadsType());
    addPrecisionOption(p);
    p.addNote("Exit codes: 0 ok, 1 bad input, 2 usage error, 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError(kCommand, p.positionals().empty() ? "missing MODULE|GRAPH" : "exactly one input expected");
    if (p.values("--weights").empty())
        return usageError(kCommand, "missing --weights W");
    if (p.has("--simulate") && p.has("--measure"))
        return usageError(kCommand, "--simulate and --measure exclude each other");
    if (p.has("--measure") && p.value("--measure").empty())
        return usageError(kCommand, "--measure needs a command");
    return guarded(kCommand, tune, p);
}

} // namespace tgraph::cli
