// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/graphio.h"
#include "core/synthetic.h"

#include <charconv>
#include <cstdio>

namespace tgraph::cli {

namespace {

template <class T> bool parseNumber(const std::string& text, T* out)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && end == text.data() + text.size();
}

int synth(const ArgParser& p)
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

} // namespace

int runSynth(const std::vector<std::string>& args)
{
    ArgParser p("synth",
        "Write a synthetic TpuGraphs layout graph: a topologically ordered DAG with convolution, dot and\n"
        "reshape configurable nodes, -1..5 layout rows, some repeated configs, and runtimes from a simple\n"
        "additive cost of the layout choices. Marked synthetic; for demos, tests and benchmarks.",
        "-o OUT.npz [--nodes N] [--configurable N] [--configs N] [--duplicates F] [--seed S] [--stored]");
    p.addOption("--output", "-o", "OUT.npz", "output file");
    p.addOption("--nodes", "", "N", "number of nodes", "1000");
    p.addOption("--configurable", "", "N", "number of configurable nodes", "40");
    p.addOption("--configs", "", "N", "number of configurations", "200");
    p.addOption("--duplicates", "", "F", "fraction of configurations that repeat an earlier one", "0.05");
    p.addOption("--seed", "", "S", "random seed", "1");
    p.addOption("--stored", "", "", "write members uncompressed (np.savez) instead of deflated");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (!p.positionals().empty())
        return usageError("synth", "unexpected argument '" + p.positionals().front() + "'");
    if (p.value("--output").empty())
        return usageError("synth", "missing -o OUT.npz");
    int64_t nodes = 0, configurable = 0, configs = 0;
    uint64_t seed = 0;
    double duplicates = 0;
    if (!parseNumber(p.value("--nodes"), &nodes) || nodes < 2)
        return usageError("synth", "--nodes must be an integer >= 2");
    if (!parseNumber(p.value("--configurable"), &configurable) || configurable < 1 || configurable >= nodes / 2)
        return usageError("synth", "--configurable must be an integer in 1 .. nodes/2 - 1");
    if (!parseNumber(p.value("--configs"), &configs) || configs < 1)
        return usageError("synth", "--configs must be an integer >= 1");
    if (!parseNumber(p.value("--duplicates"), &duplicates) || duplicates < 0 || duplicates > 1)
        return usageError("synth", "--duplicates must be a number in 0..1");
    if (!parseNumber(p.value("--seed"), &seed))
        return usageError("synth", "--seed must be a non-negative integer");
    return guarded("synth", synth, p);
}

} // namespace tgraph::cli
