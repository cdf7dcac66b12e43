// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

// The studio's colour maps, shared by the heatmaps, the colour bars and the graph overlays.
namespace ColorMaps {

// Sequential, perceptually uniform (matplotlib's viridis, sampled at nine stops): t in [0, 1]
// from dark purple to yellow. NaN and values outside [0, 1] are clamped (NaN -> 0).
QColor viridis(double t);
// Diverging for signed values (matplotlib's RdBu reversed): t in [-1, 1], -1 = blue, 0 = white,
// +1 = red. NaN -> white.
QColor diverging(double t);

} // namespace ColorMaps
