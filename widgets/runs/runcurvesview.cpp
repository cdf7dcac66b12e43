// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runcurvesview.h"

#include "widgets/common/axispolicy.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"
#include "widgets/common/legendnames.h"
#include "widgets/runs/smoothing.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

namespace {

std::string identityOf(const RunCurve& curve)
{
    return curve.runId + '\n' + curve.series.context + '/' + curve.series.key + '\n' + curve.label.toStdString();
}

QString metricName(const RunCurve& curve)
{
    return QString::fromStdString(
        curve.series.context.empty() ? curve.series.key : curve.series.context + "/" + curve.series.key);
}

} // namespace

RunCurvesView::RunCurvesView(QWidget* parent)
    : QWidget(parent)
    , m_smoothing(kDefaultSmoothing)
    , m_view(new QChartView(new QChart, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    m_view->setRenderHint(QPainter::Antialiasing);
    ChartStyle::setUp(chart());
    chart()->setMargins(QMargins(4, 4, 4, 4));
    rebuild();
    refresh();
}

RunCurvesView::~RunCurvesView() = default;

QChart* RunCurvesView::chart() const { return m_view->chart(); }

QLineSeries* RunCurvesView::rawSeries(size_t i) const { return i < m_drawn.size() ? m_drawn[i].raw : nullptr; }
QLineSeries* RunCurvesView::smoothedSeries(size_t i) const
{
    return i < m_drawn.size() ? m_drawn[i].smoothed : nullptr;
}
QScatterSeries* RunCurvesView::bestSeries(size_t i) const { return i < m_drawn.size() ? m_drawn[i].best : nullptr; }

void RunCurvesView::setCurves(std::vector<RunCurve> curves)
{
    m_curves = std::move(curves);
    refresh();
}

void RunCurvesView::setSmoothing(double weight)
{
    m_smoothing = std::isnan(weight) ? 0.0 : std::clamp(weight, 0.0, 0.999);
    refresh();
}

void RunCurvesView::setXAxis(XAxis axis)
{
    m_xAxis = axis;
    refresh();
}

void RunCurvesView::setLogY(bool on)
{
    m_logY = on;
    refresh();
}

void RunCurvesView::setIgnoreOutliers(bool on)
{
    m_ignoreOutliers = on;
    refresh();
}

bool RunCurvesView::needsRebuild() const
{
    if (m_drawnXAxis != m_xAxis || m_drawnLogY != m_logY || m_drawn.size() != m_curves.size())
        return true;
    for (size_t k = 0; k < m_curves.size(); ++k)
        if (m_drawn[k].identity != identityOf(m_curves[k]))
            return true;
    return false;
}

void RunCurvesView::rebuild()
{
    QChart* c = chart();
    ChartStyle::clear(c);
    m_drawn.clear();
    if (m_xAxis == XAxis::WallTime) {
        auto* t = new QDateTimeAxis;
        t->setFormat(QStringLiteral("HH:mm:ss"));
        t->setTitleText(tr("wall time"));
        m_x = t;
    } else {
        auto* v = new NiceAxis;
        v->setTitleText(m_xAxis == XAxis::Step ? tr("step") : tr("seconds since the run started"));
        m_x = v;
    }
    if (m_logY) {
        auto* l = new QLogValueAxis;
        l->setBase(10);
        l->setLabelFormat(QStringLiteral("%g"));
        l->setMinorTickCount(8);
        m_y = l;
    } else {
        m_y = new NiceAxis;
    }
    c->addAxis(m_x, Qt::AlignBottom);
    c->addAxis(m_y, Qt::AlignLeft);
    for (size_t k = 0; k < m_curves.size(); ++k) {
        Drawn d;
        d.identity = identityOf(m_curves[k]);
        const QColor colour = ChartStyle::category(k);
        QColor faint = colour;
        faint.setAlpha(70);
        d.raw = new QLineSeries;
        d.raw->setPen(QPen(faint, 1));
        d.smoothed = new QLineSeries;
        d.smoothed->setPen(QPen(colour, 2));
        d.best = new QScatterSeries;
        d.best->setMarkerShape(QScatterSeries::MarkerShapeStar);
        d.best->setMarkerSize(16);
        d.best->setColor(colour);
        d.best->setBorderColor(colour.darker(160));
        for (QAbstractSeries* s : { static_cast<QAbstractSeries*>(d.raw), static_cast<QAbstractSeries*>(d.smoothed),
                 static_cast<QAbstractSeries*>(d.best) }) {
            c->addSeries(s);
            s->attachAxis(m_x);
            s->attachAxis(m_y);
        }
        // One legend entry per run: the smoothed line's.
        for (QAbstractSeries* s : { static_cast<QAbstractSeries*>(d.raw), static_cast<QAbstractSeries*>(d.best) })
            for (QLegendMarker* marker : c->legend()->markers(s))
                marker->setVisible(false);
        connect(d.smoothed, &QLineSeries::hovered, this, [this, k](const QPointF& p, bool state) {
            if (state && k < m_curves.size())
                showPointTip(m_curves[k], p, true);
        });
        connect(d.raw, &QLineSeries::hovered, this, [this, k](const QPointF& p, bool state) {
            if (state && k < m_curves.size())
                showPointTip(m_curves[k], p, false);
        });
        m_drawn.push_back(d);
    }
    m_drawnXAxis = m_xAxis;
    m_drawnLogY = m_logY;
    ++m_rebuilds;
}

void RunCurvesView::refresh()
{
    if (needsRebuild())
        rebuild();
    using RunCurveData::Range;
    Range x;
    Range y;
    QList<QAbstractSeries*> legendSeries;
    QStringList legendNames, legendNotes;
    for (size_t k = 0; k < m_curves.size(); ++k) {
        const RunCurve& curve = m_curves[k];
        const auto& points = curve.series.points;
        std::vector<double> values;
        values.reserve(points.size());
        for (const tgraph::MetricPoint& p : points)
            values.push_back(p.value);
        const std::vector<double> smooth = debiasedEma(values, m_smoothing);
        QList<QPointF> raw;
        QList<QPointF> line;
        raw.reserve(qsizetype(points.size()));
        line.reserve(qsizetype(points.size()));
        for (size_t i = 0; i < points.size(); ++i) {
            if (!std::isfinite(values[i]) || (m_logY && values[i] <= 0))
                continue;
            const double px = RunCurveData::xOf(points[i], m_xAxis, curve.startMs);
            raw.append(QPointF(px, values[i]));
            if (!m_logY || smooth[i] > 0)
                line.append(QPointF(px, smooth[i]));
            x = RunCurveData::unite(x, { px, px, true });
        }
        const Drawn& d = m_drawn[k];
        d.raw->replace(raw);
        d.smoothed->replace(line);
        // A line through one point draws nothing: a run shorter than its logging interval logs once.
        if (d.smoothed->pointsVisible() != (line.size() == 1))
            d.smoothed->setPointsVisible(line.size() == 1);
        const int64_t b = RunCurveData::bestIndex(curve.series);
        QString note;
        if (b >= 0) {
            const tgraph::MetricPoint& p = points[size_t(b)];
            if (!m_logY || p.value > 0)
                d.best->replace({ QPointF(RunCurveData::xOf(p, m_xAxis, curve.startMs), p.value) });
            else
                d.best->clear();
            note = tr("  (best %1 at step %2)").arg(Formatting::significant(p.value, 4), Formatting::count(p.step));
        } else {
            d.best->clear();
        }
        legendSeries << d.smoothed;
        legendNames << curve.label;
        legendNotes << note;
        y = RunCurveData::unite(y, RunCurveData::valueRange(values, m_ignoreOutliers, m_logY));
    }

    // Legend entries that stay distinct at any width ("sweep-a / c0-s42" and "…-s43", docs/studio.md §9).
    if (!legendSeries.isEmpty())
        LegendNames::set(chart(), legendSeries, legendNames, legendNotes);

    // Axis ranges: the data with a margin, on the axis policy's ticks (steps whole, steps and
    // seconds from 0, a single point in a range around it, nothing to draw: 0..1).
    if (auto* t = qobject_cast<QDateTimeAxis*>(m_x)) {
        if (!x.valid)
            x = { 0, 1, true };
        if (x.hi <= x.lo) { // one point: a minute around it
            x.lo -= 30000;
            x.hi += 30000;
        }
        t->setRange(QDateTime::fromMSecsSinceEpoch(qint64(x.lo)), QDateTime::fromMSecsSinceEpoch(qint64(x.hi)));
    } else if (auto* n = qobject_cast<NiceAxis*>(m_x)) {
        AxisPolicy::Request r;
        r.kind = m_xAxis == XAxis::Step ? AxisPolicy::Kind::Integer : AxisPolicy::Kind::Real;
        r.lowerBound = 0;
        if (x.valid) {
            const double pad = (x.hi - x.lo) * 0.02; // stars on the first or last point stay whole
            r.lo = x.lo - pad;
            r.hi = x.hi + pad;
        }
        n->setRequest(r);
    }
    if (m_logY) {
        if (!y.valid)
            y = { 0.1, 1, true };
        // Whole decades, so the axis always carries at least two labelled ticks; minor grid
        // lines mark the values in between.
        const double lo = std::pow(10.0, std::floor(std::log10(y.lo)));
        double hi = std::pow(10.0, std::ceil(std::log10(y.hi)));
        if (hi <= lo)
            hi = lo * 10;
        m_y->setRange(lo * 0.999, hi * 1.001); // both end ticks labelled despite rounding
    } else if (auto* n = qobject_cast<NiceAxis*>(m_y)) {
        AxisPolicy::Request r;
        if (y.valid) {
            const double pad = (y.hi - y.lo) * 0.05;
            r.lo = y.lo - pad;
            r.hi = y.hi + pad;
        }
        n->setRequest(r);
    }

    QString title;
    if (m_curves.empty()) {
        title = tr("Select runs to see their curves");
    } else {
        const QString metric = metricName(m_curves.front());
        const bool any = std::any_of(m_drawn.begin(), m_drawn.end(), [](const Drawn& d) { return d.raw->count() > 0; });
        title = any ? tr("%1 (smoothing %2)").arg(metric, Formatting::number(m_smoothing, 2))
                    : tr("No %1 logged yet").arg(metric);
        m_y->setTitleText(metric);
    }
    if (chart()->title() != title)
        chart()->setTitle(title);
}

void RunCurvesView::showPointTip(const RunCurve& curve, const QPointF& point, bool smoothed)
{
    // The logged point nearest the pointer's x.
    const auto& points = curve.series.points;
    size_t nearest = points.size();
    double distance = 0;
    for (size_t i = 0; i < points.size(); ++i) {
        const double d = std::abs(RunCurveData::xOf(points[i], m_xAxis, curve.startMs) - point.x());
        if (nearest == points.size() || d < distance) {
            nearest = i;
            distance = d;
        }
    }
    if (nearest == points.size())
        return;
    const tgraph::MetricPoint& p = points[nearest];
    QToolTip::showText(QCursor::pos(),
        tr("%1\nstep %2: %3%4")
            .arg(curve.label, Formatting::count(p.step), Formatting::significant(p.value, 5),
                smoothed ? tr(" (smoothed %1)").arg(Formatting::significant(point.y(), 5)) : QString()),
        m_view);
}

} // namespace tgraph::widgets
