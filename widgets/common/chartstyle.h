// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

#include <cstddef>

class QChart;

// What the studio's Qt Charts views share.
namespace ChartStyle {

// The categorical palette (matplotlib's tab10 order) for runs, collections and series.
QColor category(size_t index);
// Removes every series and axis of `chart`, before it is filled again.
void clear(QChart* chart);

} // namespace ChartStyle
