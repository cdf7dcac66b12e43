// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runcurvedata.h"

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

namespace RunCurveData {

bool higherIsBetter(const std::string& key)
{
    static const char* const higher[] = { "tau", "opa", "tile_score", "steps_per_s", "tokens_per_s" };
    return std::any_of(std::begin(higher), std::end(higher), [&key](const char* k) { return key == k; });
}

int64_t bestIndex(const tgraph::MetricSeries& series)
{
    const bool higher = higherIsBetter(series.key);
    int64_t best = -1;
    for (size_t i = 0; i < series.points.size(); ++i) {
        const double v = series.points[i].value;
        if (!std::isfinite(v))
            continue;
        if (best < 0) {
            best = int64_t(i);
            continue;
        }
        const double b = series.points[size_t(best)].value;
        if (higher ? v > b : v < b)
            best = int64_t(i);
    }
    return best;
}

double xOf(const tgraph::MetricPoint& point, CurveXAxis axis, int64_t startMs)
{
    switch (axis) {
    case CurveXAxis::Step:
        break;
    case CurveXAxis::RelativeTime:
        return double(point.wallMs - startMs) / 1000.0;
    case CurveXAxis::WallTime:
        return double(point.wallMs);
    }
    return double(point.step);
}

namespace {

// d3.quantile: linear interpolation between the closest ranks of sorted values.
double quantile(const std::vector<double>& sorted, double p)
{
    const double index = double(sorted.size() - 1) * p;
    const size_t below = size_t(std::floor(index));
    const size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (sorted[above] - sorted[below]) * (index - double(below));
}

} // namespace

Range valueRange(const std::vector<double>& values, bool ignoreOutliers, bool positiveOnly)
{
    std::vector<double> usable;
    usable.reserve(values.size());
    for (const double v : values)
        if (std::isfinite(v) && (!positiveOnly || v > 0))
            usable.push_back(v);
    if (usable.empty())
        return {};
    std::sort(usable.begin(), usable.end());
    if (ignoreOutliers)
        return { quantile(usable, 0.05), quantile(usable, 0.95), true };
    return { usable.front(), usable.back(), true };
}

Range unite(const Range& range, const Range& other)
{
    if (!other.valid)
        return range;
    if (!range.valid)
        return other;
    return { std::min(range.lo, other.lo), std::max(range.hi, other.hi), true };
}

} // namespace RunCurveData

} // namespace tgraph::widgets
