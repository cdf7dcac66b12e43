// SPDX-License-Identifier: Apache-2.0
#pragma once

// The search space of the autotuner (`tgraph tune`): which values each part of a configuration may
// take. A candidate is one option index per dimension ("genes"); option 0 of every dimension is the
// start, the compiler default, so the all-zero candidate is the default configuration.

#include "core/graph/graph.h"
#include "core/hlo/hlomodule.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tgraph {

using TuneGenes = std::vector<int32_t>;

// One independently chosen part of a config row: `width` values at `offset` of the row of
// configurable node `configurable` (layout: one tensor's 6 values, or a node's 18; tile: the 24
// values of a kernel config).
struct TuneDimension
{
    int64_t configurable = 0; // index into TuneSpace::nodeIds (0 for tile spaces)
    int offset = 0;
    int width = 0;
    int64_t count = 0; // options; option 0 = the start (compiler default)
    std::vector<float> options; // count x width

    const float* option(int64_t k) const { return options.data() + k * width; }
};

struct TuneSpace
{
    GraphKind kind = GraphKind::Layout;
    std::string source; // for messages
    int rowWidth = 18; // values per configurable node (layout 18; tile 24 with one "node")
    std::vector<int64_t> nodeIds; // layout: the configurable nodes (node_config_ids); tile: empty
    std::vector<TuneDimension> dimensions;
    // Where the space came from: "module" (layout choices of an HLO module), "file" (the distinct
    // values each configurable node takes among a file's configs), "configs" (a tile kernel's
    // configs as listed).
    std::string origin;

    int64_t rowValues() const { return int64_t(std::max<size_t>(nodeIds.size(), 1)) * rowWidth; }
    TuneGenes start() const { return TuneGenes(dimensions.size(), 0); }
    // log10 of the number of candidates (product of the option counts).
    double log10Size() const;
    // The number of candidates, or -1 when it exceeds `limit`.
    int64_t sizeUpTo(int64_t limit) const;
    // The config row of a candidate: rowValues() floats (layout: Nc x 18 with -1 = default).
    void writeRow(const TuneGenes& genes, float* row) const;
    std::vector<float> row(const TuneGenes& genes) const;
    // The candidate whose row is `row` (the option equal to each dimension's values), or an
    // empty vector when some part of the row is not among the options.
    TuneGenes genesOf(const float* row) const;
};

// Layout choices of the configurable nodes of an HLO module (core/sim/layoutcandidates.h): one
// dimension per tensor of each node with choices (the default first). InputError naming `source`
// when no node has a choice.
TuneSpace moduleTuneSpace(
    const HloModule& module, std::span<const int64_t> configurableNodes, const std::string& source);
// A layout graph file without its module: for each configurable node, the distinct 18-value rows
// its configs use (the compiler default's row first: LayoutGraph::defaultConfig, else all -1
// when some config has it, else config 0's). New combinations of measured per-node layouts are
// what the search explores.
TuneSpace fileTuneSpace(const LayoutGraph& graph, const std::string& source);
// A tile kernel: its listed configs (config_feat rows), config 0 first.
TuneSpace tileTuneSpace(const TileGraph& graph, const std::string& source);

} // namespace tgraph
