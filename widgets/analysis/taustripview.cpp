// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/taustripview.h"

#include "widgets/common/axispolicy.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

namespace {

QString collectionOf(const GraphTau& entry)
{
    return entry.collection.isEmpty() ? QStringLiteral("other") : entry.collection;
}

} // namespace

TauStripView::TauStripView(QWidget* parent)
    : QWidget(parent)
    , m_view(new QChartView(new QChart))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    m_view->setRenderHint(QPainter::Antialiasing);
    ChartStyle::setUp(chart());
}

QChart* TauStripView::chart() const { return m_view->chart(); }

void TauStripView::setEntries(std::vector<GraphTau> entries)
{
    m_entries = std::move(entries);
    rebuild();
}

std::map<QString, double> TauStripView::collectionMeans() const
{
    std::map<QString, std::pair<double, int>> sums;
    for (const GraphTau& e : m_entries)
        if (!std::isnan(e.kendallTau)) {
            auto& s = sums[collectionOf(e)];
            s.first += e.kendallTau;
            ++s.second;
        }
    std::map<QString, double> means;
    for (const auto& [collection, s] : sums)
        means[collection] = s.first / s.second;
    return means;
}

void TauStripView::rebuild()
{
    QChart* c = chart();
    ChartStyle::clear(c);
    m_order.clear();
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (!std::isnan(m_entries[i].kendallTau))
            m_order.push_back(i);
    std::stable_sort(m_order.begin(), m_order.end(),
        [&](size_t a, size_t b) { return m_entries[a].kendallTau < m_entries[b].kendallTau; });
    const auto means = collectionMeans();
    const size_t skipped = m_entries.size() - m_order.size();
    QString title = tr("Kendall τ per graph (%1 graphs)").arg(Formatting::count(int64_t(m_order.size())));
    if (skipped)
        title += tr(", %1 without τ").arg(Formatting::count(int64_t(skipped)));
    c->setTitle(title);
    if (m_order.empty())
        return;

    // One bar set per collection; a graph's bar is non-zero only in its collection's set, so the
    // stacked series draws one coloured bar per category.
    auto* bars = new QStackedBarSeries;
    bars->setBarWidth(0.9);
    std::map<QString, QBarSet*> sets;
    size_t colourIndex = 0;
    for (const auto& [collection, mean] : means) {
        auto* set = new QBarSet(tr("%1 (mean %2)").arg(collection, Formatting::number(mean, 3)));
        set->setColor(ChartStyle::category(colourIndex++));
        set->setBorderColor(Qt::transparent);
        sets[collection] = set;
    }
    QStringList categories;
    for (const size_t i : m_order) {
        categories << (m_order.size() <= 40 ? m_entries[i].graph : Formatting::count(categories.size()));
        for (auto& [collection, set] : sets)
            set->append(collection == collectionOf(m_entries[i]) ? m_entries[i].kendallTau : 0.0);
    }
    for (auto& [collection, set] : sets)
        bars->append(set);
    c->addSeries(bars);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(m_order.size() <= 40 ? tr("graph (sorted by τ)") : tr("graph rank by τ"));
    x->setLabelsAngle(m_order.size() > 8 ? -60 : 0);
    x->setLabelsVisible(m_order.size() <= 40);
    auto* y = new NiceAxis;
    y->setTitleText(tr("Kendall τ"));
    double lo = 0;
    for (const size_t i : m_order)
        lo = std::min(lo, m_entries[i].kendallTau);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    bars->attachAxis(x);
    bars->attachAxis(y);
    // From 0 (or the lowest τ) to 1, within τ's own range [-1, 1].
    AxisPolicy::Request range;
    range.lo = lo;
    range.hi = 1.0;
    range.lowerBound = -1.0;
    range.upperBound = 1.0;
    y->setRequest(range);
    connect(bars, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) {
        if (index >= 0 && size_t(index) < m_order.size())
            Q_EMIT graphActivated(int(m_order[size_t(index)]));
    });

    // Collection means as horizontal lines across the chart, in the collection's colour. They
    // share the bar category axis range [-0.5, n - 0.5] through a hidden value axis.
    auto* lineX = new QValueAxis;
    lineX->setRange(-0.5, double(m_order.size()) - 0.5);
    lineX->setVisible(false);
    c->addAxis(lineX, Qt::AlignTop);
    colourIndex = 0;
    for (const auto& [collection, mean] : means) {
        auto* line = new QLineSeries;
        line->setName(tr("mean %1").arg(collection));
        line->setPen(QPen(ChartStyle::category(colourIndex++).darker(130), 2, Qt::DashLine));
        line->append(-0.5, mean);
        line->append(double(m_order.size()) - 0.5, mean);
        c->addSeries(line);
        line->attachAxis(lineX);
        line->attachAxis(y);
    }
}

} // namespace tgraph::widgets
