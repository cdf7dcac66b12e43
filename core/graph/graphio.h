// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"

#include <string>

namespace tgraph {

class NpzReader;
class ProgressSink;

struct GraphLoadOptions
{
    int64_t minConfigs = 2; // graphs with fewer configs are refused (0 disables the check)
    bool repadLayout = false; // re-pad node_feat columns 134..139 with -1 from the shape rank (docs/model.md §2.1)
    ProgressSink* progress = nullptr;
};

struct GraphWriteOptions
{
    bool compressed = true; // deflate members (np.savez_compressed); false = stored (np.savez)
    bool compressConfigs = false; // node_config_feat as base-7 int32 (C, Nc, 3) instead of float32 (C, Nc, 18)
    ProgressSink* progress = nullptr;
};

// Decides layout vs tile from the keys present; throws InputError if it is neither.
GraphKind detectGraphKind(const NpzReader& npz);

// Read, convert and validate. node_config_feat may be stored float (C, Nc, 18) or base-7
// compressed integers (C, Nc, 3); both load as float (C, Nc, 18).
LayoutGraph readLayoutGraph(NpzReader& npz, const GraphLoadOptions& options = {});
TileGraph readTileGraph(NpzReader& npz, const GraphLoadOptions& options = {});
LayoutGraph loadLayoutGraph(const std::string& path, const GraphLoadOptions& options = {});
TileGraph loadTileGraph(const std::string& path, const GraphLoadOptions& options = {});

// Write (to a temporary name, renamed on success). Arrays keep the dtypes recorded in
// graph.storage, else the published TpuGraphs dtypes (uint8 opcodes, int64 indices, float32).
void saveLayoutGraph(const LayoutGraph& graph, const std::string& path, const GraphWriteOptions& options = {});
void saveTileGraph(const TileGraph& graph, const std::string& path, const GraphWriteOptions& options = {});

} // namespace tgraph
