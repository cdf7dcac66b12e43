// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/rankscatterview.h"

#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace {

// A chart view whose plot area stays square (equal aspect for rank against rank): whenever the
// layout changes the plot area, the chart's margins take up the difference between width and
// height. The margins the plot area would have without it are recovered from the current ones,
// so this converges in one step and never grows.
class SquareChartView : public QChartView
{
public:
    explicit SquareChartView(QChart* chart, bool square)
        : QChartView(chart)
    {
        setRenderHint(QPainter::Antialiasing);
        if (!square)
            return;
        chart->setMargins(QMargins(kBase, kBase, kBase, kBase));
        // Queued: changing the margins inside the chart's own layout pass would re-enter it.
        connect(chart, &QChart::plotAreaChanged, this, [this] {
            if (m_pending)
                return;
            m_pending = true;
            QMetaObject::invokeMethod(
                this, [this] { squarePlotArea(); }, Qt::QueuedConnection);
        });
    }

private:
    void squarePlotArea()
    {
        m_pending = false;
        QChart* c = chart();
        if (c->layout())
            c->layout()->activate(); // plot area and margins consistent before measuring
        const QRectF area = c->plotArea();
        const QMargins m = c->margins();
        const double width = area.width() + (m.left() + m.right() - 2 * kBase);
        const double height = area.height() + (m.top() + m.bottom() - 2 * kBase);
        const double side = std::max(10.0, std::min(width, height));
        const int h = kBase + int((width - side) / 2);
        const int v = kBase + int((height - side) / 2);
        if (std::abs(h - m.left()) > 1 || std::abs(v - m.top()) > 1)
            c->setMargins(QMargins(h, v, h, v));
    }

    bool m_pending = false;
    static constexpr int kBase = 10;
};

QChart* newChart()
{
    auto* chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setAnimationOptions(QChart::NoAnimation);
    return chart;
}

QScatterSeries* newScatter(const QString& name, const QColor& fill, const QColor& outline, double size)
{
    auto* s = new QScatterSeries;
    s->setName(name);
    s->setMarkerSize(size);
    s->setColor(fill);
    s->setBorderColor(outline);
    return s;
}

} // namespace

RankScatterView::RankScatterView(QWidget* parent)
    : QWidget(parent)
    , m_tabs(new QTabWidget(this))
    , m_rankView(new SquareChartView(newChart(), true))
    , m_scoreView(new SquareChartView(newChart(), false))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    m_tabs->addTab(m_rankView, tr("Rank"));
    m_tabs->addTab(m_scoreView, tr("Runtime vs score"));
    m_tabs->setDocumentMode(true);
}

QChart* RankScatterView::rankChart() const { return m_rankView->chart(); }
QChart* RankScatterView::scoreChart() const { return m_scoreView->chart(); }

void RankScatterView::setData(RankScatterData data)
{
    m_data = std::move(data);
    m_selected = -1;
    rebuild();
}

QString RankScatterView::describeRow(int64_t row) const
{
    if (row < 0 || row >= m_data.size())
        return {};
    const size_t r = size_t(row);
    QString text = tr("config %1\nscore %2\npredicted rank %3")
                       .arg(m_data.configIds[r])
                       .arg(m_data.scores[r], 0, 'g', 6)
                       .arg(m_data.predictedRank[r]);
    if (m_data.hasRuntimes())
        text += tr("\nruntime %1%2\ntrue rank %3")
                    .arg(Formatting::duration(int64_t(m_data.runtimes[r])),
                        m_data.simulated ? tr(" (simulated)") : QString())
                    .arg(m_data.trueRank[r]);
    return text;
}

void RankScatterView::rebuild()
{
    const int64_t n = m_data.size();
    m_drawnRows.clear();
    const int64_t stride = std::max<int64_t>(1, (n + maxDrawnPoints() - 1) / maxDrawnPoints());
    for (int64_t row = 0; row < n; ++row)
        if (row % stride == 0 || m_data.isPredictedTop(row) || m_data.isTrueTop(row))
            m_drawnRows.push_back(row);
    fillRankChart();
    fillScoreChart();
    updateSelectionMarkers();
}

