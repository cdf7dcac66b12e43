// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/graph/configs.h"
#include "core/util/error.h"
#include "core/graph/graphio.h"
#include "core/io/npz.h"
#include "core/graph/prune.h"

#include <cstdio>

namespace tgraph::cli {

namespace {

void row(const char* label, const std::string& text) { std::printf("  %-14s %s\n", label, text.c_str()); }

std::string arrow(int64_t before, int64_t after) { return std::to_string(before) + " -> " + std::to_string(after); }

int prune(const ArgParser& p)
{
    const std::string in = p.positionals().front();
    const std::string out = p.value("--output");
    const DedupPolicy policy = p.get<DedupPolicy>("--dedup");

    TerminalProgress progress;
    GraphLoadOptions load;
    load.progress = &progress;
    load.repadLayout = p.has("--repad");
    NpzReader npz(in);
    if (detectGraphKind(npz) != GraphKind::Layout)
        throw InputError(in, "", "is a tile graph; only layout graphs are pruned (tile kernels are used whole)");
    const LayoutGraph source = readLayoutGraph(npz, load);

    PrunedGraph pruned = pruneToConfigurable(source, in);
    LayoutGraph& g = pruned.graph;
    const DedupResult dedup = dedupConfigs(g.nodeConfigFeat, g.configRuntime, policy);
    if (policy != DedupPolicy::None)
        applyDedup(g, dedup);

    GraphWriteOptions write;
    write.compressed = !p.has("--stored");
    write.compressConfigs = p.has("--compress");
    write.progress = &progress;
    saveLayoutGraph(g, out, write);

    std::printf("pruned %s -> %s\n", in.c_str(), out.c_str());
    row("nodes", arrow(source.nodeCount(), g.nodeCount()));
    row("edges", arrow(source.edgeCount(), g.edgeCount()));
    row("configurable", std::to_string(g.configurableCount()));
    std::string configs = arrow(source.configCount(), g.configCount());
    if (policy != DedupPolicy::None)
        configs
            += std::string(" (dedup ") + dedupPolicyName(policy) + ": " + std::to_string(dedup.removed) + " removed)";
    row("configs", configs);
    row("config format", write.compressConfigs ? "base-7 int32 (C, Nc, 3)" : "float32 (C, Nc, 18)");
    return ExitOk;
}

} // namespace

int runPrune(const std::vector<std::string>& args)
{
    ArgParser p("prune",
        "Prune a layout graph to its configurable nodes and their 1-hop neighbours (edges with a\n"
        "configurable endpoint are kept, node order is preserved), optionally de-duplicate\n"
        "configurations and store them base-7 compressed. The output loads with numpy.",
        "IN.npz -o OUT.npz [--dedup keep-first|keep-min|none] [--compress] [--stored] [--repad]");
    p.addPositional("IN.npz", "a TpuGraphs layout graph");
    p.addOption("--output", "-o", "OUT.npz", "output file (written to a temporary name, renamed on success)");
    p.addOption("--dedup", "", "POLICY",
        "drop repeated configurations: keep-first (authors' code: first row and its runtime), keep-min "
        "(paper: smallest runtime of the group) or none",
        "none", opt::oneOf({ DedupPolicy::KeepFirst, DedupPolicy::KeepMin, DedupPolicy::None }, dedupPolicyName));
    p.addOption("--compress", "", "", "store node_config_feat base-7 compressed as int32 (C, Nc, 3)");
    p.addOption("--stored", "", "", "write members uncompressed (np.savez) instead of deflated (np.savez_compressed)");
    p.addOption("--repad", "", "", "re-pad node_feat layout columns 134..139 with -1 from the shape rank");
    p.addNote("Before/after counts are printed on stdout. Exit codes: 0 ok, 1 bad input, 2 usage error.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError("prune", p.positionals().empty() ? "no input file" : "exactly one input file expected");
    if (p.value("--output").empty())
        return usageError("prune", "missing -o OUT.npz");
    return guarded("prune", prune, p);
}

} // namespace tgraph::cli
