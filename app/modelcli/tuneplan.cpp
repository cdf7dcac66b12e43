// SPDX-License-Identifier: Apache-2.0
// `tgraph tune`'s plan: its options and the one function that checks them (tuneplan.h).

#include "tuneplan.h"

#include "app/cli/sharedoptions.h"

namespace tgraph::cli {

namespace {

constexpr const char* kCommand = "tune";

} // namespace

ArgParser tuneArgumentParser()
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
        "the model: a weights .npz, a checkpoint, an ensemble file or an ensemble.json (repeat for an ensemble: mean "
        "of the members' scores)");
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
    return p;
}

TunePlan resolveTunePlan(const ArgParser& p)
{
    TunePlan plan;
    if (p.positionals().size() != 1)
        plan.error = p.positionals().empty() ? "missing MODULE|GRAPH" : "exactly one input expected";
    else if (p.values("--weights").empty())
        plan.error = "missing --weights W";
    else if (p.has("--simulate") && p.has("--measure"))
        plan.error = "--simulate and --measure exclude each other";
    else if (p.has("--measure") && p.value("--measure").empty())
        plan.error = "--measure needs a command";
    if (!plan.ok())
        return plan;
    plan.input = p.positionals().front();
    plan.weights = p.values("--weights");
    plan.space = p.value("--space");
    plan.moduleFile = p.value("--module");
    plan.simulatorParams = p.value("--params");
    plan.search.strategy = p.get<TuneStrategy>("--strategy");
    plan.search.budget = p.get<int64_t>("--budget");
    plan.search.batch = p.get<int64_t>("--batch");
    plan.search.seed = p.get<uint64_t>("--seed");
    if (p.has("--top-k"))
        plan.topK = p.get<int64_t>("--top-k");
    plan.threads = p.get<int>("--threads");
    plan.precision = precisionOption(p);
    plan.simulate = p.has("--simulate");
    plan.measureCommand = p.value("--measure");
    plan.measureTimeout = p.get<std::chrono::milliseconds>("--measure-timeout");
    plan.outputDir = p.value("--output");
    plan.projectPath = p.value("--project");
    plan.experiment = p.value("--experiment");
    plan.runName = p.value("--run-name");
    return plan;
}

} // namespace tgraph::cli
