// SPDX-License-Identifier: Apache-2.0
#include "core/graph/configs.h"

#include "core/util/error.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace tgraph {

namespace {
constexpr int kGroups = kLayoutConfigFeatures / 6; // output, input, kernel tensors
constexpr int32_t kMaxCode = 117648; // 7^6 - 1

std::string element(int64_t c, int64_t n, int64_t j)
{
    return "node_config_feat[" + std::to_string(c) + "," + std::to_string(n) + "," + std::to_string(j) + "]";
}

uint64_t hashRow(const int32_t* row, int64_t count)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ uint64_t(count);
    for (int64_t i = 0; i < count; ++i) {
        h ^= uint64_t(uint32_t(row[i])) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 33);
}

// Group id of every config row (groups numbered by first occurrence).
std::vector<int64_t> groupRows(const NdArray<int32_t>& compressed, int64_t* groupCount)
{
    const int64_t configs = compressed.ndim() ? compressed.dim(0) : 0;
    const int64_t width = compressed.rowSize();
    std::vector<int64_t> group(static_cast<size_t>(configs));
    std::unordered_map<uint64_t, std::vector<int64_t>> firstRowsByHash; // hash -> first row of each group
    firstRowsByHash.reserve(size_t(configs));
    std::vector<int64_t> firstRowOfGroup;
    for (int64_t c = 0; c < configs; ++c) {
        const int32_t* row = compressed.row(c);
        auto& candidates = firstRowsByHash[hashRow(row, width)];
        int64_t found = -1;
        for (int64_t first : candidates) {
            if (std::memcmp(compressed.row(first), row, size_t(width) * sizeof(int32_t)) == 0) {
                found = group[size_t(first)];
                break;
            }
        }
        if (found < 0) {
            found = int64_t(firstRowOfGroup.size());
            firstRowOfGroup.push_back(c);
            candidates.push_back(c);
        }
        group[size_t(c)] = found;
    }
    *groupCount = int64_t(firstRowOfGroup.size());
    return group;
}
} // namespace

const char* dedupPolicyName(DedupPolicy policy)
{
    switch (policy) {
    case DedupPolicy::None:
        return "none";
    case DedupPolicy::KeepFirst:
        return "keep-first";
    case DedupPolicy::KeepMin:
        return "keep-min";
    }
    return "?";
}

bool parseDedupPolicy(const std::string& text, DedupPolicy* policy)
{
    for (DedupPolicy p : { DedupPolicy::None, DedupPolicy::KeepFirst, DedupPolicy::KeepMin }) {
        if (text == dedupPolicyName(p)) {
            *policy = p;
            return true;
        }
    }
    return false;
}

int64_t findInvalidLayoutValue(const float* values, int64_t count)
{
    constexpr int64_t kBlock = 4096;
    for (int64_t start = 0; start < count; start += kBlock) {
        const int64_t end = std::min(count, start + kBlock);
        int ok = 1;
        for (int64_t i = start; i < end; ++i) // branch-free so that it vectorizes
            ok &= int(isLayoutValue(values[i]));
        if (!ok) {
            for (int64_t i = start; i < end; ++i)
                if (!isLayoutValue(values[i]))
                    return i;
        }
    }
    return -1;
}

NdArray<int32_t> compressConfigs(const NdArray<float>& feat, const std::string& file)
{
    if (feat.ndim() != 3 || feat.dim(2) != kLayoutConfigFeatures)
        throw InputError(file, "node_config_feat", "shape " + shapeToString(feat.shape()) + " should be (C, Nc, 18)");
    const int64_t configs = feat.dim(0);
    const int64_t nodes = feat.dim(1);
    NdArray<int32_t> out({ configs, nodes, kGroups });
    const float* src = feat.data();
    int32_t* dst = out.data();
    for (int64_t cell = 0; cell < configs * nodes; ++cell) {
        for (int g = 0; g < kGroups; ++g) {
            int32_t code = 0;
            for (int k = 5; k >= 0; --k) {
                const float v = src[cell * kLayoutConfigFeatures + g * 6 + k];
                if (!isLayoutValue(v))
                    throw InputError(file, element(cell / nodes, cell % nodes, g * 6 + k),
                        "layout value " + std::to_string(v) + " is not an integer in -1..5");
                code = code * 7 + int32_t(v) + 1;
            }
            dst[cell * kGroups + g] = code;
        }
    }
    return out;
}

namespace {
void decompressCell(const int32_t* codes, float* out, int64_t c, int64_t n, const std::string& file)
{
    for (int g = 0; g < kGroups; ++g) {
        int32_t code = codes[g];
        if (code < 0 || code > kMaxCode)
            throw InputError(file,
                "node_config_feat[" + std::to_string(c) + "," + std::to_string(n) + "," + std::to_string(g) + "]",
                "compressed layout code " + std::to_string(code) + " outside 0.." + std::to_string(kMaxCode));
        for (int k = 0; k < 6; ++k) {
            out[g * 6 + k] = float(code % 7 - 1);
            code /= 7;
        }
    }
}
} // namespace

