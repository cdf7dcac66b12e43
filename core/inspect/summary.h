// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/featurizer.h"
#include "core/graph/graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tgraph {

class NpzReader;
class ProgressSink;
struct HloInputFile;

// Facts about an HLO module a graph was featurized from (HLO text or protobuf inputs).
struct ModuleSummary
{
    std::string name;
    std::string format; // "HLO text", "tpu_graphs.ModuleTuningData", ...
    int index = 0; // module index in the file (TuningData holds several)
    int count = 1;
    std::string entry;
    int64_t computations = 0;
    int64_t instructions = 0;
    std::vector<std::pair<std::string, int64_t>> opcodes; // instructions per opcode name, descending
    bool hasRuns = false;
    RunSelection runs;
    std::vector<std::string> warnings;
};

// What `tgraph inspect` prints and the studio's summary panel shows about a graph file.
struct GraphSummary
{
    std::string path;
    uint64_t fileBytes = 0;
    GraphKind kind = GraphKind::Layout;
    int64_t nodes = 0;
    int64_t edges = 0;
    int64_t configurableNodes = 0; // layout only
    int64_t configs = 0;
    bool hasRuntimes = false;
    int64_t runtimeMin = 0;
    int64_t runtimeMax = 0;
    int64_t duplicateConfigs = 0; // rows that repeat an earlier config
    bool configsCompressed = false; // node_config_feat stored base-7 (C, Nc, 3)
    std::vector<std::pair<int, int64_t>> opcodeHistogram; // (opcode id, count), by count descending
    std::vector<std::pair<int, int64_t>> configurableOpcodes; // opcodes of configurable nodes
    std::vector<int64_t> nodeSplits;
    std::vector<std::pair<std::string, ArrayStorage>> arrays; // every member as stored, archive order
    std::optional<ModuleSummary> module; // for HLO inputs
    std::string syntheticMeta; // non-empty for simulated data (meta_synthetic JSON)
};

GraphSummary summarize(const LayoutGraph& graph);
GraphSummary summarize(const TileGraph& graph);
// Loads (validating) and summarizes an .npz graph file.
GraphSummary summarizeGraphFile(const std::string& path, ProgressSink* progress = nullptr);
// Sets the file facts of a summary of an .npz: path, size and every member as stored.
void describeNpzFile(GraphSummary& summary, NpzReader& npz);
// The module facts of module `index` of an HLO input, given how its runs were featurized.
ModuleSummary summarizeModule(const HloInputFile& in, size_t index, const RunSelection& runs);
// Any input: an .npz, an HLO text module or a protobuf (one summary per module of a TuningData).
// HLO inputs are featurized into their collection's graph (layout, or tile for op-config runs).
std::vector<GraphSummary> summarizeFile(const std::string& path, ProgressSink* progress = nullptr);

// Human-readable multi-line report and a JSON object (for `tgraph inspect [--json]`).
std::string formatSummaryText(const GraphSummary& summary);
std::string formatSummaryJson(const GraphSummary& summary);

} // namespace tgraph
