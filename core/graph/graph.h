// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/io/dtype.h"
#include "core/io/ndarray.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tgraph {

constexpr int kNodeFeatures = 140; // node_feat columns (docs/model.md §1.3)
constexpr int kNumericNodeFeatures = 134; // columns 0..133 are standardized, 134..139 are layout tokens
constexpr int kLayoutConfigFeatures = 18; // node_config_feat per (config, configurable node)
constexpr int kTileConfigFeatures = 24; // config_feat per tile config
// Extra npz key of simulated data: a uint8 array holding UTF-8 JSON (numpy: bytes(d["meta_synthetic"])).
constexpr const char* kSyntheticMetaKey = "meta_synthetic";

enum class GraphKind { Layout, Tile };
const char* graphKindName(GraphKind kind);

// How an array was stored in the file a graph came from; writers reuse it so that a pruned file
// keeps the dtypes and the (1, k) node_splits shape of its source.
struct ArrayStorage
{
    DType dtype;
    std::vector<int64_t> shape;
};

// A TpuGraphs layout graph (npz/layout/{xla,nlp}/{default,random}/*): one whole HLO module
// with per-config layouts of its configurable nodes. Integer arrays are held as int64 whatever
// their stored type; node_config_feat is always held uncompressed as float32 (C, Nc, 18).
// Simulator input columns per (configuration, configurable node): core/sim/siminputs.h.
constexpr int64_t kSimInputColumns = 5;

struct LayoutGraph
{
    NdArray<float> nodeFeat; // (N, 140)
    NdArray<int64_t> nodeOpcode; // (N,)
    NdArray<int64_t> edgeIndex; // (E, 2), row = [consumer, producer]
    NdArray<int64_t> nodeConfigIds; // (Nc,) node positions of configurable nodes
    NdArray<float> nodeConfigFeat; // (C, Nc, 18), values -1..5
    NdArray<int64_t> configRuntime; // (C,) ns; all zero in test splits (not measured)
    NdArray<int64_t> nodeSplits; // (k,) computation split offsets (empty when absent)
    std::string syntheticMeta; // meta_synthetic: JSON describing simulated data ("" = real data)
    std::map<std::string, ArrayStorage> storage; // per key, as read from the source file
    // The config of a tuning record's default run (is_default: the compiler's own layouts), -1 when
    // unknown. Not a TpuGraphs key: graphs read from .npz files have -1.
    int64_t defaultConfig = -1;
    // The simulator's inputs of each configuration (C, Nc, 5; core/sim/siminputs.h), attached by
    // the model layer for models trained with them (docs/model.md §4.9); empty otherwise. Never read
    // from or written to files.
    NdArray<float> simInputs;

    int64_t nodeCount() const { return nodeFeat.ndim() == 2 ? nodeFeat.dim(0) : 0; }
    int64_t edgeCount() const { return edgeIndex.ndim() == 2 ? edgeIndex.dim(0) : 0; }
    int64_t configurableCount() const { return nodeConfigIds.size(); }
    int64_t configCount() const { return configRuntime.size(); }
    // False for files whose runtimes are all zero (the unlabelled test split).
    bool hasRuntimes() const;
};

// A TpuGraphs tile graph (npz/tile/xla/*): one fused kernel with graph-level tile configs.
struct TileGraph
{
    NdArray<float> nodeFeat; // (N, 140)
    NdArray<int64_t> nodeOpcode; // (N,)
    NdArray<int64_t> edgeIndex; // (E, 2)
    NdArray<float> configFeat; // (C, 24)
    NdArray<int64_t> configRuntime; // (C,)
    NdArray<int64_t> configRuntimeNormalizers; // (C,)
    std::string syntheticMeta; // meta_synthetic, as for layout graphs
    std::map<std::string, ArrayStorage> storage;

    int64_t nodeCount() const { return nodeFeat.ndim() == 2 ? nodeFeat.dim(0) : 0; }
    int64_t edgeCount() const { return edgeIndex.ndim() == 2 ? edgeIndex.dim(0) : 0; }
    int64_t configCount() const { return configRuntime.size(); }
    bool hasRuntimes() const;
};

// Records the dtypes and shapes of the published dataset (uint8 opcodes, int64 indices and
// runtimes, float32 features, node_splits as (1, k)) for a graph we built, so writers use them.
void setPublishedStorage(LayoutGraph& graph);
void setPublishedStorage(TileGraph& graph);

// Checks shapes agree, indices are in range, runtimes are valid. Throws InputError naming
// `file`, the array (with index) and the problem. `minConfigs` rejects graphs that cannot be
// ranked (TGraph drops graphs with <= 1 config, docs/model.md §2.5); a graph with no configurations at all
// is a valid graph-only file (e.g. converted from an HLO module without tuning runs).
// `checkNodeFeatures` = false skips the scan for NaN/inf in node_feat (for graphs we built).
void validate(const LayoutGraph& graph, const std::string& file, int64_t minConfigs = 2, bool checkNodeFeatures = true);
void validate(const TileGraph& graph, const std::string& file, int64_t minConfigs = 2, bool checkNodeFeatures = true);

} // namespace tgraph
