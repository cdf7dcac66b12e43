// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tgraph {

// Ranking metrics of docs/model.md §7. Scores follow the TGraph convention: a higher score
// means predicted slower, so the predicted-fastest config is the one with the lowest score.
// All functions are O(n log n) and take runtimes and scores of one graph.
// Input errors throw std::invalid_argument: paired inputs of different lengths, a NaN anywhere (the message
// names the offending index), empty inputs and k < 1 for topKSlowdown/tileScore, and an empty or mismatched
// kernel for apePercent.

// Kendall tau-b with tie correction, as scipy.stats.kendalltau (variant "b"). NaN when either
// side is constant or n < 2.
double kendallTauB(std::span<const double> x, std::span<const double> y);

// Ordered pair accuracy: sum 1[r_i > r_j] 1[s_i > s_j] / sum 1[r_i > r_j] (NaN if no pair has
// r_i > r_j).
double orderedPairAccuracy(std::span<const double> runtimes, std::span<const double> scores);

// (min true runtime among the k lowest-scored configs - best runtime) / best runtime.
// Ties in score are broken by config index (stable order); k > n means all configs.
double topKSlowdown(std::span<const double> runtimes, std::span<const double> scores, int k);

// Tile metric (docs/model.md §7.3): 2 - min_{i in top-k predicted} r_i / min_i r_i (k = 5 by default).
double tileScore(std::span<const double> runtimes, std::span<const double> scores, int k = 5);

// Kaufman et al. APE (docs/model.md §7.5) over kernels: 100 * sum_k |t(best predicted) - min t| / sum_k min t.
// The best predicted config of a kernel is its lowest score (first index on ties). NaN for no kernels.
struct KernelPrediction
{
    std::vector<double> runtimes;
    std::vector<double> scores;
};
double apePercent(std::span<const KernelPrediction> kernels);

// Indices of configs by ascending score (predicted-fastest first), ties by index.
std::vector<int64_t> rankByScore(std::span<const double> scores);

} // namespace tgraph
