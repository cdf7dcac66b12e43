// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "sharedoptions.h"
#include "terminalprogress.h"

#include "core/util/error.h"
#include "core/graph/graphio.h"
#include "core/synth/hlogen.h"
#include "core/synth/synthcollection.h"
#include "core/synth/synthetic.h"

#include <cstdio>
#include <stdexcept>

namespace tgraph::cli {

namespace {

// A single random TpuGraphs-shaped layout graph (no HLO module behind it).
int synthGraph(const ArgParser& p)
{
    SyntheticLayoutSpec spec;
    spec.nodes = p.get<int64_t>("--nodes");
    spec.configurableNodes = p.get<int64_t>("--configurable");
    spec.configs = p.get<int64_t>("--configs");
    spec.duplicateFraction = p.get<double>("--duplicates");
    spec.seed = p.get<uint64_t>("--seed");
    const LayoutGraph g = makeSyntheticLayoutGraph(spec);
    TerminalProgress progress;
    GraphWriteOptions write;
    write.compressed = !p.has("--stored");
    write.progress = &progress;
    saveLayoutGraph(g, p.value("--output"), write);
    std::printf("wrote %s: synthetic layout graph, %lld nodes, %lld edges, %lld configurable, %lld configs\n",
        p.value("--output").c_str(), (long long)g.nodeCount(), (long long)g.edgeCount(),
        (long long)g.configurableCount(), (long long)g.configCount());
    return ExitOk;
}

int synthCollection(const ArgParser& p)
{
    SynthCollectionSpec spec;
    spec.kind = p.value("--collection") == "tile" ? GraphKind::Tile : GraphKind::Layout;
    spec.sampler = p.get<LayoutSampler>("--sampler");
    spec.graphs = p.get<int>("--graphs");
    spec.configs = p.get<int64_t>("--configs");
    spec.seed = p.get<uint64_t>("--seed");
    spec.minInstructions = p.get<int64_t>("--min-size");
    spec.maxInstructions = p.get<int64_t>("--max-size");
    std::string error;
    if (!spec.params.assign(p.value("--params"), &error)) // checked by the parser
        throw std::logic_error(error);
    spec.families = p.get<std::vector<std::string>>("--families");
    const std::string out = p.value("--output");
    if (spec.minInstructions > spec.maxInstructions)
        throw InputError("--min-size/--max-size",
            std::to_string(spec.minInstructions) + ".." + std::to_string(spec.maxInstructions),
            "module sizes must satisfy --min-size <= --max-size");
    TerminalProgress progress;
    const SynthCollectionResult r = writeSynthCollection(spec, out, &progress);
    std::printf(
        "wrote %s: synthetic %s collection (%s sampler), %d train / %d valid / %d test graphs, %lld configs in all\n",
        out.c_str(), graphKindName(spec.kind),
        spec.kind == GraphKind::Tile ? "tile-size" : layoutSamplerName(spec.sampler), r.train, r.valid, r.test,
        (long long)r.configs);
    return ExitOk;
}

} // namespace

int runSynth(const std::vector<std::string>& args)
{
    ArgParser p("synth",
        "Write synthetic TpuGraphs data whose runtimes come from the analytical cost simulator.\n"
        "  Collection: modules from the HLO generators (see gen-hlo), layout or tile configurations, and\n"
        "  simulated runtimes, as DIR/{train,valid,test}/*.npz in the published layout plus meta_synthetic\n"
        "  (test files carry zero runtimes, like the published test split).\n"
        "  Single graph: without --collection, one random TpuGraphs-shaped layout graph -o OUT.npz.",
        "--collection layout|tile -o DIR [--sampler random|default] [--graphs N] [--configs C] [--seed S]\n"
        "              [--families a,b] [--min-size N] [--max-size N] [--params LIST]\n"
        "              | -o OUT.npz [--nodes N ...] | --explain [--params LIST]");
    std::string families;
    for (const auto& f : hloGenFamilies())
        families += (families.empty() ? "" : ", ") + f;
    p.addOption("--output", "-o", "OUT", "output directory (collections) or .npz file (single graph)");
    p.addOption("--collection", "", "KIND", "layout or tile: write a collection into -o DIR", {},
        opt::oneOf({ "layout", "tile" }));
    p.addOption("--sampler", "", "S",
        "layout configs: random (uniform per node, like layout:*:random) or default (a local search around the "
        "compiler default, like layout:*:default)",
        "random", opt::oneOf({ LayoutSampler::Random, LayoutSampler::Default }, layoutSamplerName));
    p.addOption("--graphs", "", "N", "graphs in the collection (layout: modules; tile: kernels)", "20",
        opt::integer(1, 100000));
    p.addOption("--configs", "", "C", "configurations per graph (fewer when a graph has fewer; collections: >= 2)",
        "200", opt::integer(1));
    p.addOption("--families", "", "LIST",
        "comma-separated generator families out of " + families + " (default: all, in turn)", {},
        opt::names(hloGenFamilies()));
    p.addOption("--min-size", "", "N", "smallest generated module, instructions", "300", opt::integer(50, 1000000));
    p.addOption("--max-size", "", "N", "largest generated module, instructions (>= --min-size)", "3000",
        opt::integer(50, 1000000));
    p.addOption("--seed", "", "S", "random seed", "1", opt::size());
    p.addOption("--params", "", "LIST",
        "simulator parameters to change, name=value[,name=value...] (see --explain for names and defaults)", {},
        simulatorParamsType());
    p.addOption("--explain", "", "", "print the simulator's parameters (with --params applied) and exit");
    p.addOption("--nodes", "", "N", "single graph: number of nodes", "1000", opt::integer(2));
    p.addOption(
        "--configurable", "", "N", "single graph: number of configurable nodes (< nodes / 2)", "40", opt::integer(1));
    p.addOption("--duplicates", "", "F", "single graph: share of configurations repeating an earlier one", "0.05",
        opt::real(0, 1));
    p.addOption("--stored", "", "", "single graph: write members uncompressed");
    p.addNote("The simulator is described in docs/simulator.md.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    SimulatorParams params;
    if (std::string error; !params.assign(p.value("--params"), &error)) // checked by the parser
        throw std::logic_error(error);
    if (p.has("--explain")) {
        std::printf("Analytical TPU-like cost simulator (synthetic runtimes; see docs/simulator.md):\n%s",
            params.explain().c_str());
        return ExitOk;
    }
    if (!p.positionals().empty())
        return usageError("synth", "unexpected argument '" + p.positionals().front() + "'");
    if (p.value("--output").empty())
        return usageError("synth", "missing -o OUT");
    if (p.has("--collection")) {
        if (p.get<int64_t>("--configs") < 2)
            return usageError("synth", "--configs must be >= 2 for a collection");
        return guarded("synth", synthCollection, p);
    }
    if (p.get<int64_t>("--configurable") >= p.get<int64_t>("--nodes") / 2)
        return usageError("synth", "--configurable must be an integer in 1 .. nodes/2 - 1");
    return guarded("synth", synthGraph, p);
}

} // namespace tgraph::cli
