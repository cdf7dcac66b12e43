// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/rankscatterview.h"

#include "widgets/common/axispolicy.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QGraphicsLayout>
#include <QLegend>
#include <QResizeEvent>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tgraph::widgets {

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
        , m_square(square)
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

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        // A square plot leaves width to spare in a wide view (a dock below the graphs): the legend
        // goes there instead of taking height from the plot.
        if (m_square) {
            const Qt::Alignment side = width() > height() + 160 ? Qt::AlignRight : Qt::AlignTop;
            if (chart()->legend()->alignment() != side)
                chart()->legend()->setAlignment(side);
            // The margins that squared the plot at the old size would keep the chart (and its view's
            // minimum size) as wide as it was: start again from the base margins.
            chart()->setMargins(QMargins(kBase, kBase, kBase, kBase));
        }
        QChartView::resizeEvent(event);
    }

public:
    // Not the chart's minimum, which includes the margins that square the plot at the current size:
    // a view once wide would never let its dock narrow again (docs/studio.md §9).
    QSize minimumSizeHint() const override { return m_square ? QSize(200, 80) : QChartView::minimumSizeHint(); }

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
        // Whole pixels, split between the two sides (one more on the right or bottom when odd), so
        // that width and height end up within half a pixel.
        const int extraWidth = int(std::lround(width - side));
        const int extraHeight = int(std::lround(height - side));
        const QMargins wanted(kBase + extraWidth / 2, kBase + extraHeight / 2, kBase + extraWidth - extraWidth / 2,
            kBase + extraHeight - extraHeight / 2);
        if (wanted != m)
            c->setMargins(wanted);
    }

    bool m_square = false;
    bool m_pending = false;
    static constexpr int kBase = 10;
};

// How far a rank axis of `n` configs reaches beyond ranks 0 and n - 1: 3 % of the ranks, at least
// half a rank, like the score axis' pad (a marker is 7 pixels wide).
double rankMargin(int64_t n) { return std::max(0.5, 0.03 * double(std::max<int64_t>(n - 1, 1))); }

QChart* newChart()
{
    auto* chart = new QChart;
    ChartStyle::setUp(chart);
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
    // The titles follow the room the charts leave them.
    for (QChart* chart : { rankChart(), scoreChart() })
        connect(chart, &QChart::plotAreaChanged, this, &RankScatterView::applyTitles, Qt::QueuedConnection);
}

QChart* RankScatterView::rankChart() const { return m_rankView->chart(); }
QChart* RankScatterView::scoreChart() const { return m_scoreView->chart(); }

void RankScatterView::setData(RankScatterData data)
{
    m_data = std::move(data);
    m_selected = -1;
    m_runtimeText = m_data.hasRuntimes() ? Formatting::durations(m_data.runtimes) : QStringList {};
    rebuild();
}

