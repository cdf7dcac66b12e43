// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/parallelcoordinatesview.h"

#include "widgets/common/colormaps.h"
#include "widgets/common/distinctnames.h"
#include "widgets/common/formatting.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tgraph::widgets {

namespace {

bool toNumber(const std::string& text, double* value)
{
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
    return ec == std::errc() && ptr == end && std::isfinite(*value);
}

// Tick labels: three significant digits in the user's notation (docs/studio.md §8.4).
QString shortNumber(double v) { return Formatting::significant(v, 3); }

constexpr double kAxisGrab = 14; // pixels either side of an axis that start a brush

} // namespace

ParallelCoordinatesView::ParallelCoordinatesView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(false);
    setAutoFillBackground(true);
    QPalette p = palette();
    p.setColor(QPalette::Window, Qt::white);
    setPalette(p);
}

void ParallelCoordinatesView::setSweep(const tgraph::SweepSummary& summary)
{
    m_axes.clear();
    m_lines.clear();
    m_brushes.clear();
    std::map<int64_t, const tgraph::SweepConfigSummary*> configs;
    for (const tgraph::SweepConfigSummary& c : summary.configs)
        configs[c.config] = &c;
    std::vector<const tgraph::SweepRunSummary*> runs;
    for (const tgraph::SweepRunSummary& r : summary.runs)
        if (r.status == tgraph::RunStatus::Finished && !std::isnan(r.tau) && configs.count(r.config))
            runs.push_back(&r);
    for (const std::string& parameter : summary.parameters) {
        Axis axis;
        axis.name = QString::fromStdString(parameter);
        std::vector<double> numbers;
        std::vector<std::string> texts;
        bool numeric = true;
        for (const tgraph::SweepConfigSummary& c : summary.configs) {
            const std::string v = tgraph::parameterValue(c, parameter);
            texts.push_back(v);
            double x = 0;
            numeric = numeric && toNumber(v, &x);
            numbers.push_back(x);
        }
        axis.numeric = numeric && !numbers.empty();
        if (axis.numeric) {
            const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
            axis.log = *lo > 0 && *hi / *lo >= 10;
            axis.min = axis.log ? std::log10(*lo) : *lo;
            axis.max = axis.log ? std::log10(*hi) : *hi;
        } else {
            std::sort(texts.begin(), texts.end());
            texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
            for (const std::string& t : texts)
                axis.categories << QString::fromStdString(t);
        }
        m_axes.push_back(axis);
    }
    Axis metric;
    metric.name = QStringLiteral("valid tau");
    metric.numeric = true;
    m_metricMin = 0;
    m_metricMax = 1;
    if (!runs.empty()) {
        m_metricMin = m_metricMax = runs.front()->tau;
        for (const auto* r : runs) {
            m_metricMin = std::min(m_metricMin, r->tau);
            m_metricMax = std::max(m_metricMax, r->tau);
        }
    }
    metric.min = m_metricMin;
    metric.max = m_metricMax;
    m_axes.push_back(metric);

    auto place = [](const Axis& axis, double v) {
        if (axis.max <= axis.min)
            return 0.5;
        return (v - axis.min) / (axis.max - axis.min);
    };
    for (const auto* r : runs) {
        Line line;
        line.runId = QString::fromStdString(r->runId);
        line.metric = r->tau;
        const tgraph::SweepConfigSummary& c = *configs[r->config];
        for (size_t a = 0; a + 1 < m_axes.size(); ++a) {
            const Axis& axis = m_axes[a];
            const std::string v = tgraph::parameterValue(c, summary.parameters[a]);
            double x = 0;
            if (axis.numeric && toNumber(v, &x)) {
                line.positions.push_back(place(axis, axis.log ? std::log10(x) : x));
            } else {
                const int i = int(axis.categories.indexOf(QString::fromStdString(v)));
                const int n = int(axis.categories.size());
                line.positions.push_back(n <= 1 ? 0.5 : double(std::max(0, i)) / double(n - 1));
            }
        }
        line.positions.push_back(place(m_axes.back(), r->tau));
        m_lines.push_back(std::move(line));
    }
    update();
    emitSelection();
}

QString ParallelCoordinatesView::axisName(int axis) const
{
    return axis >= 0 && axis < axisCount() ? m_axes[size_t(axis)].name : QString();
}

void ParallelCoordinatesView::setBrush(int axis, double from, double to)
{
    if (axis < 0 || axis >= axisCount())
        return;
    m_brushes[axis] = { std::clamp(std::min(from, to), 0.0, 1.0), std::clamp(std::max(from, to), 0.0, 1.0) };
    update();
    emitSelection();
}

