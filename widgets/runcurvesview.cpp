// SPDX-License-Identifier: Apache-2.0
#include "runcurvesview.h"

#include "chartstyle.h"
#include "smoothing.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

RunCurvesView::RunCurvesView(QWidget* parent)
    : QWidget(parent)
    , m_view(new QChartView(new QChart))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    m_view->setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    chart()->legend()->setAlignment(Qt::AlignTop);
}

QChart* RunCurvesView::chart() const { return m_view->chart(); }

bool RunCurvesView::higherIsBetter(const std::string& key)
{
    return key == "tau" || key == "opa" || key == "tile_score" || key == "steps_per_s" || key == "tokens_per_s";
}

int64_t RunCurvesView::bestIndex(const RunCurve& curve)
{
    const bool higher = higherIsBetter(curve.series.key);
    int64_t best = -1;
    for (size_t i = 0; i < curve.series.points.size(); ++i) {
        const double v = curve.series.points[i].value;
        if (!std::isfinite(v))
            continue;
        const double b = best < 0 ? 0 : curve.series.points[size_t(best)].value;
        if (best < 0 || (higher ? v > b : v < b))
            best = int64_t(i);
    }
    return best;
}

void RunCurvesView::setCurves(std::vector<RunCurve> curves)
{
    m_curves = std::move(curves);
    rebuild();
}

void RunCurvesView::setSmoothing(double weight)
{
    m_smoothing = std::clamp(weight, 0.0, 0.999);
    rebuild();
}

void RunCurvesView::setXAxis(XAxis axis)
{
    m_xAxis = axis;
    rebuild();
}

void RunCurvesView::setLogY(bool on)
{
    m_logY = on;
    rebuild();
}

void RunCurvesView::rebuild()
{
    QChart* c = chart();
    // Drawing into fresh series is cheap for the point counts the poller asks for (downsampled
    // to ~2 000 per curve); updates hold the view's repaint until the new series are in place.
    m_view->setUpdatesEnabled(false);
    ChartStyle::clear(c);
    QString key;
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;
    bool any = false;
    std::vector<QAbstractSeries*> all;
    for (size_t k = 0; k < m_curves.size(); ++k) {
        const RunCurve& curve = m_curves[k];
        key = QString::fromStdString(curve.series.key);
        std::vector<double> values;
        for (const tgraph::MetricPoint& p : curve.series.points)
            values.push_back(p.value);
        const std::vector<double> smooth = debiasedEma(values, m_smoothing);
        const QColor colour = ChartStyle::category(k);
        auto* raw = new QLineSeries;
        QColor faint = colour;
        faint.setAlpha(60);
        raw->setPen(QPen(faint, 1));
        auto* line = new QLineSeries;
        line->setName(curve.run);
        line->setPen(QPen(colour, 2));
        const auto xOf = [&](const tgraph::MetricPoint& p) {
            switch (m_xAxis) {
            case XAxis::Step:
                return double(p.step);
            case XAxis::RelativeTime:
                return double(p.wallMs - curve.startMs) / 1000.0;
            case XAxis::WallTime:
                return double(p.wallMs);
            }
            return double(p.step);
        };
        for (size_t i = 0; i < values.size(); ++i) {
            const auto& p = curve.series.points[i];
            if (!std::isfinite(values[i]) || (m_logY && values[i] <= 0))
                continue;
            const double x = xOf(p);
            raw->append(x, values[i]);
            line->append(x, smooth[i]);
            xMin = any ? std::min(xMin, x) : x;
            xMax = any ? std::max(xMax, x) : x;
            yMin = any ? std::min(yMin, values[i]) : values[i];
            yMax = any ? std::max(yMax, values[i]) : values[i];
            any = true;
        }
        all.push_back(raw);
        all.push_back(line);
        if (const int64_t b = bestIndex(curve); b >= 0 && !(m_logY && curve.series.points[size_t(b)].value <= 0)) {
            auto* best = new QScatterSeries;
            best->setName(tr("best %1 = %2").arg(curve.run).arg(curve.series.points[size_t(b)].value, 0, 'g', 4));
            best->setMarkerShape(QScatterSeries::MarkerShapeStar);
            best->setMarkerSize(14);
            best->setColor(colour);
            best->setBorderColor(colour.darker(150));
            best->append(xOf(curve.series.points[size_t(b)]), curve.series.points[size_t(b)].value);
            all.push_back(best);
        }
    }
    c->setTitle(m_curves.empty() ? tr("Select runs to see their curves")
                                 : tr("%1 (smoothing %2)").arg(key).arg(m_smoothing, 0, 'f', 2));
    QAbstractAxis* x = nullptr;
    if (m_xAxis == XAxis::WallTime) {
        auto* t = new QDateTimeAxis;
        t->setFormat(QStringLiteral("HH:mm:ss"));
        t->setRange(QDateTime::fromMSecsSinceEpoch(qint64(xMin)),
            QDateTime::fromMSecsSinceEpoch(qint64(std::max(xMax, xMin + 1))));
        t->setTitleText(tr("wall time"));
        x = t;
    } else {
        auto* v = new QValueAxis;
        v->setRange(xMin, xMax > xMin ? xMax : xMin + 1);
        v->setTitleText(m_xAxis == XAxis::Step ? tr("step") : tr("seconds since start"));
        v->setLabelFormat(m_xAxis == XAxis::Step ? QStringLiteral("%d") : QStringLiteral("%.0f"));
        x = v;
    }
    QAbstractAxis* y = nullptr;
    if (m_logY) {
        auto* l = new QLogValueAxis;
        l->setBase(10);
        l->setLabelFormat(QStringLiteral("%.3g"));
        l->setRange(std::max(yMin, 1e-12) / 1.2, std::max(yMax, 1e-12) * 1.2);
        y = l;
    } else {
        auto* v = new QValueAxis;
        const double pad = yMax > yMin ? (yMax - yMin) * 0.05 : 0.5;
        v->setRange(yMin - pad, yMax + pad);
        y = v;
    }
    y->setTitleText(key);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : all) {
        c->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    // The faint raw lines need no legend entries.
    for (QAbstractSeries* s : all)
        if (s->name().isEmpty())
            for (QLegendMarker* marker : c->legend()->markers(s))
                marker->setVisible(false);
    m_view->setUpdatesEnabled(true);
}
