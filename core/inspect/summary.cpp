// SPDX-License-Identifier: Apache-2.0
#include "core/inspect/summary.h"

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/graph/opcodes.h"
#include "core/hlo/hloinput.h"
#include "core/io/npz.h"
#include "core/util/format.h"
#include "core/util/json.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tgraph {

namespace {

std::vector<std::pair<int, int64_t>> histogram(
    const NdArray<int64_t>& opcodes, const std::vector<int64_t>* only = nullptr)
{
    std::map<int, int64_t> counts;
    if (only) {
        for (int64_t id : *only)
            ++counts[int(opcodes[id])];
    } else {
        for (int64_t op : opcodes.values())
            ++counts[int(op)];
    }
    std::vector<std::pair<int, int64_t>> out(counts.begin(), counts.end());
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return out;
}

void runtimeRange(const NdArray<int64_t>& runtime, GraphSummary& s)
{
    s.hasRuntimes = false;
    for (int64_t r : runtime.values())
        s.hasRuntimes |= r != 0;
    if (!s.hasRuntimes || runtime.empty())
        return;
    const auto [lo, hi] = std::minmax_element(runtime.data(), runtime.data() + runtime.size());
    s.runtimeMin = *lo;
    s.runtimeMax = *hi;
}

std::vector<std::pair<std::string, ArrayStorage>> arraysOf(const std::map<std::string, ArrayStorage>& storage)
{
    return { storage.begin(), storage.end() };
}

} // namespace

GraphSummary summarize(const LayoutGraph& g)
{
    GraphSummary s;
    s.kind = GraphKind::Layout;
    s.nodes = g.nodeCount();
    s.edges = g.edgeCount();
    s.configurableNodes = g.configurableCount();
    s.configs = g.configCount();
    runtimeRange(g.configRuntime, s);
    s.duplicateConfigs = countDuplicateConfigs(g.nodeConfigFeat);
    auto cfg = g.storage.find("node_config_feat");
    s.configsCompressed = cfg != g.storage.end() && cfg->second.dtype.isInteger() && cfg->second.shape.size() == 3
        && cfg->second.shape[2] == 3;
    s.opcodeHistogram = histogram(g.nodeOpcode);
    const std::vector<int64_t> ids(g.nodeConfigIds.data(), g.nodeConfigIds.data() + g.nodeConfigIds.size());
    s.configurableOpcodes = histogram(g.nodeOpcode, &ids);
    s.nodeSplits.assign(g.nodeSplits.data(), g.nodeSplits.data() + g.nodeSplits.size());
    s.arrays = arraysOf(g.storage);
    s.syntheticMeta = g.syntheticMeta;
    return s;
}

GraphSummary summarize(const TileGraph& g)
{
    GraphSummary s;
    s.kind = GraphKind::Tile;
    s.nodes = g.nodeCount();
    s.edges = g.edgeCount();
    s.configs = g.configCount();
    runtimeRange(g.configRuntime, s);
    // Tile configs are rows of config_feat; count exact repeats.
    std::map<std::vector<float>, int> seen;
    for (int64_t c = 0; c < g.configFeat.dim(0); ++c)
        if (seen[std::vector<float>(g.configFeat.row(c), g.configFeat.row(c) + kTileConfigFeatures)]++)
            ++s.duplicateConfigs;
    s.opcodeHistogram = histogram(g.nodeOpcode);
    s.arrays = arraysOf(g.storage);
    s.syntheticMeta = g.syntheticMeta;
    return s;
}

void describeNpzFile(GraphSummary& s, NpzReader& npz)
{
    s.path = npz.path();
    s.fileBytes = npz.fileSize();
    // Every member in archive order, including arrays the graph structs do not use.
    s.arrays.clear();
    for (const auto& key : npz.keys()) {
        const NpyHeader h = npz.header(key);
        s.arrays.emplace_back(key, ArrayStorage { h.dtype, h.shape });
    }
}

GraphSummary summarizeGraphFile(const std::string& path, ProgressSink* progress)
{
    NpzReader npz(path);
    GraphLoadOptions options;
    options.progress = progress;
    GraphSummary s = detectGraphKind(npz) == GraphKind::Layout ? summarize(readLayoutGraph(npz, options))
                                                               : summarize(readTileGraph(npz, options));
    describeNpzFile(s, npz);
    return s;
}

