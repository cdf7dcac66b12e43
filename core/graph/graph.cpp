// SPDX-License-Identifier: Apache-2.0
#include "core/graph/graph.h"

#include "core/graph/configs.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace tgraph {

const char* graphKindName(GraphKind kind) { return kind == GraphKind::Layout ? "layout" : "tile"; }

namespace {

bool allZero(const NdArray<int64_t>& a)
{
    for (int64_t v : a.values())
        if (v != 0)
            return false;
    return true;
}

std::string idx(const char* array, int64_t i) { return std::string(array) + "[" + std::to_string(i) + "]"; }
std::string idx(const char* array, int64_t i, int64_t j)
{
    return std::string(array) + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
}

void requireShape(const std::string& file, const char* array, const std::vector<int64_t>& shape,
    const std::vector<int64_t>& want, const std::string& why)
{
    if (shape != want)
        throw InputError(
            file, array, "shape " + shapeToString(shape) + " should be " + shapeToString(want) + " (" + why + ")");
}

int64_t checkNodeFeat(const std::string& file, const NdArray<float>& nodeFeat, bool checkValues)
{
    if (nodeFeat.ndim() != 2 || nodeFeat.dim(1) != kNodeFeatures)
        throw InputError(file, "node_feat",
            "shape " + shapeToString(nodeFeat.shape()) + " should be (N, " + std::to_string(kNodeFeatures) + ")");
    const int64_t n = nodeFeat.dim(0);
    if (n == 0)
        throw InputError(file, "node_feat", "empty graph: no nodes");
    const float* p = nodeFeat.data();
    constexpr int64_t kBlock = 4096;
    for (int64_t start = 0; checkValues && start < nodeFeat.size(); start += kBlock) {
        const int64_t end = std::min(nodeFeat.size(), start + kBlock);
        int finite = 1;
        for (int64_t i = start; i < end; ++i) // branch-free so that it vectorizes: x - x is 0 unless inf/NaN
            finite &= int(p[i] - p[i] == 0.0f);
        if (finite)
            continue;
        for (int64_t i = start; i < end; ++i)
            if (!std::isfinite(p[i]))
                throw InputError(file, idx("node_feat", i / kNodeFeatures, i % kNodeFeatures),
                    std::isnan(p[i]) ? "NaN feature" : "infinite feature");
    }
    return n;
}

void checkOpcodesAndEdges(
    const std::string& file, int64_t n, const NdArray<int64_t>& opcode, const NdArray<int64_t>& edges)
{
    requireShape(file, "node_opcode", opcode.shape(), { n }, "one opcode per node_feat row");
    for (int64_t i = 0; i < n; ++i)
        if (opcode[i] < 0 || opcode[i] > 255)
            throw InputError(file, idx("node_opcode", i), "opcode " + std::to_string(opcode[i]) + " outside 0..255");
    if (edges.ndim() != 2 || edges.dim(1) != 2)
        throw InputError(file, "edge_index", "shape " + shapeToString(edges.shape()) + " should be (E, 2)");
    const int64_t* e = edges.data();
    for (int64_t i = 0; i < edges.size(); ++i)
        if (e[i] < 0 || e[i] >= n)
            throw InputError(file, idx("edge_index", i / 2, i % 2),
                "node id " + std::to_string(e[i]) + " out of range [0, " + std::to_string(n) + ")");
}

void checkRuntimes(const std::string& file, const char* array, const NdArray<int64_t>& runtime, int64_t configs)
{
    if (runtime.ndim() != 1 || runtime.dim(0) != configs)
        throw InputError(file, array,
            "shape " + shapeToString(runtime.shape()) + " should be (" + std::to_string(configs)
                + ",) to match the configurations");
    if (allZero(runtime))
        return; // not measured (the test split of TpuGraphs)
    for (int64_t i = 0; i < configs; ++i)
        if (runtime[i] <= 0)
            throw InputError(file, idx(array, i),
                "runtime " + std::to_string(runtime[i]) + " is not positive (runtimes must all be > 0, "
                    + "or all 0 for unmeasured graphs)");
}

// No configurations at all is a graph-only file (an HLO module converted without tuning runs);
// 1..minConfigs-1 configurations cannot be ranked.
void checkConfigCount(const std::string& file, int64_t configs, int64_t minConfigs)
{
    if (configs > 0 && configs < minConfigs)
        throw InputError(file, "config_runtime",
            "only " + std::to_string(configs) + " configuration" + (configs == 1 ? "" : "s") + "; at least "
                + std::to_string(minConfigs) + " are needed to rank configurations");
}

} // namespace

namespace {
constexpr DType kF32 { ScalarType::Float32, false };
constexpr DType kI64 { ScalarType::Int64, false };

void setCommonStorage(std::map<std::string, ArrayStorage>& st, const NdArray<float>& feat,
    const NdArray<int64_t>& opcode, const NdArray<int64_t>& edges)
{
    st["node_feat"] = { kF32, feat.shape() };
    st["node_opcode"] = { DType { ScalarType::UInt8, false }, opcode.shape() };
    st["edge_index"] = { kI64, edges.shape() };
}
} // namespace

