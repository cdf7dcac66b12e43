// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/util/error.h"
#include "core/graph/graphio.h"
#include "core/synth/hlogen.h"
#include "core/synth/synthcollection.h"
#include "core/synth/synthetic.h"

#include <charconv>
#include <cstdio>
#include <sstream>

namespace tgraph::cli {

namespace {

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

// A single random TpuGraphs-shaped layout graph (no HLO module behind it).
int synthGraph(const ArgParser& p)
{
    SyntheticLayoutSpec spec;
    parseNumber(p.value("--nodes"), &spec.nodes);
    parseNumber(p.value("--configurable"), &spec.configurableNodes);
    parseNumber(p.value("--configs"), &spec.configs);
    parseNumber(p.value("--duplicates"), &spec.duplicateFraction);
    parseNumber(p.value("--seed"), &spec.seed);
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
    parseLayoutSampler(p.value("--sampler"), &spec.sampler);
    parseNumber(p.value("--graphs"), &spec.graphs);
    parseNumber(p.value("--configs"), &spec.configs);
    parseNumber(p.value("--seed"), &spec.seed);
    parseNumber(p.value("--min-size"), &spec.minInstructions);
    parseNumber(p.value("--max-size"), &spec.maxInstructions);
    std::string error;
    spec.params.assign(p.value("--params"), &error); // validated in runSynth
    spec.families = splitList(p.value("--families"));
    const std::string out = p.value("--output");
    for (const auto& f : spec.families) {
        bool known = false;
        for (const auto& k : hloGenFamilies())
            known |= k == f;
        if (!known) {
            std::string list;
            for (const auto& k : hloGenFamilies())
                list += (list.empty() ? "" : ", ") + k;
            throw InputError("--families", f, "unknown generator family (known: " + list + ")");
        }
    }
    if (spec.minInstructions < 50 || spec.maxInstructions > 1000000 || spec.minInstructions > spec.maxInstructions)
        throw InputError("--min-size/--max-size",
            std::to_string(spec.minInstructions) + ".." + std::to_string(spec.maxInstructions),
            "module sizes must satisfy 50 <= min <= max <= 1000000 instructions");
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
    p.addOption("--output", "-o", "OUT", "output directory (collections) or .npz file (single graph)");
    p.addOption("--collection", "", "KIND", "layout or tile: write a collection into -o DIR");
    p.addOption("--sampler", "", "S",
        "layout configs: random (uniform per node, like layout:*:random) or default (a local search around the "
        "compiler default, like layout:*:default)",
        "random");
    p.addOption("--graphs", "", "N", "graphs in the collection (layout: modules; tile: kernels)", "20");
    p.addOption("--configs", "", "C", "configurations per graph (fewer when a graph has fewer)", "200");
    p.addOption("--families", "", "LIST", "comma-separated generator families (default: all, in turn)");
    p.addOption("--min-size", "", "N", "smallest generated module, instructions", "300");
    p.addOption("--max-size", "", "N", "largest generated module, instructions", "3000");
    p.addOption("--seed", "", "S", "random seed", "1");
    p.addOption("--params", "", "LIST",
        "simulator parameters to change, name=value[,name=value...] (see --explain for names and defaults)");
    p.addOption("--explain", "", "", "print the simulator's parameters (with --params applied) and exit");
    p.addOption("--nodes", "", "N", "single graph: number of nodes", "1000");
    p.addOption("--configurable", "", "N", "single graph: number of configurable nodes", "40");
    p.addOption("--duplicates", "", "F", "single graph: share of configurations repeating an earlier one", "0.05");
    p.addOption("--stored", "", "", "single graph: write members uncompressed");
    p.addNote("The simulator is described in docs/simulator.md.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    SimulatorParams params;
    if (std::string error; !params.assign(p.value("--params"), &error))
        return usageError("synth", error);
    if (p.has("--explain")) {
        std::printf("Analytical TPU-like cost simulator (synthetic runtimes; see docs/simulator.md):\n%s",
            params.explain().c_str());
        return ExitOk;
    }
    if (!p.positionals().empty())
        return usageError("synth", "unexpected argument '" + p.positionals().front() + "'");
    if (p.value("--output").empty())
        return usageError("synth", "missing -o OUT");
    int64_t graphs = 0, configs = 0, minSize = 0, maxSize = 0, nodes = 0, configurable = 0;
    uint64_t seed = 0;
    double duplicates = 0;
    if (!parseNumber(p.value("--seed"), &seed))
        return usageError("synth", "--seed must be a non-negative integer");
    if (!parseNumber(p.value("--configs"), &configs) || configs < 1)
        return usageError("synth", "--configs must be an integer >= 1");
    if (p.has("--collection")) {
        const std::string kind = p.value("--collection");
        LayoutSampler sampler;
        if (kind != "layout" && kind != "tile")
            return usageError("synth", "--collection must be layout or tile, not '" + kind + "'");
        if (!parseLayoutSampler(p.value("--sampler"), &sampler))
            return usageError("synth", "--sampler must be random or default");
        if (!parseNumber(p.value("--graphs"), &graphs) || graphs < 1 || graphs > 100000)
            return usageError("synth", "--graphs must be an integer in 1..100000");
        if (configs < 2)
            return usageError("synth", "--configs must be >= 2 for a collection");
        if (!parseNumber(p.value("--min-size"), &minSize) || !parseNumber(p.value("--max-size"), &maxSize))
            return usageError("synth", "--min-size and --max-size must be integers");
        return guarded("synth", synthCollection, p);
    }
    if (!parseNumber(p.value("--nodes"), &nodes) || nodes < 2)
        return usageError("synth", "--nodes must be an integer >= 2");
    if (!parseNumber(p.value("--configurable"), &configurable) || configurable < 1 || configurable >= nodes / 2)
        return usageError("synth", "--configurable must be an integer in 1 .. nodes/2 - 1");
    if (!parseNumber(p.value("--duplicates"), &duplicates) || duplicates < 0 || duplicates > 1)
        return usageError("synth", "--duplicates must be a number in 0..1");
    return guarded("synth", synthGraph, p);
}

} // namespace tgraph::cli
