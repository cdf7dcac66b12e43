// SPDX-License-Identifier: Apache-2.0
#include "core/view/graphdocument.h"

#include "core/util/error.h"
#include "core/io/filebytes.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloinput.h"
#include "core/hlo/hlomodule.h"
#include "core/hlo/hlotext.h"
#include "core/io/npz.h"
#include "core/graph/opcodes.h"
#include "core/util/progress.h"
#include "core/store/sqlitedb.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace tgraph {

namespace {

bool endsWithIgnoringCase(const std::string& text, std::string_view suffix)
{
    if (text.size() < suffix.size())
        return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[text.size() - suffix.size() + i])) != suffix[i])
            return false;
    return true;
}

// Project files are SQLite databases, not graphs. The header is read through SQLite's file layer:
// this process may have the project open, and a plain close would drop its locks.
void refuseProjectFiles(const std::string& path)
{
    bool sqlite = false;
    try {
        sqlite = SqliteDb::readFileHead(path, 16) == std::string("SQLite format 3\0", 16);
    } catch (const InputError&) {
        // unreadable: the graph readers say why
    }
    if (endsWithIgnoringCase(path, ".tgproj") || sqlite)
        throw InputError(path, "",
            "is a TGraph Studio project (an SQLite file), not a graph: open it in tgraph-studio or list its runs "
            "with 'tgraph runs list --project FILE'; graphs are .npz, .hlo, .txt or .pb files");
}

std::string fileName(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool callsAsControlFlow(std::string_view opcode)
{
    return opcode == "while" || opcode == "conditional" || opcode == "call" || opcode == "async-start"
        || opcode == "async-update" || opcode == "async-done";
}

void computationsFromModule(GraphDocument& doc)
{
    const HloModule& m = *doc.module;
    const int64_t entry = m.entryIndex();
    std::unordered_map<int64_t, size_t> indexById;
    doc.computations.resize(m.computations.size());
    std::vector<uint8_t> controlCalled(m.computations.size(), 0);
    for (size_t c = 0; c < m.computations.size(); ++c) {
        const HloComputation& hc = m.computations[c];
        DocumentComputation& dc = doc.computations[c];
        dc.name = std::string(hc.name);
        dc.first = hc.firstInstruction;
        dc.count = hc.instructionCount;
        dc.entry = int64_t(c) == entry;
        dc.fusion = hc.isFusion;
        indexById.emplace(hc.id, c);
        for (int64_t i = dc.first; i < dc.first + dc.count; ++i)
            doc.computationOfNode[size_t(i)] = int32_t(c);
    }
    for (size_t i = 0; i < m.instructions.size(); ++i) {
        const HloInstruction& inst = m.instructions[i];
        for (const int64_t id : m.span(inst.calledComputationIds)) {
            const auto it = indexById.find(id);
            if (it == indexById.end())
                continue;
            DocumentComputation& dc = doc.computations[it->second];
            if (dc.callers++ == 0)
                dc.owner = int64_t(i);
            controlCalled[it->second] |= callsAsControlFlow(inst.opcode);
            dc.fusion |= inst.opcode == "fusion";
        }
    }
    for (size_t c = 0; c < doc.computations.size(); ++c) {
        DocumentComputation& dc = doc.computations[c];
        dc.embedded = !dc.entry && dc.callers > 0 && !controlCalled[c];
    }
}

// .npz graphs have no computations: their node_splits segments stand in for them.
void computationsFromSplits(GraphDocument& doc)
{
    const int64_t n = doc.nodeCount();
    std::vector<int64_t> cuts { 0 };
    if (doc.kind == GraphKind::Layout)
        for (const int64_t s : doc.layout.nodeSplits.values())
            if (s > cuts.back() && s < n)
                cuts.push_back(s);
    cuts.push_back(n);
    const bool single = cuts.size() == 2;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
        DocumentComputation dc;
        dc.first = cuts[k];
        dc.count = cuts[k + 1] - cuts[k];
        // No node numbers in the name: the views show a segment's range in the user's notation.
        dc.name = single ? std::string("graph")
                         : "segment " + std::to_string(k + 1) + " of " + std::to_string(cuts.size() - 1);
        dc.entry = k + 2 == cuts.size(); // the last segment holds the entry computation
        for (int64_t i = dc.first; i < dc.first + dc.count; ++i)
            doc.computationOfNode[size_t(i)] = int32_t(doc.computations.size());
        doc.computations.push_back(std::move(dc));
    }
}