void RankScatterView::fillRankChart()
{
    QChart* chart = rankChart();
    ChartStyle::clear(chart);
    m_rankSelection = nullptr;
    const int64_t n = m_data.size();
    QString title = m_data.graph.toHtmlEscaped();
    if (n > int64_t(m_drawnRows.size()))
        title += tr(" (%1 of %2 configs drawn)")
                     .arg(Formatting::count(int64_t(m_drawnRows.size())), Formatting::count(n));
    if (!m_data.hasRuntimes()) {
        chart->setTitle(title + QStringLiteral("<br>") + tr("no measured runtimes: only the predicted order is known"));
        return;
    }
    chart->setTitle(title + QStringLiteral("<br>") + m_data.metricsTitle());

    const bool many = n >= 1000;
    auto* all = newScatter(tr("configs"), QColor(31, 119, 180, many ? 70 : 170), Qt::transparent, many ? 4 : 7);
    auto* trueTop = newScatter(tr("true top-5"), Qt::transparent, QColor(255, 127, 14), 12);
    trueTop->setPen(QPen(QColor(255, 127, 14), 2));
    auto* predTop = newScatter(tr("predicted top-5"), QColor(214, 39, 40), QColor(214, 39, 40), 7);
    for (const int64_t row : m_drawnRows) {
        const QPointF p(double(m_data.trueRank[size_t(row)]), double(m_data.predictedRank[size_t(row)]));
        all->append(p);
        if (m_data.isTrueTop(row))
            trueTop->append(p);
        if (m_data.isPredictedTop(row))
            predTop->append(p);
    }
    auto* diagonal = new QLineSeries;
    diagonal->setName(tr("y = x"));
    diagonal->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    diagonal->append(0, 0);
    diagonal->append(double(std::max<int64_t>(n - 1, 1)), double(std::max<int64_t>(n - 1, 1)));
    m_rankSelection = newScatter(tr("selected"), Qt::transparent, Qt::black, 14);
    m_rankSelection->setPen(QPen(Qt::black, 2));

    auto* x = new QValueAxis;
    x->setTitleText(tr("true rank (0 = fastest)"));
    auto* y = new QValueAxis;
    y->setTitleText(tr("predicted rank"));
    const double top = double(std::max<int64_t>(n - 1, 1));
    x->setRange(-0.02 * top, top * 1.02);
    y->setRange(-0.02 * top, top * 1.02);
    x->setLabelFormat(QStringLiteral("%d"));
    y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s :
        std::initializer_list<QAbstractSeries*> { diagonal, all, trueTop, predTop, m_rankSelection }) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    for (QScatterSeries* s : { all, trueTop, predTop })
        connectPoints(s, true);
}