QString RankScatterView::describeRow(int64_t row) const
{
    if (row < 0 || row >= m_data.size())
        return {};
    const size_t r = size_t(row);
    QString text = tr("config %1\nscore %2\npredicted rank %3")
                       .arg(Formatting::id(m_data.configIds[r]), Formatting::significant(m_data.scores[r], 6),
                           Formatting::count(m_data.predictedRank[r]));
    if (m_data.hasRuntimes())
        text += (m_data.simulated ? tr("\nsimulated runtime %1\ntrue rank %2")
                                  : tr("\nmeasured runtime %1\ntrue rank %2"))
                    .arg(m_runtimeText[qsizetype(r)], Formatting::count(m_data.trueRank[r]));
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
    QString title = m_data.graph;
    if (n > int64_t(m_drawnRows.size()))
        title += tr(" (%1 of %2 configs drawn)")
                     .arg(Formatting::count(int64_t(m_drawnRows.size())), Formatting::count(n));
    if (!m_data.hasRuntimes()) {
        m_rankTitle = { title, tr("no measured runtimes: only the predicted order is known") };
        applyTitles();
        return;
    }
    m_rankTitle = { title, m_data.metricsTitle() };
    applyTitles();

    const bool many = n >= 1000;
    auto* all = newScatter(
        tr("configs (%1)").arg(Formatting::count(n)), QColor(31, 119, 180, many ? 70 : 170), Qt::transparent, many ? 4 : 7);
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

    // Ranks as the axis policy has them: whole numbers at nice steps within [0, C - 1], the same on
    // both axes so that the square plot keeps y = x on its diagonal; the axes reach a margin beyond
    // 0 and C - 1, so the markers of the fastest and slowest configs stay whole.
    AxisPolicy::Request ranks;
    ranks.kind = AxisPolicy::Kind::Integer;
    ranks.lo = 0;
    ranks.hi = double(n - 1);
    ranks.lowerBound = 0;
    ranks.upperBound = double(n - 1);
    ranks.margin = rankMargin(n);
    auto* x = new NiceAxis;
    x->setTitleText(tr("true rank (0 = fastest)"));
    auto* y = new NiceAxis;
    y->setTitleText(tr("predicted rank"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s :
        std::initializer_list<QAbstractSeries*> { diagonal, all, trueTop, predTop, m_rankSelection }) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    x->setRequest(ranks);
    y->setRequest(ranks);
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
    m_scoreTitle = { m_data.graph, m_data.metricsTitle() };
    applyTitles();
    auto* all = newScatter(tr("configs"), QColor(31, 119, 180, many ? 70 : 170), Qt::transparent, many ? 4 : 7);
    auto* predTop = newScatter(tr("predicted top-5"), QColor(214, 39, 40), QColor(214, 39, 40), 7);
    m_scoreSelection = newScatter(tr("selected"), Qt::transparent, Qt::black, 14);
    m_scoreSelection->setPen(QPen(Qt::black, 2));

    // y: the runtime in a unit that suits it, on a linear axis while the runtimes span less than a
    // decade (a log axis would have no labelled tick in between), else on a log axis over whole
    // decades; without runtimes the predicted rank.
    m_scoreUnit = 1;
    m_scoreLog = false;
    QString unitName;
    if (m_data.hasRuntimes()) {
        double rlo = 0, rhi = 0;
        bool any = false;
        for (const int64_t row : m_drawnRows) {
            const double r = std::max(1.0, m_data.runtimes[size_t(row)]);
            rlo = any ? std::min(rlo, r) : r;
            rhi = any ? std::max(rhi, r) : r;
            any = true;
        }
        m_scoreLog = any && rhi >= 10 * rlo;
        std::tie(m_scoreUnit, unitName) = Formatting::durationUnit(m_scoreLog ? rlo : rhi);
    }

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
    auto* x = new NiceAxis;
    x->setTitleText(tr("score (lower = predicted faster)"));
    QAbstractAxis* y = nullptr;
    NiceAxis* niceY = nullptr;
    AxisPolicy::Request yRequest;
    if (m_data.hasRuntimes() && m_scoreLog) {
        auto* log = new QLogValueAxis;
        log->setBase(10);
        log->setTitleText(m_data.simulated ? tr("simulated runtime, %1 (log)").arg(unitName)
                                           : tr("measured runtime, %1 (log)").arg(unitName));
        log->setLabelFormat(QStringLiteral("%g"));
        log->setMinorTickCount(8);
        // Whole decades, so that the axis always has labelled ticks.
        log->setRange(std::pow(10.0, std::floor(std::log10(ylo))) * 0.999,
            std::pow(10.0, std::ceil(std::log10(yhi))) * 1.001);
        y = log;
    } else {
        niceY = new NiceAxis;
        if (m_data.hasRuntimes()) {
            niceY->setTitleText(m_data.simulated ? tr("simulated runtime, %1").arg(unitName)
                                                 : tr("measured runtime, %1").arg(unitName));
            const double pad = (yhi - ylo) * 0.03;
            yRequest.lo = ylo - pad;
            yRequest.hi = yhi + pad;
        } else {
            niceY->setTitleText(tr("predicted rank"));
            yRequest.kind = AxisPolicy::Kind::Integer;
            yRequest.lo = ylo;
            yRequest.hi = yhi;
            yRequest.lowerBound = 0;
            yRequest.upperBound = double(std::max<int64_t>(0, n - 1));
            yRequest.margin = rankMargin(n);
        }
        y = niceY;
    }
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*> { all, predTop, m_scoreSelection }) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    const double pad = (hi - lo) * 0.03; // markers on the first and last score stay whole
    AxisPolicy::Request xRequest;
    xRequest.lo = first ? NAN : lo - pad;
    xRequest.hi = first ? NAN : hi + pad;
    x->setRequest(xRequest);
    if (niceY) {
        if (first)
            yRequest.lo = yRequest.hi = NAN;
        niceY->setRequest(yRequest);
    }
    connectPoints(all, false);
    connectPoints(predTop, false);
}

