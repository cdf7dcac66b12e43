// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/sweepcurvesview.h"

#include "widgets/common/axispolicy.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"
#include "widgets/common/legendnames.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

SweepCurvesView::SweepCurvesView(QWidget* parent)
    : QChartView(new QChart, parent)
{
    ChartStyle::setUp(chart());
    setRenderHint(QPainter::Antialiasing);
    AxisPolicy::fitToPlotArea(chart());
    rebuild();
}

void SweepCurvesView::setCurves(const std::vector<tgraph::SweepCurve>& curves, const QString& metricName)
{
    m_curves = curves;
    m_metric = metricName;
    rebuild();
}

void SweepCurvesView::setBand(Band band)
{
    m_band = band;
    rebuild();
}

void SweepCurvesView::rebuild()
{
    QChart* c = chart();
    ChartStyle::clear(c);
    m_means.clear();
    m_bands.clear();
    auto* x = new NiceAxis;
    x->setTitleText(tr("step"));
    auto* y = new NiceAxis;
    y->setTitleText(m_metric);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    double xlo = NAN, xhi = NAN, ylo = NAN, yhi = NAN;
    QList<QAbstractSeries*> legendSeries;
    QStringList legendNames;
    auto widen = [](double& lo, double& hi, double v) {
        if (std::isnan(v))
            return;
        lo = std::isnan(lo) ? v : std::min(lo, v);
        hi = std::isnan(hi) ? v : std::max(hi, v);
    };
    for (size_t k = 0; k < m_curves.size(); ++k) {
        const tgraph::SweepCurve& curve = m_curves[k];
        const QColor colour = ChartStyle::category(k);
        auto* mean = new QLineSeries;
        auto* upper = new QLineSeries;
        auto* lower = new QLineSeries;
        mean->setName(tr("c%1").arg(Formatting::id(curve.config)));
        legendSeries << mean;
        legendNames << (curve.text.empty() ? mean->name()
                                           : mean->name() + QStringLiteral(" ") + QString::fromStdString(curve.text));
        mean->setPen(QPen(colour, 2));
        for (const tgraph::SweepCurvePoint& p : curve.points) {
            const double m = p.value.mean;
            if (std::isnan(m))
                continue;
            double lo = m, hi = m;
            if (m_band == Band::MinMax) {
                lo = p.value.min;
                hi = p.value.max;
            } else if (!std::isnan(p.value.std)) {
                lo = m - p.value.std;
                hi = m + p.value.std;
            }
            mean->append(double(p.step), m);
            upper->append(double(p.step), hi);
            lower->append(double(p.step), lo);
            widen(xlo, xhi, double(p.step));
            widen(ylo, yhi, lo);
            widen(ylo, yhi, hi);
        }
        auto* band = new QAreaSeries(upper, lower);
        QColor fill = colour;
        fill.setAlpha(55);
        band->setBrush(fill);
        band->setPen(Qt::NoPen);
        c->addSeries(band);
        band->attachAxis(x);
        band->attachAxis(y);
        c->addSeries(mean);
        mean->attachAxis(x);
        mean->attachAxis(y);
        m_means.push_back(mean);
        m_bands.push_back(band);
    }
    // the bands stay out of the legend: one entry per configuration, its mean line; with many
    // configurations no legend (the configuration table shows each one's colour)
    c->legend()->setVisible(m_curves.size() <= 4);
    for (QAreaSeries* band : m_bands)
        for (QLegendMarker* marker : c->legend()->markers(band))
            marker->setVisible(false);
    // "c0 lr=0.001 hidden=16": what tells the configurations apart stays in the room each entry has.
    if (!legendSeries.isEmpty())
        LegendNames::set(c, legendSeries, legendNames);
    AxisPolicy::Request rx;
    rx.kind = AxisPolicy::Kind::Integer;
    rx.lowerBound = 0;
    rx.lo = xlo;
    rx.hi = xhi;
    x->setRequest(rx);
    AxisPolicy::Request ry;
    if (!std::isnan(ylo)) {
        const double pad = std::max(1e-9, (yhi - ylo) * 0.05);
        ry.lo = ylo - pad;
        ry.hi = yhi + pad;
    }
    y->setRequest(ry);
    c->setTitle(m_curves.empty() ? tr("No sweep selected")
                                 : tr("%1: mean over seeds, band %2")
                                       .arg(m_metric, m_band == Band::StdDev ? tr("± std") : tr("min to max")));
}

} // namespace tgraph::widgets
