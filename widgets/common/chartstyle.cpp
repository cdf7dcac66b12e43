// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/chartstyle.h"

#include "widgets/common/axispolicy.h"

#include <QAbstractAxis>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLocale>

#include <iterator>

namespace tgraph::widgets {

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

void setUp(QChart* chart)
{
    chart->setAnimationOptions(QChart::NoAnimation);
    // Axes that Qt labels itself (log axes, QValueAxis) format through the user's QLocale, as
    // every other number does (docs/studio.md §8.4); their printf format alone ignores it.
    chart->setLocalizeNumbers(true);
    chart->setLocale(QLocale());
    chart->legend()->setAlignment(Qt::AlignTop);
    // The plot gets the room: no rounded frame inset from the view (Qt's default spends about 20
    // pixels on each side of a docked chart on it).
    chart->setBackgroundRoundness(0);
    if (chart->layout())
        chart->layout()->setContentsMargins(0, 0, 0, 0);
    AxisPolicy::fitToPlotArea(chart);
}

} // namespace ChartStyle

} // namespace tgraph::widgets
