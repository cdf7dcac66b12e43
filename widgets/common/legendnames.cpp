// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/legendnames.h"

#include "widgets/common/distinctnames.h"

#include <QAbstractSeries>
#include <QChart>
#include <QCursor>
#include <QFontMetrics>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QToolTip>

#include <algorithm>

namespace tgraph::widgets {

namespace {
constexpr const char* kFullName = "legendFullName";
// A note is kept only while the name beside it has at least this many characters of room.
constexpr int kNameCharactersBeforeNote = 12;
} // namespace

LegendNames::LegendNames(QChart* chart)
    : QObject(chart)
    , m_chart(chart)
{
    // Queued: names set during the chart's own layout pass would re-enter it.
    connect(chart, &QChart::geometryChanged, this, &LegendNames::fit, Qt::QueuedConnection);
}

void LegendNames::set(
    QChart* chart, const QList<QAbstractSeries*>& series, const QStringList& names, const QStringList& notes)
{
    auto* self = chart->findChild<LegendNames*>(QString(), Qt::FindDirectChildrenOnly);
    if (!self)
        self = new LegendNames(chart);
    self->m_series.clear();
    for (QAbstractSeries* s : series)
        self->m_series << s;
    self->m_names = names;
    self->m_notes = notes;
    for (qsizetype i = 0; i < series.size(); ++i) {
        QAbstractSeries* s = series[i];
        s->setProperty(kFullName, names.value(i) + notes.value(i));
        for (QLegendMarker* marker : chart->legend()->markers(s)) {
            disconnect(marker, &QLegendMarker::hovered, self, nullptr);
            connect(marker, &QLegendMarker::hovered, self, [s = QPointer<QAbstractSeries>(s)](bool on) {
                if (on && s)
                    QToolTip::showText(QCursor::pos(), fullName(s));
                else
                    QToolTip::hideText();
            });
        }
    }
    self->fit();
}

QString LegendNames::fullName(const QAbstractSeries* series)
{
    const QVariant full = series->property(kFullName);
    return full.isValid() ? full.toString() : series->name();
}

int LegendNames::roomPerEntry(const QChart* chart, int entries)
{
    // The legend spans the chart less its margins; from the chart's own size, which follows a
    // resize at once (the legend's geometry waits for the next layout pass).
    const QFontMetrics metrics(chart->legend()->font());
    const QMargins m = chart->margins();
    double width = chart->size().width() - m.left() - m.right();
    if (const QGraphicsLayout* layout = chart->layout()) {
        qreal left = 0, top = 0, right = 0, bottom = 0;
        layout->getContentsMargins(&left, &top, &right, &bottom);
        width -= left + right;
    }
    // Each entry also holds its marker and Qt's spacing around it.
    const double perEntry = width / std::max(1, entries) - (metrics.height() + 20);
    return std::max(int(perEntry), 4 * metrics.averageCharWidth());
}

void LegendNames::fit()
{
    QList<QAbstractSeries*> series;
    QStringList names, notes;
    for (qsizetype i = 0; i < m_series.size(); ++i)
        if (m_series[i]) {
            series << m_series[i];
            names << m_names.value(i);
            notes << m_notes.value(i);
        }
    if (series.isEmpty())
        return;
    int entries = 0;
    for (QLegendMarker* marker : m_chart->legend()->markers())
        entries += marker->isVisible();
    const int room = roomPerEntry(m_chart, std::max(entries, int(series.size())));
    const QFontMetrics metrics(m_chart->legend()->font());
    int noteWidth = 0;
    for (const QString& note : notes)
        noteWidth = std::max(noteWidth, metrics.horizontalAdvance(note));
    const bool withNotes = noteWidth > 0 && room - noteWidth >= kNameCharactersBeforeNote * metrics.averageCharWidth();
    const QStringList shown = DistinctNames::shorten(names, metrics, withNotes ? room - noteWidth : room);
    for (qsizetype i = 0; i < series.size(); ++i) {
        const QString label = shown[i] + (withNotes ? notes[i] : QString());
        if (series[i]->name() != label)
            series[i]->setName(label);
    }
}

} // namespace tgraph::widgets