void operandsFromModule(GraphDocument& doc)
{
    const HloModule& m = *doc.module;
    std::unordered_map<int64_t, int64_t> positionById;
    bool identity = true;
    for (size_t i = 0; i < m.instructions.size() && identity; ++i)
        identity = m.instructions[i].id == int64_t(i);
    if (!identity)
        for (size_t i = 0; i < m.instructions.size(); ++i)
            positionById.emplace(m.instructions[i].id, int64_t(i));
    doc.operandOffsets.assign(m.instructions.size() + 1, 0);
    for (size_t i = 0; i < m.instructions.size(); ++i) {
        for (const int64_t id : m.span(m.instructions[i].operandIds)) {
            int64_t pos = -1;
            if (identity)
                pos = id >= 0 && id < int64_t(m.instructions.size()) ? id : -1;
            else if (const auto it = positionById.find(id); it != positionById.end())
                pos = it->second;
            if (pos >= 0)
                doc.operandPositions.push_back(pos);
        }
        doc.operandOffsets[i + 1] = int64_t(doc.operandPositions.size());
    }
}

std::string joined(std::span<const int64_t> values, const char* separator = ",")
{
    std::string out;
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? separator : "") + std::to_string(values[i]);
    return out;
}

GraphSource makeSource(const GraphDocument& doc, GraphSource::Kind kind, const NdArray<int64_t>& edges, int64_t nodes,
    std::vector<int64_t> localToGlobal, std::vector<int64_t> globalToLocal)
{
    GraphSource source;
    source.kind = kind;
    source.topology = GraphTopology(edges, nodes);
    source.localToGlobal = std::move(localToGlobal);
    source.globalToLocal = std::move(globalToLocal);
    source.hierarchy = NodeHierarchy(doc, source);
    return source;
}

} // namespace

int64_t GraphDocument::nodeCount() const { return kind == GraphKind::Layout ? layout.nodeCount() : tile.nodeCount(); }

int64_t GraphDocument::edgeCount() const { return kind == GraphKind::Layout ? layout.edgeCount() : tile.edgeCount(); }

int64_t GraphDocument::configCount() const
{
    return kind == GraphKind::Layout ? layout.configCount() : tile.configCount();
}

std::string GraphDocument::nodeName(int64_t node) const
{
    if (node < 0 || node >= nodeCount())
        return "node " + std::to_string(node) + " (not in the graph)";
    if (module)
        return std::string(module->instructions[size_t(node)].name);
    return "node " + std::to_string(node);
}

std::string GraphDocument::opcodeName(int64_t node) const
{
    if (module)
        return std::string(module->instructions[size_t(node)].opcode);
    return tgraph::opcodeName(opcodeId(node));
}

std::string GraphDocument::shapeText(int64_t node) const
{
    if (module)
        return module->shapeToText(module->instructions[size_t(node)].shape);
    return shapeFromFeatures(nodeFeatures().row(node));
}

