// SPDX-License-Identifier: Apache-2.0
#include "core/metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace tgraph {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void requireSameSize(
    const char* fn, std::span<const double> a, const char* aName, std::span<const double> b, const char* bName)
{
    if (a.size() != b.size()) {
        throw std::invalid_argument(std::string(fn) + ": " + aName + " and " + bName
            + " must have the same length (got " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")");
    }
}

void requireNoNaN(const char* fn, std::span<const double> v, const char* name)
{
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (std::isnan(v[i])) {
            throw std::invalid_argument(std::string(fn) + ": " + name + "[" + std::to_string(i) + "] is NaN");
        }
    }
}

void requireNonEmpty(const char* fn, std::span<const double> v, const char* name)
{
    if (v.empty()) {
        throw std::invalid_argument(std::string(fn) + ": " + name + " is empty");
    }
}

// Number of unordered pairs among `c` equal items.
constexpr int64_t pairsOf(int64_t c) { return c * (c - 1) / 2; }

// Sorts `v` ascending (stable bottom-up merge sort) and returns the number of strict inversions, i.e. pairs
// i < j with v[i] > v[j] in the input order. Equal values are not inversions.
int64_t sortCountingInversions(std::vector<double>& v)
{
    const std::size_t n = v.size();
    std::vector<double> buf(n);
    int64_t inversions = 0;
    for (std::size_t width = 1; width < n; width *= 2) {
        for (std::size_t lo = 0; lo < n; lo += 2 * width) {
            const std::size_t mid = std::min(lo + width, n);
            const std::size_t hi = std::min(lo + 2 * width, n);
            std::size_t i = lo;
            std::size_t j = mid;
            std::size_t out = lo;
            while (i < mid && j < hi) {
                if (v[j] < v[i]) {
                    // v[j] jumps ahead of every element still waiting in the left run.
                    inversions += static_cast<int64_t>(mid - i);
                    buf[out++] = v[j++];
                } else {
                    buf[out++] = v[i++];
                }
            }
            while (i < mid) {
                buf[out++] = v[i++];
            }
            while (j < hi) {
                buf[out++] = v[j++];
            }
        }
        v.swap(buf);
    }
    return inversions;
}

// Fenwick (binary indexed) tree of counts over 1-based positions.
class CountTree
{
public:
    explicit CountTree(std::size_t size)
        : m_tree(size + 1, 0)
    { }

    void add(std::size_t pos)
    {
        for (std::size_t i = pos; i < m_tree.size(); i += i & (~i + 1)) {
            ++m_tree[i];
        }
    }

    // Number of inserted items at positions 1..pos.
    int64_t prefix(std::size_t pos) const
    {
        int64_t total = 0;
        for (std::size_t i = pos; i > 0; i -= i & (~i + 1)) {
            total += m_tree[i];
        }
        return total;
    }

private:
    std::vector<int64_t> m_tree;
};

// Indices of the k lowest scores (ties by index), in no particular order. Requires 1 <= k <= n.
std::vector<std::size_t> lowestScored(std::span<const double> scores, std::size_t k)
{
    std::vector<std::size_t> idx(scores.size());
    std::iota(idx.begin(), idx.end(), std::size_t { 0 });
    auto before
        = [&](std::size_t a, std::size_t b) { return scores[a] < scores[b] || (scores[a] == scores[b] && a < b); };
    if (k < idx.size()) {
        std::nth_element(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(), before);
        idx.resize(k);
    }
    return idx;
}

// Minimum runtime among the k lowest-scored configs, and overall minimum runtime.
std::pair<double, double> topKAndBest(
    const char* fn, std::span<const double> runtimes, std::span<const double> scores, int k)
{
    requireSameSize(fn, runtimes, "runtimes", scores, "scores");
    requireNonEmpty(fn, runtimes, "runtimes");
    requireNoNaN(fn, runtimes, "runtimes");
    requireNoNaN(fn, scores, "scores");
    if (k < 1) {
        throw std::invalid_argument(std::string(fn) + ": k must be at least 1 (got " + std::to_string(k) + ")");
    }
    const std::size_t kk = std::min(static_cast<std::size_t>(k), runtimes.size());
    double topMin = std::numeric_limits<double>::infinity();
    for (std::size_t i : lowestScored(scores, kk)) {
        topMin = std::min(topMin, runtimes[i]);
    }
    const double best = *std::min_element(runtimes.begin(), runtimes.end());
    return { topMin, best };
}

} // namespace