ModuleSummary summarizeModule(const HloInputFile& in, size_t index, const RunSelection& runs)
{
    const ModuleTuningData& data = in.modules[index];
    ModuleSummary ms;
    const HloModule& m = data.module;
    ms.name = std::string(m.name);
    ms.format = hloSourceFormatName(in.format);
    ms.index = int(index);
    ms.count = int(in.modules.size());
    ms.entry = m.computations.empty() ? std::string() : std::string(m.computations[size_t(m.entryIndex())].name);
    ms.computations = int64_t(m.computations.size());
    ms.instructions = int64_t(m.instructions.size());
    std::map<std::string_view, int64_t> counts;
    for (const HloInstruction& i : m.instructions)
        ++counts[i.opcode];
    ms.opcodes.assign(counts.begin(), counts.end());
    std::stable_sort(
        ms.opcodes.begin(), ms.opcodes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    ms.hasRuns = !data.runs.empty();
    ms.runs = runs;
    ms.warnings = m.warnings;
    return ms;
}

std::vector<GraphSummary> summarizeFile(const std::string& path, ProgressSink* progress)
{
    if (detectInputKind(path) == InputKind::Npz)
        return { summarizeGraphFile(path, progress) };
    HloTextOptions lean;
    lean.keepAttributes = false;
    const HloInputFile in = readHloInput(path, lean);
    std::vector<GraphSummary> out;
    for (size_t k = 0; k < in.modules.size(); ++k) {
        const ModuleTuningData& data = in.modules[k];
        const FeaturizedModule f = featurizeModule(data, path, nullptr);
        GraphSummary s = f.kind == GraphKind::Layout ? summarize(f.layout) : summarize(f.tile);
        s.path = path;
        s.fileBytes = in.fileBytes;
        s.module = summarizeModule(in, k, f.runs);
        out.push_back(std::move(s));
    }
    return out;
}

std::string formatSummaryText(const GraphSummary& s)
{
    std::string out;
    auto line = [&](const std::string& label, const std::string& text) {
        out += label;
        out.append(label.size() < 14 ? 14 - label.size() : 1, ' ');
        out += text + "\n";
    };
    if (!s.path.empty())
        line("file", s.path + " (" + formatBytes(s.fileBytes) + ")");
    if (s.module) {
        const ModuleSummary& m = *s.module;
        line("format",
            m.format
                + (m.count > 1 ? ", module " + std::to_string(m.index + 1) + " of " + std::to_string(m.count) : ""));
        line("module", m.name);
        line("computations", std::to_string(m.computations) + " (entry " + m.entry + ")");
        line("instructions", std::to_string(m.instructions));
        if (m.hasRuns) {
            std::string runs = std::to_string(m.runs.total) + ": " + std::to_string(m.runs.kept) + " kept, "
                + std::to_string(m.runs.errors) + " with errors, " + std::to_string(m.runs.skipped) + " skipped";
            runs += m.runs.defaultRun >= 0 ? "; default run " + std::to_string(m.runs.defaultRun) + " ("
                    + formatDuration(m.runs.defaultRuntime) + ")"
                                           : std::string("; no default run among the kept ones");
            line("runs", runs);
        } else {
            line("runs", "none (no tuning data: a graph without configurations)");
        }
        for (const auto& w : m.warnings)
            line("warning", w);
    }
    line("kind", graphKindName(s.kind));
    if (!s.syntheticMeta.empty())
        line("synthetic", "yes, simulated runtimes: " + s.syntheticMeta);
    line("nodes", std::to_string(s.nodes));
    line("edges", std::to_string(s.edges));
    if (s.kind == GraphKind::Layout) {
        std::string ops;
        for (const auto& [op, count] : s.configurableOpcodes)
            ops += (ops.empty() ? "" : ", ") + opcodeName(op) + " " + std::to_string(count);
        line("configurable", std::to_string(s.configurableNodes) + " nodes" + (ops.empty() ? "" : " (" + ops + ")"));
    }
    if (s.configs == 0) {
        line("configs", "0 (a graph without configurations: no tuning runs)");
    } else {
        line("configs",
            std::to_string(s.configs) + " (" + std::to_string(s.duplicateConfigs) + " duplicate"
                + (s.duplicateConfigs == 1 ? "" : "s") + (s.configsCompressed ? ", stored base-7 compressed" : "")
                + ")");
        line("runtime",
            s.hasRuntimes ? formatDuration(s.runtimeMin) + " .. " + formatDuration(s.runtimeMax) + " ("
                    + std::to_string(s.runtimeMin) + " .. " + std::to_string(s.runtimeMax) + " ns)"
                          : std::string("not measured (all zero)"));
    }
    if (!s.nodeSplits.empty()) {
        std::string splits = "[";
        for (size_t i = 0; i < s.nodeSplits.size(); ++i)
            splits += (i ? ", " : "") + std::to_string(s.nodeSplits[i]);
        line("node_splits", splits + "]");
    }
    out += "arrays\n";
    for (const auto& [name, st] : s.arrays) {
        std::string row = "  " + name;
        row.append(row.size() < 32 ? 32 - row.size() : 1, ' ');
        row += st.dtype.descr() + "  " + shapeToString(st.shape);
        out += row + "\n";
    }
    if (s.module) {
        const auto& ops = s.module->opcodes;
        const size_t n = std::min<size_t>(ops.size(), 15);
        out += "instructions per opcode (" + std::to_string(ops.size()) + " distinct"
            + (n < ops.size() ? ", top " + std::to_string(n) : std::string()) + ")\n";
        for (size_t i = 0; i < n; ++i) {
            std::string row = "  " + ops[i].first;
            row.append(row.size() < 32 ? 32 - row.size() : 1, ' ');
            out += row + std::to_string(ops[i].second) + "\n";
        }
        return out;
    }
    const size_t shown = std::min<size_t>(s.opcodeHistogram.size(), 15);
    out += "opcodes (" + std::to_string(s.opcodeHistogram.size()) + " distinct"
        + (shown < s.opcodeHistogram.size() ? ", top " + std::to_string(shown) : std::string()) + ")\n";
    for (size_t i = 0; i < shown; ++i) {
        const auto& [op, count] = s.opcodeHistogram[i];
        std::string row = "  " + opcodeName(op) + " (" + std::to_string(op) + ")";
        row.append(row.size() < 32 ? 32 - row.size() : 1, ' ');
        out += row + std::to_string(count) + "\n";
    }
    return out;
}

std::string formatSummaryJson(const GraphSummary& s)
{
    Json j;
    j["file"] = s.path;
    j["file_bytes"] = s.fileBytes;
    if (s.module) {
        const ModuleSummary& m = *s.module;
        Json& module = j["module"] = Json::object();
        module["name"] = m.name;
        module["format"] = m.format;
        module["index"] = m.index;
        module["count"] = m.count;
        module["entry"] = m.entry;
        module["computations"] = m.computations;
        module["instructions"] = m.instructions;
        Json& perOpcode = module["instructions_per_opcode"] = Json::object();
        for (const auto& [op, count] : m.opcodes)
            perOpcode[op] = count;
        if (m.hasRuns) {
            Json& runs = module["runs"] = Json::object();
            runs["total"] = m.runs.total;
            runs["kept"] = m.runs.kept;
            runs["errors"] = m.runs.errors;
            runs["skipped"] = m.runs.skipped;
            runs["default_run"] = m.runs.defaultRun;
            runs["default_runtime_ns"] = m.runs.defaultRuntime;
        } else {
            module["runs"] = nullptr;
        }
        module["warnings"] = m.warnings;
    }
    j["kind"] = graphKindName(s.kind);
    j["synthetic"] = !s.syntheticMeta.empty();
    if (!s.syntheticMeta.empty())
        j["synthetic_meta"] = s.syntheticMeta;
    j["nodes"] = s.nodes;
    j["edges"] = s.edges;
    if (s.kind == GraphKind::Layout)
        j["configurable_nodes"] = s.configurableNodes;
    j["configs"] = s.configs;
    j["duplicate_configs"] = s.duplicateConfigs;
    j["configs_compressed"] = s.configsCompressed;
    j["runtimes_measured"] = s.hasRuntimes;
    j["runtime_min_ns"] = s.hasRuntimes ? Json(s.runtimeMin) : Json();
    j["runtime_max_ns"] = s.hasRuntimes ? Json(s.runtimeMax) : Json();
    j["node_splits"] = s.nodeSplits;
    Json& arrays = j["arrays"] = Json::array();
    for (const auto& [name, st] : s.arrays) {
        Json& array = arrays.emplace_back();
        array["name"] = name;
        array["dtype"] = st.dtype.descr();
        array["shape"] = st.shape;
    }
    auto opcodes = [&](const char* key, const std::vector<std::pair<int, int64_t>>& hist) {
        Json& list = j[key] = Json::array();
        for (const auto& [op, count] : hist) {
            Json& item = list.emplace_back();
            item["id"] = op;
            item["name"] = opcodeName(op);
            item["count"] = count;
        }
    };
    opcodes("opcodes", s.opcodeHistogram);
    if (s.kind == GraphKind::Layout)
        opcodes("configurable_opcodes", s.configurableOpcodes);
    return jsonText(j) + "\n";
}

} // namespace tgraph