void setPublishedStorage(LayoutGraph& g)
{
    setCommonStorage(g.storage, g.nodeFeat, g.nodeOpcode, g.edgeIndex);
    g.storage["node_config_feat"] = { kF32, g.nodeConfigFeat.shape() };
    g.storage["node_config_ids"] = { kI64, g.nodeConfigIds.shape() };
    g.storage["config_runtime"] = { kI64, g.configRuntime.shape() };
    g.storage["node_splits"] = { kI64, { 1, g.nodeSplits.size() } };
}

void setPublishedStorage(TileGraph& g)
{
    setCommonStorage(g.storage, g.nodeFeat, g.nodeOpcode, g.edgeIndex);
    g.storage["config_feat"] = { kF32, g.configFeat.shape() };
    g.storage["config_runtime"] = { kI64, g.configRuntime.shape() };
    g.storage["config_runtime_normalizers"] = { kI64, g.configRuntimeNormalizers.shape() };
}

bool LayoutGraph::hasRuntimes() const { return !configRuntime.empty() && !allZero(configRuntime); }
bool TileGraph::hasRuntimes() const { return !configRuntime.empty() && !allZero(configRuntime); }

void validate(const LayoutGraph& g, const std::string& file, int64_t minConfigs, bool checkNodeFeatures)
{
    const int64_t n = checkNodeFeat(file, g.nodeFeat, checkNodeFeatures);
    checkOpcodesAndEdges(file, n, g.nodeOpcode, g.edgeIndex);

    if (g.nodeConfigIds.ndim() != 1)
        throw InputError(
            file, "node_config_ids", "shape " + shapeToString(g.nodeConfigIds.shape()) + " should be (Nc,)");
    const int64_t nc = g.nodeConfigIds.dim(0);
    std::unordered_set<int64_t> seen;
    for (int64_t k = 0; k < nc; ++k) {
        const int64_t id = g.nodeConfigIds[k];
        if (id < 0 || id >= n)
            throw InputError(file, idx("node_config_ids", k),
                "node id " + std::to_string(id) + " out of range [0, " + std::to_string(n) + ")");
        if (!seen.insert(id).second)
            throw InputError(file, idx("node_config_ids", k), "node " + std::to_string(id) + " is listed twice");
    }

    const auto& cf = g.nodeConfigFeat;
    if (cf.ndim() != 3 || cf.dim(2) != kLayoutConfigFeatures)
        throw InputError(file, "node_config_feat", "shape " + shapeToString(cf.shape()) + " should be (C, Nc, 18)");
    if (cf.dim(1) != nc)
        throw InputError(file, "node_config_feat",
            "has " + std::to_string(cf.dim(1)) + " configurable nodes per config but node_config_ids lists "
                + std::to_string(nc));
    const int64_t configs = cf.dim(0);
    checkConfigCount(file, configs, minConfigs);
    if (nc == 0 && configs > 0) // a module without configurable nodes can only be a graph without configs
        throw InputError(
            file, "node_config_ids", "no configurable nodes but " + std::to_string(configs) + " configurations");
    if (const int64_t i = findInvalidLayoutValue(cf.data(), cf.size()); i >= 0) {
        const int64_t perConfig = nc * kLayoutConfigFeatures;
        throw InputError(file,
            "node_config_feat[" + std::to_string(i / perConfig) + ","
                + std::to_string(i % perConfig / kLayoutConfigFeatures) + ","
                + std::to_string(i % kLayoutConfigFeatures) + "]",
            "layout value " + std::to_string(cf[i]) + " is not an integer in -1..5");
    }
    checkRuntimes(file, "config_runtime", g.configRuntime, configs);

    if (!g.nodeSplits.empty()) {
        int64_t previous = 0;
        for (int64_t i = 0; i < g.nodeSplits.size(); ++i) {
            const int64_t s = g.nodeSplits[i];
            if (s < previous || s > n)
                throw InputError(file, idx("node_splits", i),
                    "split " + std::to_string(s) + " is not non-decreasing within [0, " + std::to_string(n) + "]");
            previous = s;
        }
    }
}

void validate(const TileGraph& g, const std::string& file, int64_t minConfigs, bool checkNodeFeatures)
{
    const int64_t n = checkNodeFeat(file, g.nodeFeat, checkNodeFeatures);
    checkOpcodesAndEdges(file, n, g.nodeOpcode, g.edgeIndex);
    const auto& cf = g.configFeat;
    if (cf.ndim() != 2 || cf.dim(1) != kTileConfigFeatures)
        throw InputError(file, "config_feat", "shape " + shapeToString(cf.shape()) + " should be (C, 24)");
    const int64_t configs = cf.dim(0);
    checkConfigCount(file, configs, minConfigs);
    for (int64_t i = 0; i < cf.size(); ++i)
        if (!std::isfinite(cf[i]))
            throw InputError(
                file, idx("config_feat", i / kTileConfigFeatures, i % kTileConfigFeatures), "not a finite value");
    checkRuntimes(file, "config_runtime", g.configRuntime, configs);
    checkRuntimes(file, "config_runtime_normalizers", g.configRuntimeNormalizers, configs);
    if (g.hasRuntimes() && allZero(g.configRuntimeNormalizers))
        throw InputError(file, "config_runtime_normalizers", "all zero although runtimes are measured");
}

} // namespace tgraph
