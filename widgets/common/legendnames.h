// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

class QAbstractSeries;
class QChart;

namespace tgraph::widgets {

// The legend entries of a chart, kept distinct at any width (docs/studio.md §9): Qt Charts cuts a
// legend label at its end when the row is full, so "sweep-a / c0-s42" and "sweep-a / c0-s43" both
// read "sweep-a / c0-s4…". LegendNames shortens the names with DistinctNames::shorten to the room
// each entry has, keeps a note after each name while there is room for it ("  (best 0.83 at
// step 6)"), re-fits them whenever the chart is resized and shows the whole name and note in a
// tooltip when the pointer is on an entry.
class LegendNames : public QObject
{
    Q_OBJECT
public:
    // The legend entries of `series` read `names`, each followed by `notes[i]` (optional) when it fits.
    static void set(
        QChart* chart, const QList<QAbstractSeries*>& series, const QStringList& names, const QStringList& notes = {});
    // What `series`' legend entry stands for, whole (its name when LegendNames did not set it).
    static QString fullName(const QAbstractSeries* series);
    // The room, in pixels, of each of `entries` legend entries along `chart`'s legend.
    static int roomPerEntry(const QChart* chart, int entries);

private:
    explicit LegendNames(QChart* chart);
    void fit();

    QChart* m_chart;
    QList<QPointer<QAbstractSeries>> m_series;
    QStringList m_names;
    QStringList m_notes;
};

} // namespace tgraph::widgets
