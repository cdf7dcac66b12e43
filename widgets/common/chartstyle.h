// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

#include <cstddef>

class QChart;

namespace tgraph::widgets {

// What the studio's Qt Charts views share.
namespace ChartStyle {

// The categorical palette (matplotlib's tab10 order) for runs, collections and series.
QColor category(size_t index);
// Removes every series and axis of `chart`, before it is filled again.
void clear(QChart* chart);
// What every chart of the studio starts with: no animation, the legend on top, no frame inset, its NiceAxis
// objects re-ticked to the plot area (AxisPolicy::fitToPlotArea, widgets/common/axispolicy.h).
void setUp(QChart* chart);

} // namespace ChartStyle

} // namespace tgraph::widgets