std::string GraphDocument::instructionText(int64_t node) const
{
    if (!module)
        return {};
    const HloInstruction& inst = module->instructions[size_t(node)];
    if (!sourceText.empty() && inst.line >= sourceFirstLine) {
        size_t pos = 0;
        for (uint32_t line = sourceFirstLine; line < inst.line && pos != std::string::npos; ++line) {
            pos = sourceText.find('\n', pos);
            if (pos != std::string::npos)
                ++pos;
        }
        if (pos != std::string::npos) {
            size_t end = sourceText.find('\n', pos);
            std::string text = sourceText.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
            const size_t first = text.find_first_not_of(" \t");
            const size_t last = text.find_last_not_of(" \t\r");
            return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
        }
    }
    // Protobuf input: print the parts we hold.
    const HloModule& m = *module;
    std::string out
        = "%" + std::string(inst.name) + " = " + m.shapeToText(inst.shape) + " " + std::string(inst.opcode) + "(";
    if (inst.opcode == "parameter") {
        out += std::to_string(inst.parameterNumber);
    } else {
        for (int64_t k = operandOffsets[size_t(node)]; k < operandOffsets[size_t(node) + 1]; ++k)
            out += (k > operandOffsets[size_t(node)] ? ", %" : "%")
                + std::string(m.instructions[size_t(operandPositions[size_t(k)])].name);
    }
    out += ")";
    if (inst.dimensions.count)
        out += ", dimensions={" + joined(m.span(inst.dimensions)) + "}";
    const HloInstructionDetails& d = m.detailsOf(inst);
    if (d.windowCount) {
        std::string size, stride, pad;
        for (uint32_t k = 0; k < d.windowCount; ++k) {
            const HloWindowDimension& w = m.windowDims[d.windowOffset + k];
            size += (k ? "x" : "") + std::to_string(w.size);
            stride += (k ? "x" : "") + std::to_string(w.stride);
            pad += (k ? "x" : "") + std::to_string(w.paddingLow) + "_" + std::to_string(w.paddingHigh);
        }
        out += ", window={size=" + size + " stride=" + stride + " pad=" + pad + "}";
    }
    if (inst.featureGroupCount > 1)
        out += ", feature_group_count=" + std::to_string(inst.featureGroupCount);
    const auto called = m.span(inst.calledComputationIds);
    if (!called.empty()) {
        std::string names;
        for (const int64_t id : called)
            for (const HloComputation& c : m.computations)
                if (c.id == id)
                    names += (names.empty() ? "%" : ", %") + std::string(c.name);
        out += (inst.opcode == "fusion" ? ", calls=" : ", to_apply=") + names;
    }
    for (uint32_t k = 0; k < d.attributeCount; ++k) {
        const HloAttribute& a = m.attributes[d.attributeOffset + k];
        out += ", " + std::string(a.name) + "=" + std::string(a.value);
    }
    return out;
}

const float* GraphDocument::configValues(int64_t node, int64_t config) const
{
    const int64_t k = configIndexOfNode[size_t(node)];
    if (k < 0 || kind != GraphKind::Layout || config < 0 || config >= layout.configCount())
        return nullptr;
    return layout.nodeConfigFeat.data() + (config * layout.configurableCount() + k) * kLayoutConfigFeatures;
}