void ParallelCoordinatesView::clearBrushes()
{
    m_brushes.clear();
    update();
    emitSelection();
}

bool ParallelCoordinatesView::inside(const Line& line) const
{
    for (const auto& [axis, range] : m_brushes) {
        const double p = line.positions[size_t(axis)];
        if (p < range.first - 1e-9 || p > range.second + 1e-9)
            return false;
    }
    return true;
}

QStringList ParallelCoordinatesView::selectedRuns() const
{
    QStringList out;
    for (const Line& line : m_lines)
        if (inside(line))
            out << line.runId;
    return out;
}

void ParallelCoordinatesView::emitSelection() { Q_EMIT selectionChanged(selectedRuns()); }

QRectF ParallelCoordinatesView::plotRect() const
{
    const QFontMetricsF fm(font());
    const double side = std::max(60.0, fm.horizontalAdvance(QStringLiteral("0.000000")) + 12);
    return QRectF(side, fm.height() * 2.6, std::max(10.0, width() - 2 * side), std::max(10.0, height() - fm.height() * 4.4));
}

double ParallelCoordinatesView::axisX(int axis) const
{
    const QRectF r = plotRect();
    const int n = axisCount();
    return n <= 1 ? r.center().x() : r.left() + r.width() * axis / (n - 1);
}

double ParallelCoordinatesView::positionY(double position) const
{
    const QRectF r = plotRect();
    return r.bottom() - position * r.height();
}

double ParallelCoordinatesView::positionAt(double y) const
{
    const QRectF r = plotRect();
    return std::clamp((r.bottom() - y) / r.height(), 0.0, 1.0);
}

int ParallelCoordinatesView::axisNear(double x) const
{
    for (int a = 0; a < axisCount(); ++a)
        if (std::abs(axisX(a) - x) <= kAxisGrab)
            return a;
    return -1;
}

QStringList ParallelCoordinatesView::axisLabels(int axis) const
{
    std::vector<double> positions;
    return axis >= 0 && axis < axisCount() ? tickLabels(axis, &positions) : QStringList();
}

QStringList ParallelCoordinatesView::tickLabels(int axisIndex, std::vector<double>* positions) const
{
    const Axis& axis = m_axes[size_t(axisIndex)];
    QStringList labels;
    positions->clear();
    if (!axis.numeric) {
        // Names beside an axis keep what tells them apart within the room to the next axis
        // (docs/studio.md §9).
        const int n = int(axis.categories.size());
        const int room = int(plotRect().width() / std::max(1, axisCount() - 1)) - 12;
        labels = DistinctNames::shorten(axis.categories, QFontMetrics(font()), std::max(room, 40));
        for (int i = 0; i < n; ++i)
            positions->push_back(n <= 1 ? 0.5 : double(i) / double(n - 1));
        return labels;
    }
    if (axis.max <= axis.min) {
        labels << shortNumber(axis.log ? std::pow(10.0, axis.min) : axis.min);
        positions->push_back(0.5);
        return labels;
    }
    for (int i = 0; i <= 4; ++i) {
        const double t = i / 4.0;
        const double v = axis.min + t * (axis.max - axis.min);
        labels << shortNumber(axis.log ? std::pow(10.0, v) : v);
        positions->push_back(t);
    }
    return labels;
}

