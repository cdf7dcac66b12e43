// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/rankscatterdata.h"

#include "widgets/common/formatting.h"

#include "core/metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tgraph::widgets {

namespace {

std::vector<int64_t> ascendingOrder(const std::vector<double>& values)
{
    std::vector<int64_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(
        order.begin(), order.end(), [&](int64_t a, int64_t b) { return values[size_t(a)] < values[size_t(b)]; });
    return order;
}

std::vector<int64_t> ranksOf(const std::vector<int64_t>& order)
{
    std::vector<int64_t> rank(order.size());
    for (size_t r = 0; r < order.size(); ++r)
        rank[size_t(order[r])] = int64_t(r);
    return rank;
}

QString formatMetric(double value, int decimals)
{
    return std::isnan(value) ? QStringLiteral("n/a") : Formatting::number(value, decimals);
}

} // namespace

QString RankScatterData::metricsTitle() const
{
    if (!hasRuntimes())
        return QStringLiteral("no measured runtimes");
    return QStringLiteral("τ = %1, OPA = %2, top-5 slowdown = %3")
        .arg(formatMetric(kendallTau, 3), formatMetric(opa, 3),
            std::isnan(top5Slowdown) ? QStringLiteral("n/a") : Formatting::percent(top5Slowdown, 2));
}

int64_t RankScatterData::rowOfConfig(int64_t config) const
{
    const auto it = std::find(configIds.begin(), configIds.end(), config);
    return it == configIds.end() ? -1 : int64_t(it - configIds.begin());
}

RankScatterData makeRankScatterData(
    const QString& graph, std::vector<double> scores, std::vector<double> runtimes, std::vector<int64_t> configIds)
{
    RankScatterData d;
    d.graph = graph;
    const size_t n = scores.size();
    if (!runtimes.empty() && runtimes.size() != n)
        throw std::invalid_argument("rank scatter: runtimes and scores differ in length");
    if (!configIds.empty() && configIds.size() != n)
        throw std::invalid_argument("rank scatter: config ids and scores differ in length");
    for (size_t i = 0; i < n; ++i)
        if (std::isnan(scores[i]))
            throw std::invalid_argument("rank scatter: score " + std::to_string(i) + " is NaN");
    if (std::all_of(runtimes.begin(), runtimes.end(), [](double r) { return r == 0; }))
        runtimes.clear();
    if (configIds.empty()) {
        configIds.resize(n);
        std::iota(configIds.begin(), configIds.end(), 0);
    }
    d.scores = std::move(scores);
    d.runtimes = std::move(runtimes);
    d.configIds = std::move(configIds);
    d.predictedOrder = ascendingOrder(d.scores);
    d.predictedRank = ranksOf(d.predictedOrder);
    if (d.hasRuntimes()) {
        d.trueOrder = ascendingOrder(d.runtimes);
        d.trueRank = ranksOf(d.trueOrder);
        d.kendallTau = n >= 2 ? tgraph::kendallTauB(d.runtimes, d.scores) : std::nan("");
        d.opa = tgraph::orderedPairAccuracy(d.runtimes, d.scores);
        d.top5Slowdown = n > 0 ? tgraph::topKSlowdown(d.runtimes, d.scores, 5) : std::nan("");
    }
    return d;
}

} // namespace tgraph::widgets