int64_t GraphDocument::findNode(const std::string& name) const
{
    std::string wanted = name;
    if (!wanted.empty() && wanted.front() == '%')
        wanted.erase(0, 1);
    if (module) {
        for (size_t i = 0; i < module->instructions.size(); ++i)
            if (module->instructions[i].name == wanted)
                return int64_t(i);
    }
    // "#12", "12" or "node 12": a node id.
    std::string digits = wanted;
    if (digits.rfind("node ", 0) == 0)
        digits.erase(0, 5);
    if (!digits.empty() && digits.front() == '#')
        digits.erase(0, 1);
    if (digits.empty() || digits.size() > 18
        || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
    const int64_t id = std::stoll(digits);
    return id < nodeCount() ? id : -1;
}

std::string shapeFromFeatures(const float* row)
{
    static const char* const types[] = { "invalid", "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16",
        "f32", "f64", "bf16", "c64", "c128", "tuple", "opaque", "token" };
    std::string type = "?";
    for (int k = 0; k < 19; ++k)
        if (row[2 + k] == 1.0f)
            type = types[k];
    if (type == "tuple")
        return "(tuple of " + std::to_string(int64_t(row[29])) + ")";
    if (type == "token")
        return "token[]";
    // The rank is not stored: take the shortest prefix of the 6 dims whose sum and product match.
    const double sum = row[27];
    const double product = row[28];
    int rank = -1;
    double s = 0, p = 1;
    for (int r = 0; r <= 6; ++r) {
        if (r > 0) {
            s += row[20 + r];
            p *= row[20 + r];
        }
        if (s == sum && (p == product || (r == 6))) {
            rank = r;
            break;
        }
    }
    if (rank < 0)
        rank = 6; // more than 6 dims: show the first 6
    std::string out = type + "[";
    for (int r = 0; r < rank; ++r)
        out += (r ? "," : "") + std::to_string(int64_t(row[21 + r]));
    out += "]";
    if (rank > 0) {
        out += "{";
        for (int r = 0; r < rank; ++r)
            out += (r ? "," : "") + std::to_string(int64_t(row[134 + r]));
        out += "}";
    }
    return out;
}

void finishGraphDocument(GraphDocument& doc, ProgressSink* progress)
{
    ProgressScope scope(progress, "preparing the graph views", 3);
    const int64_t n = doc.nodeCount();
    doc.configIndexOfNode.assign(size_t(n), -1);
    if (doc.kind == GraphKind::Layout)
        for (int64_t k = 0; k < doc.layout.configurableCount(); ++k)
            doc.configIndexOfNode[size_t(doc.layout.nodeConfigIds[k])] = k;
    doc.computationOfNode.assign(size_t(n), 0);
    doc.computations.clear();
    if (doc.module) {
        computationsFromModule(doc);
        operandsFromModule(doc);
    } else {
        computationsFromSplits(doc);
    }
    const NdArray<int64_t>& edges = doc.kind == GraphKind::Layout ? doc.layout.edgeIndex : doc.tile.edgeIndex;
    doc.full = makeSource(doc, GraphSource::Kind::Full, edges, n, {}, {});
    scope.advanceTo(1);

    doc.pruned.reset();
    doc.prunedGraph.reset();
    doc.pruneError.clear();
    if (doc.kind == GraphKind::Tile) {
        doc.pruneError = "tile graphs have no configurable nodes, so there is nothing to prune";
    } else if (doc.layout.configurableCount() == 0) {
        doc.pruneError = "the graph has no configurable nodes, so pruning would keep nothing";
    } else {
        try {
            doc.prunedGraph = pruneToConfigurable(doc.layout, doc.path);
            const PrunedGraph& p = *doc.prunedGraph;
            doc.pruned = makeSource(
                doc, GraphSource::Kind::Pruned, p.graph.edgeIndex, p.graph.nodeCount(), p.newToOld, p.oldToNew);
        } catch (const InputError& e) {
            doc.pruneError = e.problem();
        }
    }
    scope.advanceTo(3);
}

std::vector<std::shared_ptr<GraphDocument>> openGraphDocuments(const std::string& path, ProgressSink* progress)
{
    refuseProjectFiles(path);
    std::vector<std::shared_ptr<GraphDocument>> out;
    if (detectInputKind(path) == InputKind::Npz) {
        auto doc = std::make_shared<GraphDocument>();
        doc->path = path;
        doc->title = fileName(path);
        NpzReader npz(path);
        GraphLoadOptions options;
        options.progress = progress;
        doc->kind = detectGraphKind(npz);
        if (doc->kind == GraphKind::Layout) {
            doc->layout = readLayoutGraph(npz, options);
            doc->summary = summarize(doc->layout);
        } else {
            doc->tile = readTileGraph(npz, options);
            doc->summary = summarize(doc->tile);
        }
        describeNpzFile(doc->summary, npz);
        finishGraphDocument(*doc, progress);
        out.push_back(std::move(doc));
        return out;
    }

    HloInputFile in;
    {
        ProgressScope scope(progress, "reading " + path, 0);
        in = readHloInput(path);
    }
    std::string text;
    std::vector<HloTextPart> parts; // a text file of several modules: where each one is
    if (in.format == HloSourceFormat::Text) {
        text = std::string(FileBytes::read(path).view());
        if (in.modules.size() > 1)
            parts = splitHloText(text);
    }
    for (size_t k = 0; k < in.modules.size(); ++k) {
        ProgressScope scope(progress, "featurizing", 1);
        ModuleTuningData& data = in.modules[k];
        FeaturizedModule f = featurizeModule(data, path, nullptr);
        auto doc = std::make_shared<GraphDocument>();
        doc->path = path;
        doc->title = fileName(path);
        if (in.modules.size() > 1)
            doc->title += " [" + std::string(data.module.name) + "]";
        doc->kind = f.kind;
        doc->summary = f.kind == GraphKind::Layout ? summarize(f.layout) : summarize(f.tile);
        doc->layout = std::move(f.layout);
        doc->tile = std::move(f.tile);
        doc->summary.path = path;
        doc->summary.fileBytes = in.fileBytes;
        doc->summary.module = summarizeModule(in, k, f.runs);
        doc->module = std::make_shared<HloModule>(std::move(data.module));
        if (in.modules.size() == 1) {
            doc->sourceText = std::move(text);
        } else if (parts.size() == in.modules.size()) {
            doc->sourceText = text.substr(parts[k].begin, parts[k].end - parts[k].begin);
            doc->sourceFirstLine = parts[k].firstLine;
        }
        scope.advanceTo(1);
        finishGraphDocument(*doc, progress);
        out.push_back(std::move(doc));
    }
    return out;
}

} // namespace tgraph
