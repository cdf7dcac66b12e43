// SPDX-License-Identifier: Apache-2.0
#include "model/nn/batch.h"

#include "model/nn/modeloptions.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tgraph::model {

namespace {

std::string place(const char* array, int64_t i) { return std::string(array) + "[" + std::to_string(i) + "]"; }
std::string place(const char* array, int64_t i, int64_t j)
{
    return std::string(array) + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
}

std::string valueText(float v)
{
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s;
}

GraphTensors nodeTensors(const NdArray<float>& nodeFeat, const NdArray<int64_t>& nodeOpcode,
    const NdArray<int64_t>& edgeIndex, const Normalizer& normalizer, int64_t opTableSize, const std::string& source)
{
    if (nodeFeat.ndim() != 2 || nodeFeat.dim(1) != kNodeFeatures)
        throw InputError(source, "node_feat", "shape " + shapeToString(nodeFeat.shape()) + " should be (N, 140)");
    const int64_t n = nodeFeat.dim(0);
    if (n == 0)
        throw InputError(source, "node_feat", "the graph has no nodes");
    if (nodeOpcode.size() != n)
        throw InputError(source, "node_opcode",
            "has " + std::to_string(nodeOpcode.size()) + " entries for " + std::to_string(n) + " nodes");
    if (edgeIndex.size() > 0 && (edgeIndex.ndim() != 2 || edgeIndex.dim(1) != 2))
        throw InputError(source, "edge_index", "shape " + shapeToString(edgeIndex.shape()) + " should be (E, 2)");

    GraphTensors t;
    // Columns 0..133 standardized exactly as Normalizer::apply does; 134..139 become tokens.
    NdArray<float> standardized = nodeFeat;
    normalizer.apply(standardized);
    t.numeric = torch::empty({ n, kNumericNodeFeatures }, torch::kFloat32);
    t.nodeLayoutTokens = torch::empty({ n, kNodeLayoutColumns }, torch::kInt64);
    t.opcodes = torch::empty({ n }, torch::kInt64);
    float* numeric = t.numeric.data_ptr<float>();
    int64_t* tokens = t.nodeLayoutTokens.data_ptr<int64_t>();
    int64_t* opcodes = t.opcodes.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
        const float* scaled = standardized.row(i);
        for (int64_t j = 0; j < kNumericNodeFeatures; ++j)
            if (!std::isfinite(scaled[j]))
                throw InputError(source, place("node_feat", i, j),
                    std::isfinite(nodeFeat.row(i)[j])
                        ? "value " + valueText(nodeFeat.row(i)[j]) + " is not finite after standardization"
                        : "value " + valueText(nodeFeat.row(i)[j]) + " is not finite");
        std::memcpy(numeric + i * kNumericNodeFeatures, scaled, sizeof(float) * kNumericNodeFeatures);
        const float* row = nodeFeat.row(i);
        for (int64_t j = 0; j < kNodeLayoutColumns; ++j) {
            float v = row[kNumericNodeFeatures + j];
            // Decision (docs/model.md §2.7): a tensor of rank > 6 has axis numbers 6, 7, ... among the
            // first six minor_to_major entries the featurizer keeps (an 8-D pixel-shuffle reshape
            // does). The shared 8-token table has no rows for them, so they take the token of axis 5
            // ("a high axis") instead of making the graph unusable. node_config_feat cannot hold
            // such values (its base-7 storage stops at 5), so configs are not affected.
            if (v > 5.0f && v <= 64.0f && v == std::floor(v))
                v = 5.0f;
            if (!isLayoutValue(v))
                throw InputError(source, place("node_feat", i, kNumericNodeFeatures + j),
                    "layout value " + valueText(v) + " is not an axis number (an integer in -1..63)");
            tokens[i * kNodeLayoutColumns + j] = int64_t(v) + 2;
        }
        const int64_t op = nodeOpcode[i];
        if (op < 0 || op >= opTableSize)
            throw InputError(source, place("node_opcode", i),
                "opcode " + std::to_string(op) + " is outside the model's opcode table (ids 0.."
                    + std::to_string(opTableSize - 1) + ")");
        opcodes[i] = op;
    }

