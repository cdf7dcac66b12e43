// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the rank scatter shows for one graph (docs/studio.md §5): each config's true rank by
// runtime (0 = fastest) against its predicted rank by score (0 = predicted fastest), the true and
// predicted top-5, and the graph's metrics computed by core/metrics/metrics.h. Plain data, no widgets.

#include <QString>

#include <cstdint>
#include <vector>

namespace tgraph::widgets {

struct RankScatterData
{
    QString graph;
    std::vector<double> scores; // per config, lower = predicted faster
    std::vector<double> runtimes; // per config (ns); empty when not measured
    std::vector<int64_t> configIds; // the config index each row stands for (file order)
    std::vector<int64_t> trueRank; // per row; empty without runtimes
    std::vector<int64_t> predictedRank; // per row
    std::vector<int64_t> trueOrder; // rows by ascending runtime (ties by row)
    std::vector<int64_t> predictedOrder; // rows by ascending score (ties by row)
    double kendallTau = 0; // NaN when undefined
    double opa = 0;
    double top5Slowdown = 0; // fraction
    bool simulated = false; // runtimes from the simulator, not a measurement

    bool hasRuntimes() const { return !runtimes.empty(); }
    int64_t size() const { return int64_t(scores.size()); }
    bool isTrueTop(int64_t row, int k = 5) const { return hasRuntimes() && trueRank[size_t(row)] < k; }
    bool isPredictedTop(int64_t row, int k = 5) const { return predictedRank[size_t(row)] < k; }
    // The row showing config id `config`, -1 when the data has none.
    int64_t rowOfConfig(int64_t config) const;
    // "τ = 0.52, OPA = 0.76, top-5 slowdown = 1.3%"; "no measured runtimes" without them.
    QString metricsTitle() const;
};

// Ranks and metrics for `scores` (and `runtimes` when not empty, same length; all-zero runtimes
// count as unmeasured). `configIds` empty = 0..n-1. Throws std::invalid_argument for NaN inputs
// or mismatched lengths.
RankScatterData makeRankScatterData(const QString& graph, std::vector<double> scores, std::vector<double> runtimes,
    std::vector<int64_t> configIds = {});

} // namespace tgraph::widgets
