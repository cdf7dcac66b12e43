// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

#include <utility>

namespace tgraph::widgets {

// The studio's colour maps, shared by the heatmaps, the colour bars and the graph overlays.
namespace ColorMaps {

// Sequential, perceptually uniform (matplotlib's viridis, sampled at nine stops): t in [0, 1]
// from dark purple to yellow. NaN and values outside [0, 1] are clamped (NaN -> 0).
QColor viridis(double t);
// Diverging for signed values (matplotlib's RdBu reversed): t in [-1, 1], -1 = blue, 0 = white,
// +1 = red. NaN -> white.
QColor diverging(double t);

// The smallest span of a colour range, relative to the scale of the values it paints
// (docs/studio.md §8.2): values that differ by less (softmax weights of 0.00862 to 0.0087, a gate
// difference of 1e-6) are noise, not structure, and get pale colours instead of stripes across
// the whole map.
constexpr double kMinimumRelativeSpan = 0.1;
// The range a sequential map spans for data lo..hi: lo..hi widened around its centre to at least
// kMinimumRelativeSpan of the larger of |lo| and |hi|; v - 0.5..v + 0.5 when every value is v.
std::pair<double, double> sequentialRange(double lo, double hi);
// The smallest half-width of a diverging range, relative to the magnitude of the values a
// difference was taken of: differences below it are float32 rounding (7 digits, less after a mean
// over many terms), so they are painted near white rather than full blue and red. Small real
// differences (a share difference of 1e-7 between shares of 5e-4) keep the whole map.
constexpr double kDivergingNoise = 1e-5;
// The half-width m of a diverging range -m..m for signed values whose largest magnitude is
// `largest`: at least kDivergingNoise of `reference`, the magnitude of the values a difference
// was taken of (0: none known); 1 when both are 0.
double divergingHalfRange(double largest, double reference);

} // namespace ColorMaps

} // namespace tgraph::widgets