void ParallelCoordinatesView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF fm(font());
    if (m_lines.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No finished run with a validation tau yet"));
        if (m_axes.size() <= 1)
            return;
    }
    // Lines: grey ones (outside a brush) first, the selected ones on top, coloured by the metric.
    const double span = m_metricMax > m_metricMin ? m_metricMax - m_metricMin : 1;
    for (int pass = 0; pass < 2; ++pass)
        for (const Line& line : m_lines) {
            const bool in = inside(line);
            if ((pass == 0) == in)
                continue;
            QPainterPath path;
            for (size_t a = 0; a < line.positions.size(); ++a) {
                const QPointF pt(axisX(int(a)), positionY(line.positions[a]));
                if (a == 0)
                    path.moveTo(pt);
                else
                    path.lineTo(pt);
            }
            QColor colour = in ? ColorMaps::viridis((line.metric - m_metricMin) / span) : QColor(210, 210, 210);
            p.setPen(QPen(colour, in ? 1.8 : 1.0));
            p.drawPath(path);
        }
    // Axes, names, ticks, brushes.
    const QRectF r = plotRect();
    for (int a = 0; a < axisCount(); ++a) {
        const double x = axisX(a);
        p.setPen(QPen(QColor(60, 60, 60), 1.2));
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        const QString name = m_axes[size_t(a)].name + (m_axes[size_t(a)].log ? tr(" (log)") : QString());
        const double w = QFontMetricsF(bold).horizontalAdvance(name);
        const double left = std::clamp(x - w / 2, 2.0, width() - w - 2.0);
        p.drawText(QPointF(left, r.top() - fm.height() * 1.1), name);
        p.setFont(font());
        std::vector<double> positions;
        const QStringList labels = tickLabels(a, &positions);
        for (int i = 0; i < labels.size(); ++i) {
            const double y = positionY(positions[size_t(i)]);
            p.drawLine(QPointF(x - 3, y), QPointF(x + 3, y));
            const double lw = fm.horizontalAdvance(labels[i]);
            const bool last = a == axisCount() - 1;
            const double lx = last ? x + 6 : x - 6 - lw;
            p.setPen(QColor(40, 40, 40));
            p.drawText(QPointF(std::clamp(lx, 1.0, width() - lw - 1), y + fm.ascent() / 2 - 1), labels[i]);
            p.setPen(QPen(QColor(60, 60, 60), 1.2));
        }
        const auto brush = m_brushes.find(a);
        if (brush != m_brushes.end()) {
            const QRectF box(QPointF(x - 7, positionY(brush->second.second)), QPointF(x + 7, positionY(brush->second.first)));
            p.setPen(QPen(QColor(30, 90, 200), 1));
            p.setBrush(QColor(30, 90, 200, 60));
            p.drawRect(box);
            p.setBrush(Qt::NoBrush);
        }
    }
    p.setPen(QColor(90, 90, 90));
    p.drawText(QRectF(0, height() - fm.height() * 1.3, width(), fm.height() * 1.2), Qt::AlignCenter,
        tr("%1 of %2 finished runs selected; drag on an axis to brush, click it to clear")
            .arg(Formatting::count(selectedRuns().size()), Formatting::count(int64_t(m_lines.size()))));
}

bool ParallelCoordinatesView::event(QEvent* event)
{
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    // The whole name of a shortened category label under the pointer.
    const auto* help = static_cast<QHelpEvent*>(event);
    for (int a = 0; a < axisCount(); ++a) {
        const Axis& axis = m_axes[size_t(a)];
        if (axis.numeric || std::abs(axisX(a) - help->pos().x()) > plotRect().width() / std::max(1, axisCount() - 1))
            continue;
        const int n = int(axis.categories.size());
        for (int i = 0; i < n; ++i)
            if (std::abs(positionY(n <= 1 ? 0.5 : double(i) / double(n - 1)) - help->pos().y())
                <= QFontMetrics(font()).height() / 2.0) {
                QToolTip::showText(help->globalPos(), axis.categories[i], this);
                return true;
            }
    }
    QToolTip::hideText();
    event->ignore();
    return true;
}

void ParallelCoordinatesView::mousePressEvent(QMouseEvent* event)
{
    m_dragAxis = axisNear(event->position().x());
    m_dragFrom = positionAt(event->position().y());
    m_dragged = false;
    if (m_dragAxis < 0) {
        // a click near a line activates its run (the nearest one at this x, within 5 pixels)
        const double x = event->position().x(), y = event->position().y();
        double best = 5;
        QString run;
        for (const Line& line : m_lines) {
            for (size_t a = 0; a + 1 < line.positions.size(); ++a) {
                const double x0 = axisX(int(a)), x1 = axisX(int(a + 1));
                if (x < x0 || x > x1 || x1 <= x0)
                    continue;
                const double t = (x - x0) / (x1 - x0);
                const double ly = positionY(line.positions[a] + t * (line.positions[a + 1] - line.positions[a]));
                if (std::abs(ly - y) < best) {
                    best = std::abs(ly - y);
                    run = line.runId;
                }
            }
        }
        if (!run.isEmpty())
            Q_EMIT runActivated(run);
    }
}

void ParallelCoordinatesView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragAxis < 0)
        return;
    const double to = positionAt(event->position().y());
    if (std::abs(to - m_dragFrom) * plotRect().height() < 3 && !m_dragged)
        return;
    m_dragged = true;
    setBrush(m_dragAxis, m_dragFrom, to);
}

void ParallelCoordinatesView::mouseReleaseEvent(QMouseEvent*)
{
    if (m_dragAxis >= 0 && !m_dragged && m_brushes.erase(m_dragAxis) > 0) {
        update();
        emitSelection();
    }
    m_dragAxis = -1;
}

} // namespace tgraph::widgets
