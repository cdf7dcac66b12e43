// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"
#include "core/graph/graphtopology.h"
#include "core/view/nodehierarchy.h"
#include "core/graph/prune.h"
#include "core/inspect/summary.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tgraph {

class HloModule;
class ProgressSink;

// One of the graphs a document shows: the full graph or the pruned one. Views always name nodes
// by their full-graph id ("global"); `local` ids index this source's topology.
struct GraphSource
{
    enum class Kind { Full, Pruned };
    Kind kind = Kind::Full;
    GraphTopology topology;
    std::vector<int64_t> localToGlobal; // empty = identity
    std::vector<int64_t> globalToLocal; // empty = identity; -1 = not in this source
    NodeHierarchy hierarchy;

    int64_t nodeCount() const { return topology.nodeCount(); }
    int64_t edgeCount() const { return topology.edgeCount(); }
    int64_t toGlobal(int64_t local) const { return localToGlobal.empty() ? local : localToGlobal[size_t(local)]; }
    int64_t toLocal(int64_t global) const
    {
        if (globalToLocal.empty())
            return global >= 0 && global < nodeCount() ? global : -1;
        return global >= 0 && size_t(global) < globalToLocal.size() ? globalToLocal[size_t(global)] : -1;
    }
    bool contains(int64_t global) const { return toLocal(global) >= 0; }
};

// A computation of the module (or, for .npz graphs without a module, a node_splits segment): its
// nodes are the contiguous range [first, first + count) of node ids.
struct DocumentComputation
{
    std::string name;
    int64_t first = 0;
    int64_t count = 0;
    bool entry = false;
    bool fusion = false;
    // Called only by instructions that embed it (fusion bodies, reducers, comparators): the graph
    // views fold it into `owner`, its first caller, instead of drawing it as a box of its own.
    bool embedded = false;
    int64_t owner = -1; // node id of the first caller, -1 = none
    int64_t callers = 0;
};

// Everything the studio shows about one opened graph: the graph arrays, the HLO module it came
// from (if any), both sources (full and pruned) with their topology and computation hierarchy, and
// the summary. Built off the GUI thread, then shared read-only (std::shared_ptr<const ...>).
struct GraphDocument
{
    std::string path;
    std::string title; // file name, plus " [module]" for files holding several modules
    GraphSummary summary;
    GraphKind kind = GraphKind::Layout;
    LayoutGraph layout; // kind == Layout
    TileGraph tile; // kind == Tile
    std::shared_ptr<const HloModule> module; // HLO inputs; nullptr for .npz files
    // HLO text inputs: the module's text (the inspector shows instruction lines); for a file of
    // several modules (`// -----`) the part of this module, which starts at line sourceFirstLine.
    std::string sourceText;
    uint32_t sourceFirstLine = 1;
    std::vector<int64_t> operandPositions; // module: instruction operands as node ids, CSR with operandOffsets
    std::vector<int64_t> operandOffsets;
    std::vector<DocumentComputation> computations;
    std::vector<int32_t> computationOfNode;
    std::vector<int64_t> configIndexOfNode; // index into node_config_ids, -1 = not configurable

    GraphSource full;
    std::optional<GraphSource> pruned; // layout graphs that can be pruned
    std::optional<PrunedGraph> prunedGraph;
    std::string pruneError; // why there is no pruned graph

    int64_t nodeCount() const;
    int64_t edgeCount() const;
    int64_t configCount() const;
    const NdArray<int64_t>& nodeOpcodes() const
    {
        return kind == GraphKind::Layout ? layout.nodeOpcode : tile.nodeOpcode;
    }
    const NdArray<float>& nodeFeatures() const { return kind == GraphKind::Layout ? layout.nodeFeat : tile.nodeFeat; }
    int opcodeId(int64_t node) const { return int(nodeOpcodes()[node]); }
    // Instruction name (without '%') or "node N" for graphs without a module.
    std::string nodeName(int64_t node) const;
    // The XLA opcode as written, or the TpuGraphs opcode table's name.
    std::string opcodeName(int64_t node) const;
    // "f32[2,3]{1,0}"; for .npz graphs rebuilt from the node features (type, first 6 dims, layout).
    std::string shapeText(int64_t node) const;
    // The instruction as HLO text: its line in a text dump, or printed from the module.
    std::string instructionText(int64_t node) const;
    bool isConfigurable(int64_t node) const { return configIndexOfNode[size_t(node)] >= 0; }
    // The 18 config values of configurable `node` in configuration `config`.
    const float* configValues(int64_t node, int64_t config) const;
    // Node id of an instruction name, -1 when there is none.
    int64_t findNode(const std::string& name) const;
    const GraphSource& source(GraphSource::Kind kind) const
    {
        return kind == GraphSource::Kind::Pruned && pruned ? *pruned : full;
    }
};

using GraphDocumentPtr = std::shared_ptr<const GraphDocument>;

// Opens any graph input (an .npz, an HLO text module or an HLO / tuning-record protobuf): one
// document per module. Errors are InputError naming the file, the place and the problem; a
// `.tgproj` project file is refused with a message saying projects are not supported yet.
std::vector<std::shared_ptr<GraphDocument>> openGraphDocuments(
    const std::string& path, ProgressSink* progress = nullptr);

// Builds the derived parts (topologies, computations, pruning, hierarchy) of a document whose
// graph arrays, module and summary are set. Exposed for tests that build documents in memory.
void finishGraphDocument(GraphDocument& document, ProgressSink* progress = nullptr);

// The type, dimensions and layout a node_feat row encodes, as HLO shape text (first 6 dims).
std::string shapeFromFeatures(const float* row);

} // namespace tgraph