void RankScatterView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    applyTitles();
}

void RankScatterView::applyTitles()
{
    // The graph and its metrics on one line when that fits the chart's width (a wide dock), else
    // on two: a title that does not fit is elided by Qt Charts.
    const auto apply = [](QChartView* view, const std::pair<QString, QString>& parts) {
        // The title gets the chart's width less its margins (which keep the rank plot square).
        const QChart* chart = view->chart();
        const double available = chart->size().width() - chart->margins().left() - chart->margins().right();
        const QString oneLine = parts.first + QStringLiteral(" — ") + parts.second;
        const QFontMetrics metrics(chart->titleFont());
        const bool fits = metrics.horizontalAdvance(oneLine) + 20 <= available;
        const QString title = fits ? oneLine.toHtmlEscaped()
                                   : parts.first.toHtmlEscaped() + QStringLiteral("<br>") + parts.second.toHtmlEscaped();
        if (view->chart()->title() != title)
            view->chart()->setTitle(title);
    };
    apply(m_rankView, m_rankTitle);
    apply(m_scoreView, m_scoreTitle);
}

double RankScatterView::scoreChartY(int64_t row) const
{
    // The runtime in the axis' unit (at least 1 ns, for the log axis); without runtimes the
    // predicted rank.
    return m_data.hasRuntimes() ? std::max(1.0, m_data.runtimes[size_t(row)]) / m_scoreUnit
                                : double(m_data.predictedRank[size_t(row)]);
}

int64_t RankScatterView::rowAt(const QPointF& point, bool rankChart) const
{
    if (rankChart) {
        // x is the true rank: one row per value.
        const auto rank = int64_t(std::llround(point.x()));
        return m_data.hasRuntimes() && rank >= 0 && rank < m_data.size() ? m_data.trueOrder[size_t(rank)] : -1;
    }
    // The nearest drawn point, distances measured in fractions of the axes' spans (log on a log axis).
    const auto axisOf = [this](Qt::Orientation o) -> const QAbstractAxis* {
        const auto axes = scoreChart()->axes(o);
        return axes.isEmpty() ? nullptr : axes.front();
    };
    const auto* xAxis = qobject_cast<const QValueAxis*>(axisOf(Qt::Horizontal));
    const QAbstractAxis* yAxis = axisOf(Qt::Vertical);
    const double xSpan = xAxis && xAxis->max() > xAxis->min() ? xAxis->max() - xAxis->min() : 1.0;
    double ySpan = 1.0;
    if (const auto* v = qobject_cast<const QValueAxis*>(yAxis); v && v->max() > v->min())
        ySpan = v->max() - v->min();
    else if (const auto* l = qobject_cast<const QLogValueAxis*>(yAxis); l && l->max() > l->min() && l->min() > 0)
        ySpan = std::log(l->max() / l->min());
    int64_t best = -1;
    double bestDistance = 0;
    for (const int64_t row : m_drawnRows) {
        const double y = scoreChartY(row);
        const double dy = m_scoreLog ? std::log(y) - std::log(std::max(point.y(), 1e-300)) : y - point.y();
        const double d = std::abs(m_data.scores[size_t(row)] - point.x()) / xSpan + std::abs(dy) / ySpan;
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

} // namespace tgraph::widgets