NdArray<float> decompressConfigs(const NdArray<int32_t>& compressed, const std::string& file)
{
    if (compressed.ndim() != 3 || compressed.dim(2) != kGroups)
        throw InputError(file, "node_config_feat",
            "compressed shape " + shapeToString(compressed.shape()) + " should be (C, Nc, 3)");
    const int64_t configs = compressed.dim(0);
    const int64_t nodes = compressed.dim(1);
    NdArray<float> out({ configs, nodes, kLayoutConfigFeatures });
    for (int64_t cell = 0; cell < configs * nodes; ++cell)
        decompressCell(compressed.data() + cell * kGroups, out.data() + cell * kLayoutConfigFeatures, cell / nodes,
            cell % nodes, file);
    return out;
}

NdArray<float> decompressConfigRows(const NdArray<int32_t>& compressed, const std::vector<int64_t>& rows)
{
    const int64_t nodes = compressed.dim(1);
    NdArray<float> out({ int64_t(rows.size()), nodes, kLayoutConfigFeatures });
    for (size_t r = 0; r < rows.size(); ++r) {
        if (rows[r] < 0 || rows[r] >= compressed.dim(0))
            throw std::out_of_range("decompressConfigRows: row " + std::to_string(rows[r]) + " out of range");
        for (int64_t n = 0; n < nodes; ++n)
            decompressCell(compressed.row(rows[r]) + n * kGroups,
                out.data() + (int64_t(r) * nodes + n) * kLayoutConfigFeatures, rows[r], n, {});
    }
    return out;
}

namespace {
// Policy None: every row kept.
DedupResult keepAll(int64_t configs, const NdArray<int64_t>& runtime)
{
    DedupResult result;
    result.groups = configs;
    for (int64_t c = 0; c < configs; ++c) {
        result.kept.push_back(c);
        result.keptRuntime.push_back(runtime[c]);
    }
    return result;
}
} // namespace

DedupResult dedupConfigs(const NdArray<float>& feat, const NdArray<int64_t>& runtime, DedupPolicy policy)
{
    if (policy == DedupPolicy::None)
        return keepAll(feat.dim(0), runtime);
    return dedupCompressedConfigs(compressConfigs(feat), runtime, policy);
}

NdArray<int32_t> keepConfigRows(const NdArray<int32_t>& compressed, const DedupResult& result)
{
    const int64_t kept = int64_t(result.kept.size());
    const int64_t width = compressed.rowSize();
    NdArray<int32_t> out({ kept, compressed.dim(1), compressed.dim(2) });
    for (int64_t i = 0; i < kept; ++i)
        std::copy_n(compressed.row(result.kept[size_t(i)]), width, out.row(i));
    return out;
}

DedupResult dedupCompressedConfigs(const NdArray<int32_t>& compressed, const NdArray<int64_t>& runtime, DedupPolicy policy)
{
    const int64_t configs = compressed.ndim() ? compressed.dim(0) : 0;
    if (policy == DedupPolicy::None)
        return keepAll(configs, runtime);
    DedupResult result;
    const std::vector<int64_t> group = groupRows(compressed, &result.groups);
    result.kept.assign(size_t(result.groups), -1);
    result.keptRuntime.assign(size_t(result.groups), 0);
    for (int64_t c = 0; c < configs; ++c) {
        const size_t g = size_t(group[size_t(c)]);
        if (result.kept[g] < 0) {
            result.kept[g] = c;
            result.keptRuntime[g] = runtime[c];
        } else if (policy == DedupPolicy::KeepMin && runtime[c] < result.keptRuntime[g]) {
            result.keptRuntime[g] = runtime[c];
        }
    }
    result.removed = configs - result.groups;
    return result;
}

int64_t countDuplicateConfigs(const NdArray<float>& feat)
{
    int64_t groups = 0;
    groupRows(compressConfigs(feat), &groups);
    return feat.dim(0) - groups;
}

void applyDedup(LayoutGraph& graph, const DedupResult& result)
{
    const int64_t kept = int64_t(result.kept.size());
    const int64_t width = graph.nodeConfigFeat.rowSize();
    NdArray<float> feat({ kept, graph.nodeConfigFeat.dim(1), kLayoutConfigFeatures });
    NdArray<int64_t> runtime({ kept });
    for (int64_t i = 0; i < kept; ++i) {
        std::copy_n(graph.nodeConfigFeat.row(result.kept[size_t(i)]), width, feat.row(i));
        runtime[i] = result.keptRuntime[size_t(i)];
    }
    graph.nodeConfigFeat = std::move(feat);
    graph.configRuntime = std::move(runtime);
    if (!graph.simInputs.empty()) {
        NdArray<float> sim({ kept, graph.simInputs.dim(1), graph.simInputs.dim(2) });
        for (int64_t i = 0; i < kept; ++i)
            std::copy_n(graph.simInputs.row(result.kept[size_t(i)]), graph.simInputs.rowSize(), sim.row(i));
        graph.simInputs = std::move(sim);
    }
}

} // namespace tgraph
