// SPDX-License-Identifier: Apache-2.0
#pragma once

// Input assembly (docs/model.md §2.7 for layout graphs, §5 step 1 for tile graphs): from a
// core graph, the training-set Normalizer and the chosen config rows to the tensors the models
// read. The node-level part does not depend on the configs, so callers scoring many chunks of one
// graph build it once and pair it with each chunk's config tokens.

#include "core/graph/configs.h"
#include "core/graph/graph.h"
#include "core/graph/normalizer.h"
#include "model/nn/configwindow.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace tgraph::model {

struct GraphTensors
{
    torch::Tensor numeric; // (N, 134) float32: node_feat[:, 0:134] standardized by the Normalizer
    torch::Tensor nodeLayoutTokens; // (N, 6) int64: node_feat[:, 134:140] + 2 (values -1..5 -> 1..7; axes > 5 -> 7)
    torch::Tensor opcodes; // (N,) int64, each < the model's op table size
    torch::Tensor edges; // (2, E) int64: row 0 = consumer (npz column 0), row 1 = producer
    torch::Tensor configNodeIds; // (Nc,) int64 node positions of configurable nodes (layout only)

    int64_t nodes() const { return numeric.size(0); }
};

struct LayoutBatch
{
    GraphTensors graph;
    // (C, Nc, 18) int64: node_config_feat value + 2 for the chosen rows (values -1..5 -> 1..7).
    // Rows of non-configurable nodes are implicit: value -2, token 0 (see scatterConfigTokens).
    torch::Tensor configTokens;
    // (C, Nc, 5) float32: the simulator inputs of the chosen rows (core/sim/siminputs.h), for a
    // model with ModelOptions::simInputs; undefined otherwise.
    torch::Tensor simInputs;
    // These configs' place in a larger batch, for dropout's masks (configwindow.h): set by a trainer
    // that scores one batch in config chunks; default: the batch is the whole batch.
    ConfigWindow window;

    int64_t configs() const { return configTokens.size(0); }
};

struct TileBatch
{
    GraphTensors graph;
    torch::Tensor configFeat; // (C, 24) float32 as in the file (the tile model standardizes it)

    int64_t configs() const { return configFeat.size(0); }
};

// Node-level tensors. Throws InputError naming `source` for: no nodes, a non-finite numeric feature
// (node_feat[i, j], also after standardization), an opcode outside
// 0..opTableSize-1, a layout value in node_feat[:, 134:140] that is not an integer in -1..63 (6..63 count as 5), an
// edge endpoint out of range, a configurable node listed twice or out of range.
GraphTensors makeGraphTensors(
    const LayoutGraph& graph, const Normalizer& normalizer, int64_t opTableSize, const std::string& source = {});
GraphTensors makeGraphTensors(
    const TileGraph& graph, const Normalizer& normalizer, int64_t opTableSize, const std::string& source = {});

// Config tokens (C, Nc, 18) for `rows` of node_config_feat (C_all, Nc, 18) or of its base-7
// compressed form (C_all, Nc, 3). A value outside -1..5 is an InputError naming `source`; a row
// index out of range is std::out_of_range (a caller bug).
torch::Tensor makeConfigTokens(
    const NdArray<float>& nodeConfigFeat, const std::vector<int64_t>& rows, const std::string& source = {});
torch::Tensor makeConfigTokens(
    const NdArray<int32_t>& compressedConfigs, const std::vector<int64_t>& rows, const std::string& source = {});

// Simulator inputs (C, Nc, 5) for `rows` of a graph's (C_all, Nc, 4) array; an undefined tensor
// when the array is empty. A row index out of range is std::out_of_range.
torch::Tensor makeSimInputs(const NdArray<float>& simInputs, const std::vector<int64_t>& rows);

// A batch that carries its simulator inputs exactly when the model takes them: InputError naming
// `source` when the model needs them and `simInputs` (the graph's array) is empty (docs/model.md
// §4.9: the graph's HLO module was not found).
void attachSimInputRows(LayoutBatch& batch, bool modelTakesThem, const NdArray<float>& simInputs,
    const std::vector<int64_t>& rows, const std::string& source);

LayoutBatch makeLayoutBatch(const LayoutGraph& graph, const Normalizer& normalizer, const std::vector<int64_t>& rows,
    int64_t opTableSize, const std::string& source = {});
TileBatch makeTileBatch(const TileGraph& graph, const Normalizer& normalizer, const std::vector<int64_t>& rows,
    int64_t opTableSize, const std::string& source = {});

// The dense form of the config tokens (docs/model.md §2.7): (C, N, 18) filled with token 0 (value -2, "not
// configurable"), configurable nodes' rows from the batch. The model never builds it.
torch::Tensor scatterConfigTokens(const LayoutBatch& batch);

// 0, 1, ..., count-1.
std::vector<int64_t> allRows(int64_t count);

} // namespace tgraph::model