    const int64_t e = edgeIndex.size() / 2;
    t.edges = torch::empty({ 2, e }, torch::kInt64);
    int64_t* consumer = t.edges.data_ptr<int64_t>();
    int64_t* producer = consumer + e;
    for (int64_t k = 0; k < e; ++k) {
        for (int64_t side = 0; side < 2; ++side) {
            const int64_t id = edgeIndex(k, side);
            if (id < 0 || id >= n)
                throw InputError(source, place("edge_index", k, side),
                    "node id " + std::to_string(id) + " out of range [0, " + std::to_string(n) + ")");
        }
        consumer[k] = edgeIndex(k, 0);
        producer[k] = edgeIndex(k, 1);
    }
    t.configNodeIds = torch::empty({ 0 }, torch::kInt64);
    return t;
}

} // namespace

GraphTensors makeGraphTensors(
    const LayoutGraph& graph, const Normalizer& normalizer, int64_t opTableSize, const std::string& source)
{
    GraphTensors t = nodeTensors(graph.nodeFeat, graph.nodeOpcode, graph.edgeIndex, normalizer, opTableSize, source);
    const int64_t n = t.nodes();
    const int64_t nc = graph.nodeConfigIds.size();
    t.configNodeIds = torch::empty({ nc }, torch::kInt64);
    int64_t* ids = t.configNodeIds.data_ptr<int64_t>();
    std::vector<bool> seen(size_t(n), false);
    for (int64_t k = 0; k < nc; ++k) {
        const int64_t id = graph.nodeConfigIds[k];
        if (id < 0 || id >= n)
            throw InputError(source, place("node_config_ids", k),
                "node id " + std::to_string(id) + " out of range [0, " + std::to_string(n) + ")");
        if (seen[size_t(id)])
            throw InputError(source, place("node_config_ids", k), "node " + std::to_string(id) + " is listed twice");
        seen[size_t(id)] = true;
        ids[k] = id;
    }
    return t;
}

GraphTensors makeGraphTensors(
    const TileGraph& graph, const Normalizer& normalizer, int64_t opTableSize, const std::string& source)
{
    return nodeTensors(graph.nodeFeat, graph.nodeOpcode, graph.edgeIndex, normalizer, opTableSize, source);
}

torch::Tensor makeConfigTokens(
    const NdArray<float>& nodeConfigFeat, const std::vector<int64_t>& rows, const std::string& source)
{
    if (nodeConfigFeat.ndim() != 3 || nodeConfigFeat.dim(2) != kConfigSlots)
        throw InputError(
            source, "node_config_feat", "shape " + shapeToString(nodeConfigFeat.shape()) + " should be (C, Nc, 18)");
    const int64_t nc = nodeConfigFeat.dim(1);
    const int64_t rowSize = nc * kConfigSlots;
    auto tokens = torch::empty({ int64_t(rows.size()), nc, kConfigSlots }, torch::kInt64);
    int64_t* out = tokens.data_ptr<int64_t>();
    for (size_t r = 0; r < rows.size(); ++r) {
        const int64_t row = rows[r];
        if (row < 0 || row >= nodeConfigFeat.dim(0))
            throw std::out_of_range("makeConfigTokens: config row " + std::to_string(row) + " out of range");
        const float* values = nodeConfigFeat.row(row);
        const int64_t bad = findInvalidLayoutValue(values, rowSize);
        if (bad >= 0)
            throw InputError(source,
                "node_config_feat[" + std::to_string(row) + "," + std::to_string(bad / kConfigSlots) + ","
                    + std::to_string(bad % kConfigSlots) + "]",
                "value " + valueText(values[bad]) + " is not a layout value (an integer in -1..5)");
        for (int64_t k = 0; k < rowSize; ++k)
            out[int64_t(r) * rowSize + k] = int64_t(values[k]) + 2;
    }
    return tokens;
}

torch::Tensor makeConfigTokens(
    const NdArray<int32_t>& compressedConfigs, const std::vector<int64_t>& rows, const std::string& source)
{
    NdArray<float> values;
    try {
        values = decompressConfigRows(compressedConfigs, rows);
    } catch (const InputError& e) {
        throw InputError(source, e.place(), e.problem());
    }
    return makeConfigTokens(values, allRows(int64_t(rows.size())), source);
}

