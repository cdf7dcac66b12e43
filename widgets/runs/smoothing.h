// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace tgraph::widgets {

// TensorBoard's scalar smoothing (vz_line_chart2 line-chart.ts, resmoothDataset;
// docs/studio.md §2.1): an exponential moving average debiased like Adam's moments, so that the
// first points are not pulled towards 0. With weight w, for the k-th finite value v_k
// (k = 1, 2, ...):
//     last_k = w * last_{k-1} + (1 - w) * v_k,  last_0 = 0,  smoothed_k = last_k / (1 - w^k).
// Non-finite values pass through unchanged and neither count nor move the average; a constant
// series (every value equal) is returned as is. w is clamped to [0, 0.999] (NaN counts as 0);
// w = 0 returns the input. TensorBoard's default weight is 0.6.
std::vector<double> debiasedEma(const std::vector<double>& values, double weight);

constexpr double kDefaultSmoothing = 0.6;

} // namespace tgraph::widgets
