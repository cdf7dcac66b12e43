// SPDX-License-Identifier: Apache-2.0
// `tgraph explain`: why the TGraph model ranks one layout configuration faster than another. Per
// node: the exact share of each score (linear head over mean-pooled node embeddings), the
// counterfactual effect of swapping one configurable node's layout between the two configs, the
// layout values that differ, and, when the graph's HLO module is known, the cost simulator's own
// per-instruction breakdown side by side (model/infer/explain.h, model/infer/explainsimulator.h).

#include "precisionoption.h"

#include "app/cli/argparser.h"
#include "app/cli/commands.h"
#include "app/cli/sharedoptions.h"
#include "app/cli/terminalprogress.h"

#include "core/util/error.h"
#include "core/util/format.h"
#include "core/graph/opcodes.h"
#include "core/sim/simulator.h"
#include "model/infer/explain.h"
#include "model/runtime/torchruntime.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace tgraph::cli {

namespace {

constexpr const char* kCommand = "explain";

// --config / --vs: a config index, fastest, slowest or default (core/results/attribution.h).
OptionType configSelectorType()
{
    return opt::custom("a config index, fastest, slowest or default", [](const std::string& text) {
        ConfigSelector selector;
        return parseConfigSelector(text, &selector) ? std::string() : std::string("not a config");
    });
}

ConfigSelector configSelector(const std::string& text)
{
    ConfigSelector selector;
    if (!parseConfigSelector(text, &selector)) // checked by the parser
        throw std::logic_error("unchecked config selector " + text);
    return selector;
}

// A signed number in a fixed width, "-" when not computed.
std::string cell(double v, int width, const char* format = "%+.4g")
{
    char buf[48];
    if (!std::isfinite(v))
        std::snprintf(buf, sizeof buf, "%*s", width, "-");
    else {
        char number[32];
        std::snprintf(number, sizeof number, format, v);
        std::snprintf(buf, sizeof buf, "%*s", width, number);
    }
    return buf;
}

// Right-aligned in `width` columns, counting UTF-8 characters ("µs" is one column, two bytes).
std::string padLeft(const std::string& text, size_t width)
{
    size_t columns = 0;
    for (unsigned char c : text)
        columns += (c & 0xc0) != 0x80;
    return columns >= width ? text : std::string(width - columns, ' ') + text;
}

std::string durationCell(double ns, size_t width)
{
    return padLeft(std::isfinite(ns) ? formatDuration(std::llround(ns)) : "-", width);
}

std::string signedDuration(double ns, size_t width)
{
    if (!std::isfinite(ns))
        return padLeft("-", width);
    return padLeft((ns < 0 ? "-" : "+") + formatDuration(std::llround(std::abs(ns))), width);
}

std::string clip(const std::string& text, size_t width)
{
    return text.size() <= width ? text : text.substr(0, width - 1) + "~";
}

void printConfigLine(const char* which, const std::string& label, double score, double share, double bias, int64_t rank,
    int64_t configs, int64_t runtime, double simulated)
{
    std::printf("  %s %-30s score %+.6f = bias %+.6f + shares %+.6f", which, label.c_str(), score, bias, share);
    if (rank > 0)
        std::printf("; predicted rank %lld of %lld", (long long)rank, (long long)configs);
    if (runtime > 0)
        std::printf("; measured %s", formatDuration(runtime).c_str());
    if (std::isfinite(simulated))
        std::printf("; simulated %s", formatDuration(std::llround(simulated)).c_str());
    std::printf("\n");
}

void printText(const Attribution& a, AttributionOrder order, int64_t top, const std::string& moduleNote)
{
    std::printf("%s: %s vs %s\n", a.file.c_str(), a.labelA.c_str(), a.labelB.c_str());
    std::printf("  model: %d member%s, cross-attn %s; graph: %lld nodes, %lld after pruning (the model's graph), "
                "%lld configurations\n",
        a.members, a.members == 1 ? "" : "s (means over members)", a.crossAttention ? "on" : "off",
        (long long)a.nodesBeforePruning, (long long)a.nodeCount(), (long long)a.configs);
    printConfigLine("A", a.labelA, a.scoreA, a.shareSumA(), a.bias, a.rankA, a.configs, a.runtimeA, a.simulatedTotalA);
    printConfigLine("B", a.labelB, a.scoreB, a.shareSumB(), a.bias, a.rankB, a.configs, a.runtimeB, a.simulatedTotalB);
    std::printf("  score A - B = %+.6f (higher score = predicted slower)\n", a.scoreA - a.scoreB);
    int64_t configurable = 0;
    for (const auto& n : a.nodes)
        configurable += n.configurable >= 0;
    std::printf("  %lld of %lld configurable nodes have different layouts", (long long)a.differingNodes,
        (long long)configurable);
    if (!a.counterfactualBatchSizes.empty()) {
        int64_t largest = 0;
        for (int64_t s : a.counterfactualBatchSizes)
            largest = std::max(largest, s);
        std::printf("; counterfactuals: %lld variants in %zu forward pass%s of <= %lld configs (A and B in each)",
            (long long)(2 * a.differingNodes), a.counterfactualBatchSizes.size(),
            a.counterfactualBatchSizes.size() == 1 ? "" : "es", (long long)largest);
    }
    std::printf("\n\n");

    const bool simulated = !a.moduleSource.empty();
    std::printf("%4s %6s %-22s %-13s %10s %10s %10s %10s %10s %10s", "rank", "node", "name", "opcode", "share A",
        "share B", "A - B", "effect", "B+A's", "A+B's");
    if (simulated)
        std::printf(" %10s %10s %11s", "sim A", "sim B", "sim effect");
    std::printf("  layout values that differ (A | B)\n");
    const std::vector<size_t> ranked = rankedNodes(a, order);
    const size_t rows = top > 0 ? std::min(ranked.size(), size_t(top)) : ranked.size();
    for (size_t r = 0; r < rows; ++r) {
        const NodeAttribution& n = a.nodes[ranked[r]];
        std::printf("%4zu %6lld %-22s %-13s %s %s %s %s %s %s", r + 1, (long long)n.fileNode,
            clip(n.name.empty() ? "-" : n.name, 22).c_str(), clip(opcodeName(n.opcode), 13).c_str(),
            cell(n.shareA, 10).c_str(), cell(n.shareB, 10).c_str(), cell(n.difference(), 10).c_str(),
            cell(n.effect(), 10).c_str(), cell(n.effectOnB, 10).c_str(), cell(n.effectOnA, 10).c_str());
        if (simulated) {
            const double e = n.simulatedEffect();
            std::printf(" %s %s %s", durationCell(n.simulatedA, 10).c_str(), durationCell(n.simulatedB, 10).c_str(),
                signedDuration(e, 11).c_str());
        }
        std::printf("  %s\n", n.configurable < 0 ? "(not configurable)" : layoutDifferenceText(n).c_str());
    }
    std::printf(
        "\nshare: the node's part of the score, w . h_n / N (shares + bias = score, exact). effect: how much "
        "better A's layout of the node is,\n(score(A with B's layout of it) - score(A) + score(B) - score(B "
        "with A's)) / 2, > 0 = A's choice predicted faster; B+A's = score(B with A's layout of the\nnode) - "
        "score(B), A+B's = score(A with B's) - score(A), each within one forward pass. Layout values are "
        "minor-to-major dims\nof the output, input and kernel tensors; --json adds gradient x input per value.\n");

    if (simulated) {
        std::printf(
            "\nsimulator (module %s): A %s, B %s, noise-free; instructions whose simulated cost differs most:\n",
            a.moduleSource.c_str(), formatDuration(std::llround(a.simulatedTotalA)).c_str(),
            formatDuration(std::llround(a.simulatedTotalB)).c_str());
        std::printf("%6s %-28s %-16s %10s %10s %11s  %s\n", "node", "name", "opcode", "sim A", "sim B", "A - B",
            "in the model's graph");
        const size_t count = top > 0 ? std::min(a.simulated.size(), size_t(top)) : a.simulated.size();
        for (size_t i = 0; i < count; ++i) {
            const SimulatedInstruction& s = a.simulated[i];
            std::printf("%6lld %-28s %-16s %s %s %s  %s\n", (long long)s.fileNode, clip(s.name, 28).c_str(),
                clip(s.opcode, 16).c_str(), durationCell(s.nsA, 10).c_str(), durationCell(s.nsB, 10).c_str(),
                signedDuration(s.nsA - s.nsB, 11).c_str(), s.node >= 0 ? "yes" : "no (pruned)");
        }
        if (a.simulated.empty())
            std::printf("  (none: the simulator prices A and B the same)\n");
    } else if (!moduleNote.empty()) {
        std::printf("\nsimulator: not shown, %s (--module FILE.hlo gives the graph's module)\n", moduleNote.c_str());
    }
}

int explain(const ArgParser& p)
{
    model::initTorchRuntime(p.get<int>("--threads"));
    applyPrecisionOption(p);
    const ConfigSelector a = configSelector(p.value("--config"));
    const ConfigSelector b = configSelector(p.value("--vs"));
    tgraph::ExplainFileOptions options;
    options.explain.batchConfigs = p.get<int64_t>("--batch-configs");
    options.explain.gradients = p.has("--json"); // only the JSON shows gradient x input (2 backward passes)
    options.repadLayout = p.has("--repad");
    options.rankAll = !p.has("--no-rank");
    options.moduleFile = p.value("--module");
    options.simulatorParams = p.value("--params");
    const int64_t top = p.get<int64_t>("--top");
    const AttributionOrder order = p.value("--sort") == "share" ? AttributionOrder::Share : AttributionOrder::Effect;

    const std::string graph = p.positionals().front();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(graph, ec))
        throw InputError(graph, "", "no such file (explain takes one layout graph: .npz or a tuning record)");
    std::vector<model::EnsembleMember> models
        = model::loadEnsemble(model::expandWeightsArguments(p.values("--weights")));
    std::string moduleNote;
    TerminalProgress progress;
    const Attribution result = model::explainFile(models, graph, a, b, options, &moduleNote, &progress);
    if (p.has("--json"))
        std::fputs(attributionJson(result, order, top).c_str(), stdout);
    else
        printText(result, order, top, moduleNote);
    return ExitOk;
}

} // namespace

