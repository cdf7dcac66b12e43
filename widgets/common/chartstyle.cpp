// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/chartstyle.h"

#include <QAbstractAxis>
#include <QChart>

#include <iterator>

namespace ChartStyle {

QColor category(size_t index)
{
    static const QColor palette[] = { QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
        QColor(214, 39, 40), QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127) };
    return palette[index % std::size(palette)];
}

void clear(QChart* chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes())
        chart->removeAxis(axis);
}

} // namespace ChartStyle
