// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"
#include "core/hlo/hlomodule.h"

#include <string>

namespace tgraph {

struct FeaturizeOptions
{
    // Rows of edge_index sorted by (u, v) as in the published dataset (docs/formats.md §2.2); false keeps
    // the extractor's insertion order (per node: operands by id, then called computations).
    bool sortEdges = true;
    // The authors' regenerated data (docs/model.md §2.1): the fixed-length "no-aggregate" fields are padded
    // with -1 instead of 0, i.e. columns 31-36 (dimensions), 95-98 and 101-104 (convolution spatial
    // dims) and 134-139 (layout). Needed for the released TGraph weights.
    bool repad = false;
};

// What the featurizer did with a module's tuning runs, for reports.
struct RunSelection
{
    int64_t total = 0;
    int64_t kept = 0;
    int64_t errors = 0; // runs with error set
    int64_t skipped = 0; // other runs left out (no profile, wrong config kind, ...)
    int64_t defaultRun = -1; // index of the run whose runtime normalizes (first kept default), -1 = none
    int64_t defaultRuntime = 0;
};

// The 140 node features of every instruction, in node order (docs/formats.md §4).
NdArray<float> featurizeNodes(const HloModule& module, bool repad = false);
// TpuGraphs opcode id of an instruction's opcode (docs/formats.md §3, with the text async sugar X-start/...).
int featurizedOpcode(std::string_view opcode);
// Node positions of the configurable nodes of a module without tuning data: every convolution,
// dot and reshape, ascending (docs/formats.md §2.6).
std::vector<int64_t> defaultConfigurableNodes(const HloModule& module);

// A TpuGraphs layout graph of the module (docs/formats.md §2-§5.1). With layout tuning runs (ModuleTuningData
// with module_config runs) it carries their configs and runtimes; without runs it is a graph-only
// file (0 configurations) whose configurable nodes are its convolutions, dots and reshapes (possibly
// none: the graph is still written, there is just nothing to configure).
// Errors are InputError naming `file` and the instruction or run.
LayoutGraph featurizeLayout(const ModuleTuningData& data, const std::string& file, const FeaturizeOptions& options = {},
    RunSelection* runs = nullptr);
// The same graph-only file of a plain module (no tuning data), without copying the module.
LayoutGraph featurizeLayout(const HloModule& module, const std::string& file, const FeaturizeOptions& options = {});
// A TpuGraphs tile graph (docs/formats.md §5.2): needs op_config runs with tile sizes on every run.
TileGraph featurizeTile(const ModuleTuningData& data, const std::string& file, const FeaturizeOptions& options = {},
    RunSelection* runs = nullptr);

// Which collection a module's tuning data belongs to: Tile when its runs carry op configs.
GraphKind collectionOf(const ModuleTuningData& data);

} // namespace tgraph
