// SPDX-License-Identifier: Apache-2.0
#include "model/infer/explainsimulator.h"

#include "core/hlo/featurizer.h"
#include "core/hlo/hloinput.h"
#include "core/hlo/hlotext.h"
#include "core/synth/synthcollection.h"
#include "core/util/error.h"
#include "core/util/json.h"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <sstream>

namespace tgraph::model {

namespace fs = std::filesystem;

namespace {

// Empty when `module` has the graph's nodes (count and TpuGraphs opcode at every position), else why not.
std::string mismatch(const HloModule& module, const LayoutGraph& graph)
{
    const int64_t n = graph.nodeCount();
    if (int64_t(module.instructions.size()) != n)
        return std::to_string(module.instructions.size()) + " instructions for " + std::to_string(n) + " graph nodes";
    for (int64_t i = 0; i < n; ++i) {
        const int op = featurizedOpcode(module.instructions[size_t(i)].opcode);
        if (op != graph.nodeOpcode[i])
            return "instruction " + std::to_string(i) + " (" + std::string(module.instructions[size_t(i)].name)
                + ") has opcode id " + std::to_string(op) + " but node " + std::to_string(i) + " has "
                + std::to_string(graph.nodeOpcode[i]);
    }
    return {};
}

std::string numberText(double v)
{
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

} // namespace

LinkedModule linkModuleFile(const LayoutGraph& graph, const std::string& graphFile, const std::string& moduleFile)
{
    if (detectInputKind(moduleFile) == InputKind::Npz)
        throw InputError(moduleFile, "", "is a TpuGraphs .npz; --module takes the HLO module (text or protobuf)");
    HloInputFile input = readHloInput(moduleFile); // attributes kept: backend_config holds while trip counts
    std::string why;
    for (ModuleTuningData& data : input.modules) {
        const std::string problem = mismatch(data.module, graph);
        if (problem.empty()) {
            LinkedModule link;
            link.module = std::make_shared<const HloModule>(std::move(data.module));
            link.source = moduleFile;
            return link;
        }
        why = problem;
    }
    throw InputError(moduleFile, "", "is not the module of " + graphFile + ": " + (why.empty() ? "no module" : why));
}

std::optional<LinkedModule> linkModule(
    const LayoutGraph& graph, std::shared_ptr<const HloModule> module, const std::string& source, std::string* why)
{
    if (const std::string problem = mismatch(*module, graph); !problem.empty()) {
        *why = "the module does not match the graph: " + problem;
        return std::nullopt;
    }
    LinkedModule link;
    link.module = std::move(module);
    link.source = source;
    return link;
}

std::optional<LinkedModule> regenerateSynthModule(const LayoutGraph& graph, std::string* why)
{
    std::string family;
    uint64_t seed = 0;
    // The command lines add how to give the module (explain, tune: --module FILE).
    const std::string notSynth = "the graph file does not hold its HLO module and is not from tgraph synth (whose "
                                 "module is generated again)";
    if (graph.syntheticMeta.empty()) {
        *why = notSynth;
        return std::nullopt;
    }
    try {
        const Json meta = parseJson(graph.syntheticMeta);
        if (!meta.contains("generator") || jsonString(meta, "generator") != "tgraph synth") {
            *why = notSynth;
            return std::nullopt;
        }
        family = jsonString(meta, "family");
        seed = jsonUnsigned(meta, "seed");
    } catch (const std::exception& e) {
        *why = std::string("meta_synthetic cannot be read: ") + e.what();
        return std::nullopt;
    }
    // The generator grows modules in whole blocks up to the requested size: search the smallest
    // request reaching the graph's node count, then require the exact module.
    const int64_t nodes = graph.nodeCount();
    auto countAt = [&](int64_t size) { return int64_t(generatedModule(family, size, seed).instructions.size()); };
    try {
        int64_t lo = 50;
        int64_t hi = std::max<int64_t>(nodes, 64);
        while (countAt(hi) < nodes) {
            if (hi > 4 * nodes + 4096) {
                *why = "no generated " + family + " module reaches " + std::to_string(nodes) + " nodes";
                return std::nullopt;
            }
            lo = hi + 1;
            hi *= 2;
        }
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (countAt(mid) >= nodes)
                hi = mid;
            else
                lo = mid + 1;
        }
        HloModule module = generatedModule(family, lo, seed);
        if (const std::string problem = mismatch(module, graph); !problem.empty()) {
            *why = "the regenerated " + family + " module (seed " + std::to_string(seed) + ") differs: " + problem;
            return std::nullopt;
        }
        LinkedModule link;
        link.module = std::make_shared<const HloModule>(std::move(module));
        link.source = "regenerated: tgraph synth family " + family + ", seed " + std::to_string(seed) + ", size "
            + std::to_string(lo);
        return link;
    } catch (const std::exception& e) {
        *why = "cannot regenerate the " + family + " module: " + e.what();
        return std::nullopt;
    }
}

SimulatorParams simulatorParamsOf(const LayoutGraph& graph, const std::string& overrides, const std::string& source)
{
    SimulatorParams params;
    std::string error;
    if (!graph.syntheticMeta.empty()) {
        try {
            const Json meta = parseJson(graph.syntheticMeta);
            if (meta.contains("simulator")) {
                std::string recorded;
                for (const auto& [name, value] : jsonObject(meta, "simulator").items())
                    if (value.is_number())
                        recorded += (recorded.empty() ? "" : ",") + name + "=" + numberText(value.get<double>());
                SimulatorParams fromMeta = params;
                if (fromMeta.assign(recorded, &error))
                    params = fromMeta; // a value out of range keeps the defaults (the file is still usable)
            }
        } catch (const std::exception&) {
            // An unreadable meta_synthetic: the defaults.
        }
    }
    if (!params.assign(overrides, &error))
        throw InputError(source, "--params", error);
    return params;
}

void addSimulatorBreakdown(
    Attribution& out, const LayoutGraph& fileGraph, const PrunedGraph& pruned, const LinkedModule& link)
{
    const std::vector<int64_t> ids(
        fileGraph.nodeConfigIds.data(), fileGraph.nodeConfigIds.data() + fileGraph.configurableCount());
    const LayoutSimulator sim(*link.module, ids, link.params);
    const float* rowA = fileGraph.nodeConfigFeat.row(out.configA);
    const float* rowB = fileGraph.nodeConfigFeat.row(out.configB);
    const std::vector<double> a = sim.breakdown(rowA);
    const std::vector<double> b = sim.breakdown(rowB);
    out.moduleSource = link.source;
    out.simulatedTotalA = sim.runtime(rowA);
    out.simulatedTotalB = sim.runtime(rowB);

    const size_t rowSize = size_t(fileGraph.nodeConfigFeat.rowSize());
    std::vector<float> variant(rowSize);
    for (NodeAttribution& n : out.nodes) {
        n.simulatedA = a[size_t(n.fileNode)];
        n.simulatedB = b[size_t(n.fileNode)];
        if (!n.layoutDiffers())
            continue;
        // The simulator's counterfactuals: one node's 18 values swapped, as the model's.
        const size_t at = size_t(n.configurable) * kLayoutConfigFeatures;
        std::copy_n(rowB, rowSize, variant.begin());
        std::copy_n(rowA + at, kLayoutConfigFeatures, variant.begin() + int64_t(at));
        n.simulatedEffectOnB = sim.runtime(variant.data()) - out.simulatedTotalB;
        std::copy_n(rowA, rowSize, variant.begin());
        std::copy_n(rowB + at, kLayoutConfigFeatures, variant.begin() + int64_t(at));
        n.simulatedEffectOnA = sim.runtime(variant.data()) - out.simulatedTotalA;
    }

    out.simulated.clear();
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] == b[i])
            continue;
        SimulatedInstruction s;
        s.fileNode = int64_t(i);
        s.node = i < pruned.oldToNew.size() ? pruned.oldToNew[i] : -1;
        s.name = std::string(link.module->instructions[i].name);
        s.opcode = std::string(link.module->instructions[i].opcode);
        s.nsA = a[i];
        s.nsB = b[i];
        out.simulated.push_back(std::move(s));
    }
    std::stable_sort(out.simulated.begin(), out.simulated.end(),
        [](const auto& x, const auto& y) { return std::abs(x.nsA - x.nsB) > std::abs(y.nsA - y.nsB); });
    // Instruction names for the model's nodes too.
    for (NodeAttribution& n : out.nodes)
        n.name = std::string(link.module->instructions[size_t(n.fileNode)].name);
}

std::shared_ptr<const HloModule> moduleOfGraphFile(
    const LayoutGraph& graph, const std::string& path, std::string* source, std::string* why)
{
    const fs::path file(path);
    std::string tried;
    for (const char* ext : { ".pb", ".hlo", ".txt" }) {
        fs::path beside = file;
        beside.replace_extension(ext);
        std::error_code ec;
        if (!fs::is_regular_file(beside, ec))
            continue;
        // A file beside the graph that is not its module is an error naming it (not a silent miss).
        LinkedModule link = linkModuleFile(graph, path, beside.string());
        *source = beside.string();
        return link.module;
    }
    if (std::optional<LinkedModule> link = regenerateSynthModule(graph, why)) {
        *source = link->source;
        return link->module;
    }
    *why = "no " + file.stem().string() + ".pb, .hlo or .txt beside it, and " + *why;
    return nullptr;
}

} // namespace tgraph::model
