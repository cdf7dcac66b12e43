// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/project.h"

#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph::widgets {

// One metric history of one run, as the curves chart draws it.
struct RunCurve
{
    QString label; // legend text: the run's name ("name / fold-0" for a cross-validation fold)
    std::string runId;
    tgraph::MetricSeries series; // key, context and points by step (possibly downsampled)
    int64_t startMs = 0; // the run's start: 0 on the relative-time axis
};

enum class CurveXAxis { Step, RelativeTime, WallTime };

// The numbers behind the curves chart, free of any drawing.
namespace RunCurveData {

// Higher is better for tau, OPA, tile score and throughputs; lower for loss, slowdown and the rest.
bool higherIsBetter(const std::string& key);
// The best finite point of a series (the earliest of equal ones), -1 when it has none.
int64_t bestIndex(const tgraph::MetricSeries& series);
// x of a point: its step, seconds since `startMs`, or ms since the epoch (wall time).
double xOf(const tgraph::MetricPoint& point, CurveXAxis axis, int64_t startMs);

struct Range
{
    double lo = 0;
    double hi = 1;
    bool valid = false; // false when there was no usable value
};
// The y range the values need: min..max of the finite values (the positive ones for a log axis),
// or with `ignoreOutliers` the 5th..95th percentile, as TensorBoard's "Ignore outliers".
Range valueRange(const std::vector<double>& values, bool ignoreOutliers, bool positiveOnly);
// `range` widened to hold `other`.
Range unite(const Range& range, const Range& other);

} // namespace RunCurveData

} // namespace tgraph::widgets