void RankScatterView::fillScoreChart()
{
    QChart* chart = scoreChart();
    ChartStyle::clear(chart);
    m_scoreSelection = nullptr;
    const int64_t n = m_data.size();
    const bool many = n >= 1000;
    chart->setTitle(m_data.graph.toHtmlEscaped() + QStringLiteral("<br>") + m_data.metricsTitle());
    auto* all = newScatter(tr("configs"), QColor(31, 119, 180, many ? 70 : 170), Qt::transparent, many ? 4 : 7);
    auto* predTop = newScatter(tr("predicted top-5"), QColor(214, 39, 40), QColor(214, 39, 40), 7);
    m_scoreSelection = newScatter(tr("selected"), Qt::transparent, Qt::black, 14);
    m_scoreSelection->setPen(QPen(Qt::black, 2));

    double lo = 0, hi = 1, ylo = 0, yhi = 1;
    bool first = true;
    for (const int64_t row : m_drawnRows) {
        const double s = m_data.scores[size_t(row)];
        const double v = scoreChartY(row);
        lo = first ? s : std::min(lo, s);
        hi = first ? s : std::max(hi, s);
        ylo = first ? v : std::min(ylo, v);
        yhi = first ? v : std::max(yhi, v);
        first = false;
        all->append(s, v);
        if (m_data.isPredictedTop(row))
            predTop->append(s, v);
    }
    auto* x = new QValueAxis;
    x->setTitleText(tr("score (lower = predicted faster)"));
    const double pad = hi > lo ? (hi - lo) * 0.03 : 1;
    x->setRange(lo - pad, hi + pad);
    QAbstractAxis* y = nullptr;
    if (m_data.hasRuntimes()) {
        auto* log = new QLogValueAxis;
        log->setBase(10);
        log->setTitleText(m_data.simulated ? tr("runtime, ns (simulated, log)") : tr("runtime, ns (log)"));
        log->setLabelFormat(QStringLiteral("%.3g"));
        log->setRange(ylo / 1.05, yhi * 1.05);
        y = log;
    } else {
        auto* ranks = new QValueAxis;
        ranks->setTitleText(tr("predicted rank"));
        ranks->setRange(ylo - 1, yhi + 1);
        ranks->setLabelFormat(QStringLiteral("%d"));
        y = ranks;
    }
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*> { all, predTop, m_scoreSelection }) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    connectPoints(all, false);
    connectPoints(predTop, false);
}

double RankScatterView::scoreChartY(int64_t row) const
{
    // The runtime on the log axis (at least 1 ns); without runtimes the predicted rank.
    return m_data.hasRuntimes() ? std::max(1.0, m_data.runtimes[size_t(row)])
                                : double(m_data.predictedRank[size_t(row)]);
}

int64_t RankScatterView::rowAt(const QPointF& point, bool rankChart) const
{
    if (rankChart) {
        // x is the true rank: one row per value.
        const auto rank = int64_t(std::llround(point.x()));
        return m_data.hasRuntimes() && rank >= 0 && rank < m_data.size() ? m_data.trueOrder[size_t(rank)] : -1;
    }
    int64_t best = -1;
    double bestDistance = 0;
    for (const int64_t row : m_drawnRows) {
        const double y = scoreChartY(row);
        const double d = std::abs(m_data.scores[size_t(row)] - point.x())
            + std::abs(std::log(y) - std::log(std::max(point.y(), 1e-300)));
        if (best < 0 || d < bestDistance) {
            best = row;
            bestDistance = d;
        }
    }
    return best;
}

void RankScatterView::connectPoints(QScatterSeries* series, bool rankChart)
{
    connect(series, &QScatterSeries::hovered, this, [this, rankChart](const QPointF& point, bool state) {
        if (!state) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(QCursor::pos(), describeRow(rowAt(point, rankChart)), this);
    });
    connect(series, &QScatterSeries::clicked, this, [this, rankChart](const QPointF& point) {
        const int64_t row = rowAt(point, rankChart);
        if (row < 0)
            return;
        selectConfig(m_data.configIds[size_t(row)]);
        Q_EMIT configSelected(m_selected);
    });
}

void RankScatterView::selectConfig(int64_t config)
{
    m_selected = m_data.rowOfConfig(config) < 0 ? -1 : config;
    updateSelectionMarkers();
}

void RankScatterView::updateSelectionMarkers()
{
    if (m_rankSelection)
        m_rankSelection->clear();
    if (m_scoreSelection)
        m_scoreSelection->clear();
    if (m_selected < 0)
        return;
    const auto row = size_t(m_data.rowOfConfig(m_selected));
    if (m_rankSelection && m_data.hasRuntimes())
        m_rankSelection->append(double(m_data.trueRank[row]), double(m_data.predictedRank[row]));
    if (m_scoreSelection)
        m_scoreSelection->append(m_data.scores[row], scoreChartY(int64_t(row)));
}