int runExplain(const std::vector<std::string>& args)
{
    ArgParser p(kCommand,
        "Explain why the model ranks config A faster (or slower) than config B of a layout graph. The score is a\n"
        "linear head over the mean of node embeddings, so each node's share w . h_n / N is exact (shares + bias =\n"
        "score). For every configurable node whose layout differs, B is scored with that node's layout from A and\n"
        "A with B's (counterfactuals, batched with A and B in every forward pass). Scores and shares are those of\n"
        "tgraph predict without TTA (each config in its array_split chunk of B configs). When the graph's HLO\n"
        "module is known (--module, or regenerated for tgraph synth collections) the cost simulator's\n"
        "per-instruction breakdown of A and B is shown beside.",
        "GRAPH.npz|RECORD.pb --weights W [--weights W2 ...] [--config A] [--vs B|default|slowest|fastest] [--top K]\n"
        "              [--sort effect|share] [--json] [--module FILE.hlo] [--params LIST] [--batch-configs B]\n"
        "              [--threads T] [--repad] [--no-rank]");
    p.addPositional("GRAPH",
        "a TpuGraphs layout graph .npz, or a layout tuning record / HLO module with >= 2 configurations (its module "
        "gives the simulator's side); pruned as in training, node ids are the file's");
    p.addOption("--weights", "-w", "W",
        "a weights .npz or a checkpoint (tgraph train), an ensemble file (tgraph weights combine, train --seeds) or "
        "the ensemble.json of tgraph train --folds; repeat for an ensemble (means over members)");
    p.addOption("--config", "", "A", "config to explain: an index, fastest or slowest (predicted), or default",
        "fastest", configSelectorType());
    p.addOption("--vs", "", "B",
        "config to compare with: an index, default (a tuning record's is_default run, or the config whose layout "
        "values are all -1: row 0 of tgraph synth / simulate files; published TpuGraphs .npz files have none), "
        "slowest or fastest (predicted)",
        "default", configSelectorType());
    p.addOption("--top", "", "K", "rows to print (0 = every node)", "20", opt::integer(0));
    p.addOption("--sort", "", "effect|share",
        "effect: nodes with a different layout by |counterfactual effect|, then the others by |share A - B|; share: "
        "all by |share A - B|",
        "effect", opt::oneOf({ "effect", "share" }));
    p.addOption("--json", "", "", "print the explanation as JSON (rows as ranked, with gradient x input per value)");
    p.addOption("--module", "", "FILE",
        "the graph's HLO module (text or protobuf, as given to tgraph simulate) for the simulator's breakdown");
    p.addOption("--params", "", "LIST",
        "simulator parameters to change, name=value[,...] (names: tgraph synth --explain); the file's recorded "
        "ones apply first",
        {}, simulatorParamsType());
    p.addOption("--batch-configs", "-b", "B",
        "configs per forward pass, as tgraph predict (array_split chunks; with cross-attn the scores depend on it)",
        "128", opt::integer(1));
    p.addOption("--threads", "", "T", "LibTorch threads (0 = all cores)", "0", threadsType());
    addPrecisionOption(p);
    p.addOption("--repad", "", "", "re-pad node_feat layout columns 134..139 with -1 (as the model was trained)");
    p.addOption("--no-rank", "", "",
        "do not score every config for the predicted ranks of A and B (fastest / slowest still do)");
    p.addNote("Exit codes: 0 ok, 1 bad input, 2 usage error, 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError(
            kCommand, p.positionals().empty() ? "missing GRAPH (.npz or tuning record)" : "exactly one graph expected");
    if (p.values("--weights").empty())
        return usageError(kCommand, "missing --weights W");
    return guarded(kCommand, explain, p);
}

} // namespace tgraph::cli