LayoutBatch makeLayoutBatch(const LayoutGraph& graph, const Normalizer& normalizer, const std::vector<int64_t>& rows,
    int64_t opTableSize, const std::string& source)
{
    LayoutBatch batch;
    batch.graph = makeGraphTensors(graph, normalizer, opTableSize, source);
    batch.configTokens = makeConfigTokens(graph.nodeConfigFeat, rows, source);
    if (batch.configTokens.size(1) != batch.graph.configNodeIds.size(0))
        throw InputError(source, "node_config_feat",
            "has " + std::to_string(batch.configTokens.size(1))
                + " configurable nodes per config but node_config_ids lists "
                + std::to_string(batch.graph.configNodeIds.size(0)));
    if (!graph.simInputs.empty())
        batch.simInputs = makeSimInputs(graph.simInputs, rows);
    return batch;
}

torch::Tensor makeSimInputs(const NdArray<float>& simInputs, const std::vector<int64_t>& rows)
{
    if (simInputs.empty())
        return {};
    const int64_t rowSize = simInputs.rowSize();
    auto out = torch::empty({ int64_t(rows.size()), simInputs.dim(1), simInputs.dim(2) }, torch::kFloat32);
    float* o = out.data_ptr<float>();
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] < 0 || rows[i] >= simInputs.dim(0))
            throw std::out_of_range("makeSimInputs: row " + std::to_string(rows[i]) + " out of range");
        std::copy_n(simInputs.row(rows[i]), rowSize, o + int64_t(i) * rowSize);
    }
    return out;
}

void attachSimInputRows(LayoutBatch& batch, bool modelTakesThem, const NdArray<float>& simInputs,
    const std::vector<int64_t>& rows, const std::string& source)
{
    if (!modelTakesThem) {
        batch.simInputs = torch::Tensor();
        return;
    }
    if (simInputs.empty())
        throw InputError(source, "", "the model takes simulator inputs (trained with --sim-inputs) but this graph has none: its HLO module was not found (docs/model.md §4.9)");
    batch.simInputs = makeSimInputs(simInputs, rows);
}

TileBatch makeTileBatch(const TileGraph& graph, const Normalizer& normalizer, const std::vector<int64_t>& rows,
    int64_t opTableSize, const std::string& source)
{
    if (graph.configFeat.ndim() != 2 || graph.configFeat.dim(1) != kTileConfigWidth)
        throw InputError(
            source, "config_feat", "shape " + shapeToString(graph.configFeat.shape()) + " should be (C, 24)");
    TileBatch batch;
    batch.graph = makeGraphTensors(graph, normalizer, opTableSize, source);
    batch.configFeat = torch::empty({ int64_t(rows.size()), kTileConfigWidth }, torch::kFloat32);
    float* out = batch.configFeat.data_ptr<float>();
    for (size_t r = 0; r < rows.size(); ++r) {
        if (rows[r] < 0 || rows[r] >= graph.configFeat.dim(0))
            throw std::out_of_range("makeTileBatch: config row " + std::to_string(rows[r]) + " out of range");
        const float* values = graph.configFeat.row(rows[r]);
        for (int64_t k = 0; k < kTileConfigWidth; ++k) {
            if (!std::isfinite(values[k]))
                throw InputError(source, place("config_feat", rows[r], k), "value is not finite");
            out[int64_t(r) * kTileConfigWidth + k] = values[k];
        }
    }
    return batch;
}

torch::Tensor scatterConfigTokens(const LayoutBatch& batch)
{
    const int64_t c = batch.configs();
    auto dense = torch::zeros({ c, batch.graph.nodes(), kConfigSlots }, torch::kInt64); // token 0 = value -2
    dense.index_copy_(1, batch.graph.configNodeIds, batch.configTokens);
    return dense;
}

std::vector<int64_t> allRows(int64_t count)
{
    std::vector<int64_t> rows(size_t(std::max<int64_t>(count, 0)));
    for (size_t i = 0; i < rows.size(); ++i)
        rows[i] = int64_t(i);
    return rows;
}

} // namespace tgraph::model
