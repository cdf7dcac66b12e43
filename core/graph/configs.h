// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"

#include <string>
#include <vector>

namespace tgraph {

// Config de-duplication policy (docs/model.md §2.3).
enum class DedupPolicy {
    None,
    KeepFirst, // authors' code: the first row of each group of identical configs, with its runtime
    KeepMin, // paper: one row per group, carrying the group's smallest runtime
};
const char* dedupPolicyName(DedupPolicy policy);
bool parseDedupPolicy(const std::string& text, DedupPolicy* policy);

struct DedupResult
{
    std::vector<int64_t> kept; // first source row of each group of identical configs, ascending
    std::vector<int64_t> keptRuntime; // that row's runtime (keep-first) or the group's smallest (keep-min)
    int64_t groups = 0; // distinct configs
    int64_t removed = 0; // rows dropped
};

// Groups identical rows of node_config_feat (exact comparison of the Nc*18 values, via a hash of
// the base-7 compressed row). Kept rows are ordered by the position of each group's first row.
DedupResult dedupConfigs(
    const NdArray<float>& nodeConfigFeat, const NdArray<int64_t>& configRuntime, DedupPolicy policy);
// The same on the base-7 compressed rows (C, Nc, 3) (compression is lossless, so the groups are the same).
DedupResult dedupCompressedConfigs(
    const NdArray<int32_t>& compressed, const NdArray<int64_t>& configRuntime, DedupPolicy policy);
// The kept rows of compressed configurations, in the order of `result.kept`.
NdArray<int32_t> keepConfigRows(const NdArray<int32_t>& compressed, const DedupResult& result);
// Number of rows that are exact copies of an earlier row.
int64_t countDuplicateConfigs(const NdArray<float>& nodeConfigFeat);
// Applies a dedup result: keeps the selected rows of node_config_feat and config_runtime.
void applyDedup(LayoutGraph& graph, const DedupResult& result);

// True for the layout values node_config_feat may hold: integers -1..5 (-1 = compiler's choice).
inline bool isLayoutValue(float v)
{
    const float x = v + 1.0f;                            // 0..6 when valid
    const float rounded = (x + 8388608.0f) - 8388608.0f; // round to an integer (exact below 2^23)
    return (x >= 0.0f) & (x <= 6.0f) & (rounded == x);   // all false for NaN
}
// Index of the first value that is not a layout value, or -1 (a vectorized scan).
int64_t findInvalidLayoutValue(const float* values, int64_t count);

// Lossless base-7 compression (docs/model.md §2.4): each group of 6 values v in -1..5 becomes
// sum (v_k + 1) * 7^k, so (C, Nc, 18) float -> (C, Nc, 3) int32 and back. Values outside -1..5
// or non-integral throw InputError naming `file` and the element.
NdArray<int32_t> compressConfigs(const NdArray<float>& nodeConfigFeat, const std::string& file = {});
NdArray<float> decompressConfigs(const NdArray<int32_t>& compressed, const std::string& file = {});
// Decompress only selected config rows (batch-time decompression of sampled configs).
NdArray<float> decompressConfigRows(const NdArray<int32_t>& compressed, const std::vector<int64_t>& rows);

} // namespace tgraph
