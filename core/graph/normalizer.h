// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"

#include <array>
#include <string>

namespace tgraph {

// Per-column standardization of the 134 numeric node_feat columns (docs/model.md §2.6):
// statistics over all nodes of all training graphs, population std (ddof 0), and std := 1 for a
// constant column (sklearn StandardScaler's rule: var <= n*eps*var + (n*mean*eps)^2).
// Accumulation is in double with Chan's parallel update, so graphs can be added one at a time.
class Normalizer
{
public:
    static constexpr int kColumns = kNumericNodeFeatures;

    void add(const NdArray<float>& nodeFeat); // (N, >= 134)
    // Adds the nodes another (unfinished) normalizer was given, with the same update as add(): a
    // normalizer holding one graph's nodes, merged, gives bit for bit what add() of that graph gives.
    void merge(const Normalizer& other);
    void finish(); // computes mean/std from what was added
    bool isFinished() const { return m_finished; }
    int64_t count() const { return m_count; }

    const std::array<double, kColumns>& mean() const { return m_mean; }
    const std::array<double, kColumns>& stddev() const { return m_std; }

    // In place: (x - mean) / std on columns 0..133; columns 134.. untouched.
    void apply(NdArray<float>& nodeFeat) const;

    // npz with float64 arrays `normalizer_mean`, `normalizer_std` (134,) and int64 `normalizer_count`.
    void save(const std::string& path) const;
    static Normalizer load(const std::string& path);
    // From given statistics (a model weights file). Precondition: finite means, finite stds > 0
    // (callers validate and report where a value is wrong); throws std::invalid_argument otherwise.
    static Normalizer fromStatistics(
        const std::array<double, kColumns>& mean, const std::array<double, kColumns>& stddev, int64_t count = 0);

private:
    // Chan et al.'s pairwise update with the statistics of n more nodes.
    void combine(int64_t n, const std::array<double, kColumns>& mean, const std::array<double, kColumns>& m2);

    int64_t m_count = 0;
    std::array<double, kColumns> m_mean {};
    std::array<double, kColumns> m_m2 {}; // sum of squared deviations
    std::array<double, kColumns> m_std {};
    bool m_finished = false;
};

// Approximate -1 re-padding of node_feat columns 134..139 (docs/model.md §2.1): with r = number of
// leading non-zero shape dims (columns 21..26), set columns 134+r..139 to -1. Off by default.
void repadLayoutColumns(NdArray<float>& nodeFeat);

} // namespace tgraph