double kendallTauB(std::span<const double> x, std::span<const double> y)
{
    requireSameSize("kendallTauB", x, "x", y, "y");
    requireNoNaN("kendallTauB", x, "x");
    requireNoNaN("kendallTauB", y, "y");
    const std::size_t n = x.size();
    if (n < 2) {
        return kNaN;
    }

    // Order by (x, y): within a run of equal x the y values are ascending, so every strict inversion of the
    // resulting y sequence is a discordant pair (pairs tied in x are never counted as inversions).
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]); });

    int64_t xTies = 0; // pairs with equal x
    int64_t jointTies = 0; // pairs with equal x and equal y
    {
        int64_t xRun = 1;
        int64_t jointRun = 1;
        for (std::size_t i = 1; i <= n; ++i) {
            const bool sameX = i < n && x[order[i]] == x[order[i - 1]];
            const bool sameXY = sameX && y[order[i]] == y[order[i - 1]];
            if (sameXY) {
                ++jointRun;
            } else {
                jointTies += pairsOf(jointRun);
                jointRun = 1;
            }
            if (sameX) {
                ++xRun;
            } else {
                xTies += pairsOf(xRun);
                xRun = 1;
            }
        }
    }

    std::vector<double> ys(n);
    for (std::size_t i = 0; i < n; ++i) {
        ys[i] = y[order[i]];
    }
    const int64_t discordant = sortCountingInversions(ys);

    int64_t yTies = 0; // pairs with equal y (ys is now sorted)
    {
        int64_t run = 1;
        for (std::size_t i = 1; i <= n; ++i) {
            if (i < n && ys[i] == ys[i - 1]) {
                ++run;
            } else {
                yTies += pairsOf(run);
                run = 1;
            }
        }
    }

    const int64_t total = pairsOf(static_cast<int64_t>(n));
    if (xTies == total || yTies == total) {
        return kNaN;
    }
    // total = concordant + discordant + (xTies - jointTies) + (yTies - jointTies) + jointTies
    const int64_t concordantMinusDiscordant = total - xTies - yTies + jointTies - 2 * discordant;
    const double tau = static_cast<double>(concordantMinusDiscordant) / std::sqrt(static_cast<double>(total - xTies))
        / std::sqrt(static_cast<double>(total - yTies));
    return std::clamp(tau, -1.0, 1.0);
}

double orderedPairAccuracy(std::span<const double> runtimes, std::span<const double> scores)
{
    requireSameSize("orderedPairAccuracy", runtimes, "runtimes", scores, "scores");
    requireNoNaN("orderedPairAccuracy", runtimes, "runtimes");
    requireNoNaN("orderedPairAccuracy", scores, "scores");
    const std::size_t n = runtimes.size();

    // Dense 1-based ranks of the scores, so that equal scores share a Fenwick position.
    std::vector<double> distinct(scores.begin(), scores.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<std::size_t> scoreRank(n);
    for (std::size_t i = 0; i < n; ++i) {
        scoreRank[i]
            = static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), scores[i]) - distinct.begin())
            + 1;
    }

    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return runtimes[a] < runtimes[b]; });

    // Sweep runtimes upwards one group of equal runtimes at a time. The tree holds exactly the configs with a
    // strictly smaller runtime than the current group, so runtime ties never form a pair.
    CountTree tree(distinct.size());
    int64_t numerator = 0;
    int64_t denominator = 0;
    int64_t inserted = 0;
    std::size_t groupBegin = 0;
    while (groupBegin < n) {
        std::size_t groupEnd = groupBegin + 1;
        while (groupEnd < n && runtimes[order[groupEnd]] == runtimes[order[groupBegin]]) {
            ++groupEnd;
        }
        for (std::size_t g = groupBegin; g < groupEnd; ++g) {
            denominator += inserted;
            numerator += tree.prefix(scoreRank[order[g]] - 1); // strictly smaller score
        }
        for (std::size_t g = groupBegin; g < groupEnd; ++g) {
            tree.add(scoreRank[order[g]]);
        }
        inserted += static_cast<int64_t>(groupEnd - groupBegin);
        groupBegin = groupEnd;
    }
    if (denominator == 0) {
        return kNaN;
    }
    return static_cast<double>(numerator) / static_cast<double>(denominator);
}

double topKSlowdown(std::span<const double> runtimes, std::span<const double> scores, int k)
{
    const auto [topMin, best] = topKAndBest("topKSlowdown", runtimes, scores, k);
    return (topMin - best) / best;
}

double tileScore(std::span<const double> runtimes, std::span<const double> scores, int k)
{
    const auto [topMin, best] = topKAndBest("tileScore", runtimes, scores, k);
    return 2.0 - topMin / best;
}

double apePercent(std::span<const KernelPrediction> kernels)
{
    double errorSum = 0.0;
    double bestSum = 0.0;
    for (std::size_t kIdx = 0; kIdx < kernels.size(); ++kIdx) {
        const KernelPrediction& kp = kernels[kIdx];
        const std::string fn = "apePercent (kernel " + std::to_string(kIdx) + ")";
        requireSameSize(fn.c_str(), kp.runtimes, "runtimes", kp.scores, "scores");
        requireNonEmpty(fn.c_str(), kp.runtimes, "runtimes");
        requireNoNaN(fn.c_str(), kp.runtimes, "runtimes");
        requireNoNaN(fn.c_str(), kp.scores, "scores");
        // First occurrence of the lowest score: ties broken by index.
        const auto chosen = std::min_element(kp.scores.begin(), kp.scores.end()) - kp.scores.begin();
        const double best = *std::min_element(kp.runtimes.begin(), kp.runtimes.end());
        errorSum += std::abs(kp.runtimes[static_cast<std::size_t>(chosen)] - best);
        bestSum += best;
    }
    if (kernels.empty()) {
        return kNaN;
    }
    return 100.0 * errorSum / bestSum;
}

std::vector<int64_t> rankByScore(std::span<const double> scores)
{
    requireNoNaN("rankByScore", scores, "scores");
    std::vector<int64_t> idx(scores.size());
    std::iota(idx.begin(), idx.end(), int64_t { 0 });
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
        return scores[static_cast<std::size_t>(a)] < scores[static_cast<std::size_t>(b)];
    });
    return idx;
}

} // namespace tgraph
