// SPDX-License-Identifier: Apache-2.0
// The studio's charts as the user reads them (docs/studio.md §8): the axis policy on its own
// (nice ticks, 0 printed as 0, labels that differ, a range for a single point, integer and rank
// axes), tick labels read back from the chart objects of the run curves, the rank scatter, the tau
// strip and the run comparison; the heatmap's thinned labels and its colour range; runtimes shown
// with the digits that tell them apart.

#include "widgets/analysis/heatmapview.h"
#include "widgets/analysis/rankscatterdata.h"
#include "widgets/analysis/rankscatterview.h"
#include "widgets/analysis/taustripview.h"
#include "widgets/common/axispolicy.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"
#include "widgets/runs/runcomparisonview.h"
#include "widgets/runs/runcurvesview.h"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QGraphicsView>
#include <QImage>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSet>
#include <QTabWidget>
#include <QTest>

#include <cmath>
#include <limits>
#include <set>

using namespace tgraph::widgets;

using AxisPolicy::Kind;
using AxisPolicy::Request;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Request request(double lo, double hi, int maxTicks, Kind kind = Kind::Real)
{
    Request r;
    r.lo = lo;
    r.hi = hi;
    r.maxTicks = maxTicks;
    r.kind = kind;
    return r;
}

// What every tick labelling must satisfy: labels differ, no "−0", no exponent for ordinary
// numbers, ticks evenly spaced and inside the range, exact 0 printed as "0".
void checkTicks(const AxisPolicy::Ticks& t)
{
    const QStringList labels = t.labels();
    QCOMPARE(labels.size(), t.count);
    QVERIFY2(QSet<QString>(labels.begin(), labels.end()).size() == labels.size(), qPrintable(labels.join(' ')));
    QVERIFY(t.min < t.max);
    for (int i = 0; i < t.count; ++i) {
        QVERIFY2(t.value(i) >= t.min - 1e-12 && t.value(i) <= t.max + 1e-12, qPrintable(labels.join(' ')));
        QVERIFY2(!labels[i].startsWith(QStringLiteral("−0"))
                || QString(labels[i]).replace(QStringLiteral("−"), "-").toDouble() < 0,
            qPrintable(labels[i]));
        if (std::abs(t.value(i)) < t.interval * 1e-6)
            QCOMPARE(labels[i], QStringLiteral("0"));
    }
}

// The labels of a NiceAxis as the chart draws them, and the values they sit on.
QStringList axisLabels(QAbstractAxis* axis)
{
    auto* nice = qobject_cast<NiceAxis*>(axis);
    return nice ? nice->categoriesLabels() : QStringList {};
}

NiceAxis* niceAxis(QChart* chart, Qt::Orientation orientation)
{
    for (QAbstractAxis* a : chart->axes(orientation))
        if (auto* n = qobject_cast<NiceAxis*>(a); n && n->isVisible())
            return n;
    return nullptr;
}

tgraph::MetricSeries series(const std::string& key, const std::vector<std::pair<int64_t, double>>& points)
{
    tgraph::MetricSeries s;
    s.key = key;
    s.context = key == "loss" ? "train" : "valid";
    for (const auto& [step, value] : points)
        s.points.push_back({ step, 1000 * step, value });
    return s;
}

// With TGRAPH_SCREENSHOT_DIR set, the drawn widget is saved there to be looked at.
void saveScreenshot(QWidget& widget, const QString& name)
{
    const QByteArray dir = qgetenv("TGRAPH_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(widget.grab().save(QString::fromLocal8Bit(dir) + "/" + name));
}

RunCurve curve(const QString& label, tgraph::MetricSeries s)
{
    RunCurve c;
    c.label = label;
    c.runId = label.toStdString();
    c.series = std::move(s);
    return c;
}

// The texts a chart draws (axis labels and titles, legend, title), as Qt Charts lays them out:
// a text too wide for its place is cut to "...".
QStringList drawnTexts(QChart* chart)
{
    QStringList texts;
    for (QGraphicsItem* item : chart->scene()->items())
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible() && chart->isAncestorOf(item))
            texts << text->toPlainText();
    return texts;
}

// Every label of every visible NiceAxis of `chart` is drawn whole, and no drawn text is cut.
void checkLabelsDrawnWhole(QChart* chart)
{
    const QStringList drawn = drawnTexts(chart);
    for (const QString& text : drawn)
        QVERIFY2(!text.endsWith(QStringLiteral("...")), qPrintable(drawn.join(" | ")));
    for (QAbstractAxis* axis : chart->axes())
        if (auto* nice = qobject_cast<NiceAxis*>(axis); nice && nice->isVisible())
            for (const QString& label : nice->categoriesLabels())
                QVERIFY2(drawn.contains(label), qPrintable(label + " not drawn whole in: " + drawn.join(" | ")));
}

// Every marker of every scatter series of `chart` lies inside the plot area, whole.
void checkMarkersInside(QChart* chart)
{
    const QRectF area = chart->plotArea();
    QVERIFY(area.width() > 0 && area.height() > 0);
    int checked = 0;
    for (QAbstractSeries* s : chart->series()) {
        auto* scatter = qobject_cast<QScatterSeries*>(s);
        if (!scatter || !scatter->isVisible())
            continue;
        const double r = scatter->markerSize() / 2;
        for (const QPointF& p : scatter->points()) {
            const QPointF at = chart->mapToPosition(p, scatter);
            QVERIFY2(area.adjusted(r, r, -r, -r).contains(at),
                qPrintable(QStringLiteral("%1 (%2, %3) at (%4, %5) is cut by the plot area (%6, %7) - (%8, %9)")
                               .arg(scatter->name())
                               .arg(p.x())
                               .arg(p.y())
                               .arg(at.x())
                               .arg(at.y())
                               .arg(area.left())
                               .arg(area.top())
                               .arg(area.right())
                               .arg(area.bottom())));
            ++checked;
        }
    }
    QVERIFY(checked > 0);
}

// The tau strip of one graph as drawn: its bar set, its axes, and the bar's pixels.
void checkOneBar(TauStripView& strip, double tau)
{
    QChart* chart = strip.chart();
    QAbstractBarSeries* bars = nullptr;
    for (QAbstractSeries* s : chart->series())
        if (auto* b = qobject_cast<QAbstractBarSeries*>(s))
            bars = b;
    QVERIFY(bars);
    QCOMPARE(bars->count(), 1);
    QBarSet* set = bars->barSets().front();
    QCOMPARE(set->count(), 1);
    QCOMPARE(set->at(0), tau);
    // The axes: the graph's name below, tau's scale beside, both shown and holding the bar.
    auto* x = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Horizontal, bars).value(0));
    QVERIFY(x && x->isVisible() && x->isLineVisible());
    QCOMPARE(x->categories(), QStringList({ "only" }));
    auto* y = qobject_cast<NiceAxis*>(chart->axes(Qt::Vertical, bars).value(0));
    QVERIFY(y && y->isVisible());
    QVERIFY(y->min() <= std::min(0.0, tau) && y->max() >= std::max(0.0, tau));
    QVERIFY(axisLabels(y).contains("0"));
    // The bar on screen, halfway between 0 and tau, in its set's colour.
    const QPointF zero = chart->mapToPosition(QPointF(0, 0), bars);
    const QPointF top = chart->mapToPosition(QPointF(0, tau), bars);
    QVERIFY2(std::abs(top.y() - zero.y()) >= 20, qPrintable(QStringLiteral("a bar of %1 px").arg(top.y() - zero.y())));
    QGraphicsView* view = chart->scene()->views().front();
    const QPoint middle = view->mapTo(&strip, view->mapFromScene((zero + top) / 2));
    const QImage image = strip.grab().toImage();
    QVERIFY(image.rect().contains(middle));
    const QColor seen = image.pixelColor(middle);
    const QColor want = set->color();
    QVERIFY2(
        std::abs(seen.red() - want.red()) + std::abs(seen.green() - want.green()) + std::abs(seen.blue() - want.blue())
            <= 30,
        qPrintable(QStringLiteral("tau %1: %2 at %3,%4 where the bar (%5) should be")
                       .arg(tau)
                       .arg(seen.name())
                       .arg(middle.x())
                       .arg(middle.y())
                       .arg(want.name())));
}

} // namespace

class TestChartWidgets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ticksAroundRoundingNoise()
    {
        // The run curves once printed "-2.78e-17" (and "5.55e-17") for 0.
        const AxisPolicy::Ticks t = AxisPolicy::ticks(request(-2.78e-17, 1, 6));
        checkTicks(t);
        QCOMPARE(t.min, 0.0);
        QCOMPARE(t.max, 1.0);
        QCOMPARE(t.interval, 0.2);
        QCOMPARE(t.labels(), (QStringList { "0", "0.2", "0.4", "0.6", "0.8", "1.0" }));
        const AxisPolicy::Ticks sym = AxisPolicy::ticks(request(-0.3, 0.3 + 5.55e-17, 7));
        checkTicks(sym);
        QCOMPARE(sym.labels(), (QStringList { "−0.3", "−0.2", "−0.1", "0", "0.1", "0.2", "0.3" }));
    }

    void integerTicksForSteps()
    {
        // A 30-step run once had x ticks "30 30 31 31 32".
        const AxisPolicy::Ticks t = AxisPolicy::ticks(request(30, 32, 5, Kind::Integer));
        checkTicks(t);
        QCOMPARE(t.labels(), (QStringList { "30", "31", "32" }));
        QCOMPARE(t.interval, 1.0);
        const AxisPolicy::Ticks many = AxisPolicy::ticks(request(0, 1000, 6, Kind::Integer));
        checkTicks(many);
        QCOMPARE(many.labels(), (QStringList { "0", "200", "400", "600", "800", "1,000" })); // grouped, as counts are
    }

    void singlePointGetsARange()
    {
        // One logged value: a range around it with the value inside, not a zero-width axis.
        const AxisPolicy::Ticks real = AxisPolicy::ticks(request(0.6931, 0.6931, 6));
        checkTicks(real);
        QVERIFY(real.min < 0.6931 && real.max > 0.6931);
        QVERIFY(real.count >= 3);
        const AxisPolicy::Ticks step = AxisPolicy::ticks(request(30, 30, 6, Kind::Integer));
        checkTicks(step);
        QCOMPARE(step.labels(), (QStringList { "29", "30", "31" }));
        // [0, 0]: a single value at 0 is centred, printed "0".
        const AxisPolicy::Ticks zero = AxisPolicy::ticks(request(0, 0, 5));
        checkTicks(zero);
        QCOMPARE(zero.labels(), (QStringList { "−1.0", "−0.5", "0", "0.5", "1.0" }));
    }

    void emptyAxes()
    {
        // No data: 0..1; on a count axis (the empty Tune chart once read "0 0 0 0 1") whole numbers.
        const AxisPolicy::Ticks counts = AxisPolicy::ticks(request(kNaN, kNaN, 5, Kind::Integer));
        checkTicks(counts);
        QCOMPARE(counts.labels(), (QStringList { "0", "1" }));
        const AxisPolicy::Ticks real = AxisPolicy::ticks(request(kNaN, kNaN, 6));
        QCOMPARE(real.labels(), (QStringList { "0", "0.2", "0.4", "0.6", "0.8", "1.0" }));
    }

    void rankAxesStayWithinTheConfigs()
    {
        // The rank axis once ran -23 .. 1181 with uneven ticks; C = 1182 configs.
        Request r = request(-23, 1181, 8, Kind::Integer);
        r.lowerBound = 0;
        r.upperBound = 1181;
        const AxisPolicy::Ticks t = AxisPolicy::ticks(r);
        checkTicks(t);
        QCOMPARE(t.min, 0.0);
        QCOMPARE(t.max, 1181.0);
        QCOMPARE(t.labels(), (QStringList { "0", "200", "400", "600", "800", "1,000" }));
        // One config: rank 0 only, still a drawable range.
        Request one = request(0, 0, 6, Kind::Integer);
        one.lowerBound = 0;
        one.upperBound = 0;
        const AxisPolicy::Ticks single = AxisPolicy::ticks(one);
        QCOMPARE(single.min, 0.0);
        QVERIFY(single.max > 0);
        QCOMPARE(single.label(0), QStringLiteral("0"));
        // A margin: the range reaches beyond both bounds, the ticks stay within them.
        r.margin = 35;
        const AxisPolicy::Ticks padded = AxisPolicy::ticks(r);
        checkTicks(padded);
        QCOMPARE(padded.min, -35.0);
        QCOMPARE(padded.max, 1181.0 + 35);
        QCOMPARE(padded.labels(), t.labels());
        // Unbounded: the margin only widens a range that ends at the data.
        Request open = request(0, 50, 6, Kind::Integer);
        open.margin = 2;
        const AxisPolicy::Ticks wide = AxisPolicy::ticks(open);
        QCOMPARE(wide.min, -2.0);
        QCOMPARE(wide.max, 52.0);
        QCOMPARE(wide.label(0), QStringLiteral("0"));
        QCOMPARE(wide.value(wide.count - 1), 50.0);
    }

    void labelsCarryJustEnoughDigits()
    {
        const AxisPolicy::Ticks fine = AxisPolicy::ticks(request(0.00862, 0.0087, 5));
        checkTicks(fine);
        QCOMPARE(fine.interval, 0.00002);
        QCOMPARE(fine.decimals, 5);
        // Labels longer than five characters below 0.1: they count in thousandths.
        QCOMPARE(fine.exponent, -3);
        QCOMPARE(fine.label(0), QStringLiteral("8.62"));
        QCOMPARE(fine.factor(), QStringLiteral("×10⁻³"));
        QCOMPARE(fine.format(0.00862), QStringLiteral("0.00862")); // tooltips say the number itself
        const AxisPolicy::Ticks tiny = AxisPolicy::ticks(request(1e-9, 5e-9, 5));
        checkTicks(tiny);
        QVERIFY(tiny.label(1).contains('e')); // scientific below 1e-6 steps
        const AxisPolicy::Ticks big = AxisPolicy::ticks(request(1.5e9, 2.5e9, 6));
        checkTicks(big);
        QVERIFY(big.label(0).contains('e'));
        QCOMPARE(AxisPolicy::maxTicksFor(0, 70), 2);
        QCOMPARE(AxisPolicy::maxTicksFor(350, 70), 6);
        QCOMPARE(AxisPolicy::maxTicksFor(1e6, 70), 11);
        // Many random ranges: the invariants hold.
        for (int i = 0; i < 500; ++i) {
            const double a = std::ldexp(double((i * 7919) % 1000) - 500, (i % 40) - 20);
            const double b = a + std::ldexp(double((i * 104729) % 997 + 1), (i % 37) - 25);
            checkTicks(AxisPolicy::ticks(request(a, b, 2 + i % 10, i % 3 ? Kind::Real : Kind::Integer)));
        }
    }

    // The Tune chart's best score once read "0.02..." at every tick: scores between 0.0223 and
    // 0.0233 need four decimals, too wide for a score axis beside a runtime axis in a narrow chart.
    // The Tune chart of a search whose best scores differ in the fifth significant digit
    // (-0.0431592 to -0.0431608) read "−4.3..." at every tick: such labels count from an offset.
    void narrowRangesCountFromAnOffset()
    {
        for (const int maxTicks : { 3, 5, 11 }) {
            const AxisPolicy::Ticks t = AxisPolicy::ticks(request(-0.0431608, -0.0431592, maxTicks));
            checkTicks(t);
            QVERIFY(t.hasOffset);
            QVERIFY2(t.offsetText().startsWith(QStringLiteral("offset −0.043")), qPrintable(t.offsetText()));
            for (int i = 0; i < t.count; ++i) {
                const QString label = t.label(i);
                QVERIFY2(label.size() <= 5, qPrintable(t.labels().join(' ')));
                // What the label says, times the factor, plus the offset, is the tick's value.
                const double said = QString(label).replace(QStringLiteral("−"), QStringLiteral("-")).toDouble();
                QVERIFY2(std::abs(said * std::pow(10.0, t.exponent) + t.offset - t.value(i)) < t.interval * 1e-6,
                    qPrintable(label));
            }
            QVERIFY2(t.format(-0.04316).contains(QStringLiteral("316")), qPrintable(t.format(-0.04316))); // tooltips: the value
        }
        // Ordinary ranges keep plain labels.
        QVERIFY(!AxisPolicy::ticks(request(0.30, 0.32, 6)).hasOffset);
        QVERIFY(!AxisPolicy::ticks(request(0, 150000, 6, Kind::Integer)).hasOffset);
        QVERIFY(!AxisPolicy::ticks(request(-0.0731, -0.0629, 11)).hasOffset);
        // The axis says the offset and the factor in its title.
        NiceAxis axis;
        axis.setTitleText(QStringLiteral("score"));
        axis.setRequest(request(-0.0431608, -0.0431592, 5));
        QVERIFY2(axis.titleText().startsWith(QStringLiteral("score (offset −0.043")), qPrintable(axis.titleText()));
        QVERIFY2(axis.titleText().contains(QStringLiteral("×10⁻")), qPrintable(axis.titleText()));
        axis.setRequest(request(10, 12, 6));
        QCOMPARE(axis.titleText(), QStringLiteral("score"));
    }

    void smallNumbersCountInAFactor()
    {
        const AxisPolicy::Ticks t = AxisPolicy::ticks(request(0.02232, 0.02326, 9));
        checkTicks(t);
        QCOMPARE(t.exponent, -3);
        QCOMPARE(t.factor(), QStringLiteral("×10⁻³"));
        for (const QString& label : t.labels())
            QVERIFY2(label.size() <= 4, qPrintable(t.labels().join(' ')));
        QVERIFY(t.labels().contains(QStringLiteral("22.4")));
        // Smaller still: millionths; three decimals or numbers from 0.1 on stay as they are.
        QCOMPARE(AxisPolicy::ticks(request(0.00012, 0.00019, 6)).factor(), QStringLiteral("×10⁻⁶"));
        QCOMPARE(AxisPolicy::ticks(request(0.012, 0.019, 6)).exponent, 0); // "0.012": five characters
        // Negative scores of the Tune chart read "−0...." at every tick: "−0.073" needs six.
        const AxisPolicy::Ticks negative = AxisPolicy::ticks(request(-0.0731, -0.0629, 11));
        checkTicks(negative);
        QCOMPARE(negative.exponent, -3);
        QVERIFY2(negative.labels().contains(QStringLiteral("−70")), qPrintable(negative.labels().join(' ')));
        QCOMPARE(AxisPolicy::ticks(request(0.5001, 0.5009, 6)).exponent, 0);

        // The axis says the factor in its title, whichever way the title was set.
        NiceAxis axis;
        axis.setTitleText(QStringLiteral("score"));
        axis.setRequest(request(0.02232, 0.02326, 9));
        QCOMPARE(axis.titleText(), QStringLiteral("score (×10⁻³)"));
        QCOMPARE(axis.plainTitle(), QStringLiteral("score"));
        static_cast<QAbstractAxis&>(axis).setTitleText(QStringLiteral("best score"));
        QCOMPARE(axis.titleText(), QStringLiteral("best score (×10⁻³)"));
        axis.setRequest(request(10, 12, 6));
        QCOMPARE(axis.titleText(), QStringLiteral("best score"));

        // As the Tune panel draws it at its minimum width (320 pixels): the score on the left, the
        // runtime on the right, every label whole.
        QChartView view;
        QChart* chart = view.chart();
        ChartStyle::setUp(chart);
        chart->setTitle(QStringLiteral("Best so far (lower score = faster)"));
        auto* score = new QLineSeries;
        score->setName(QStringLiteral("predicted score"));
        auto* runtime = new QLineSeries;
        runtime->setName(QStringLiteral("simulated runtime"));
        for (int i = 0; i < 8; ++i) {
            score->append(32.0 * (i + 1), 0.02326 - 0.00013 * i);
            runtime->append(32.0 * (i + 1), 10.0 + 0.3 * i);
        }
        chart->addSeries(score);
        chart->addSeries(runtime);
        auto* x = new NiceAxis;
        x->setTitleText(QStringLiteral("candidates scored"));
        auto* y = new NiceAxis;
        y->setTitleText(QStringLiteral("score"));
        auto* r = new NiceAxis;
        r->setTitleText(QStringLiteral("runtime, ms"));
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        chart->addAxis(r, Qt::AlignRight);
        for (QLineSeries* s : { score, runtime })
            s->attachAxis(x);
        score->attachAxis(y);
        runtime->attachAxis(r);
        Request candidates = request(0, 256, 6, Kind::Integer);
        candidates.lowerBound = 0;
        x->setRequest(candidates);
        y->setRequest(request(0.02232 - 0.00005, 0.02326 + 0.00005, 6));
        r->setRequest(request(9.9, 12.2, 6));
        view.resize(320, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTest::qWait(100); // the axes re-tick to the plot area (queued), then the chart lays out again
        QVERIFY(y->length() > 0);
        checkLabelsDrawnWhole(chart);
        QVERIFY(y->titleText().contains(QStringLiteral("×10⁻³")));
        saveScreenshot(view, QStringLiteral("tune-chart-narrow.png"));
    }

    void niceAxisLabelsAreTheTicks()
    {
        NiceAxis axis;
        axis.setRequest(request(-2.78e-17, 1, 6));
        QCOMPARE(axis.categoriesLabels(), axis.ticks().labels());
        QCOMPARE(axis.min(), 0.0);
        QCOMPARE(axis.max(), 1.0);
        QCOMPARE(axis.endValue(QStringLiteral("0")), 0.0);
        QCOMPARE(axis.endValue(QStringLiteral("0.4")), 0.4);
        axis.setDataRange(30, 30);
        QCOMPARE(axis.categoriesLabels().size(), axis.ticks().count);
        QVERIFY(axis.min() < 30 && axis.max() > 30);
    }

    void runCurvesOfAThirtyStepRun()
    {
        // A 30-step run logs its loss once (at step 30) and its tau at 10, 20 and 30, tau from -0.3.
        RunCurvesView view;
        view.resize(640, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setCurves({ curve("short", series("loss", { { 30, 0.6931 } })) });
        QChart* chart = view.chart();
        NiceAxis* x = niceAxis(chart, Qt::Horizontal);
        NiceAxis* y = niceAxis(chart, Qt::Vertical);
        QVERIFY(x && y);
        QTRY_VERIFY(x->length() > 0); // fitted to the plot area
        const QStringList xs = axisLabels(x);
        QVERIFY2(xs.contains("30"), qPrintable(xs.join(' ')));
        for (const QString& label : xs) {
            bool integer = false;
            label.toLongLong(&integer);
            QVERIFY2(integer, qPrintable(xs.join(' ')));
        }
        QVERIFY(x->min() < 30 && x->max() > 30 && x->min() >= 0);
        QVERIFY(y->min() < 0.6931 && y->max() > 0.6931);
        QCOMPARE(QSet<QString>(xs.begin(), xs.end()).size(), xs.size());
        QCOMPARE(view.rawSeries(0)->count(), 1);
        QVERIFY(view.smoothedSeries(0)->pointsVisible()); // a lone point is drawn as a marker
        saveScreenshot(view, QStringLiteral("curves-single-point.png"));

        view.setCurves({ curve("short", series("tau", { { 10, -0.3 }, { 20, 0.1 + 0.2 - 0.3 }, { 30, 0.5 } })) });
        y = niceAxis(chart, Qt::Vertical);
        QVERIFY(!view.smoothedSeries(0)->pointsVisible());
        QTest::qWait(50);
        saveScreenshot(view, QStringLiteral("curves-tau.png"));
        const QStringList ys = axisLabels(y);
        QVERIFY2(ys.contains("0"), qPrintable(ys.join(' ')));
        for (const QString& label : ys)
            QVERIFY2(!label.contains('e') && label != QStringLiteral("−0") && !label.startsWith(QStringLiteral("−0.0")),
                qPrintable(ys.join(' ')));
        QCOMPARE(QSet<QString>(ys.begin(), ys.end()).size(), ys.size());
        QVERIFY(y->min() <= -0.3 && y->max() >= 0.5);
        // The step axis: whole steps from 0 on.
        const QStringList steps = axisLabels(niceAxis(chart, Qt::Horizontal));
        QVERIFY(niceAxis(chart, Qt::Horizontal)->min() >= 0);
        for (const QString& label : steps)
            QVERIFY2(!label.contains('.'), qPrintable(steps.join(' ')));

        // Nothing logged: 0..1.
        view.setCurves({ curve("empty", series("loss", {})) });
        QCOMPARE(axisLabels(niceAxis(chart, Qt::Horizontal)).first(), QStringLiteral("0"));
        QCOMPARE(niceAxis(chart, Qt::Horizontal)->max(), 1.0);
    }

    void rankScatterAxesAreRanks()
    {
        const int n = 1182;
        std::vector<double> scores(n), runtimes(n);
        for (int i = 0; i < n; ++i) {
            scores[size_t(i)] = double((i * 7919) % n) / n;
            runtimes[size_t(i)] = 9.1e8 + 1000.0 * i;
        }
        RankScatterView view;
        view.resize(620, 560);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setData(makeRankScatterData("g", scores, runtimes));
        QChart* chart = view.rankChart();
        for (const Qt::Orientation o : { Qt::Horizontal, Qt::Vertical }) {
            NiceAxis* axis = niceAxis(chart, o);
            QVERIFY(axis);
            // A margin beyond ranks 0 and C - 1, labels within them.
            QVERIFY(axis->min() < 0 && axis->min() > -0.1 * n);
            QVERIFY(axis->max() > n - 1 && axis->max() < 1.1 * n);
            const QStringList labels = axisLabels(axis);
            QVERIFY(labels.size() >= 3);
            QCOMPARE(labels.first(), QStringLiteral("0"));
            // Even steps of 1, 2 or 5 x 10^k between all labels.
            const double step = axis->endValue(labels[1]) - axis->endValue(labels[0]);
            for (int i = 1; i < labels.size(); ++i) {
                QCOMPARE(axis->endValue(labels[i]) - axis->endValue(labels[i - 1]), step);
                QCOMPARE(labels[i], Formatting::count(qint64(axis->endValue(labels[i])))); // a rank is a count
                QVERIFY(axis->endValue(labels[i]) <= n - 1);
            }
        }
        QTest::qWait(50);
        saveScreenshot(view, QStringLiteral("scatter-rank.png"));
        // Runtimes within a decade: a linear runtime axis with labelled ticks, in ms.
        view.tabs()->setCurrentIndex(1);
        QTest::qWait(50);
        saveScreenshot(view, QStringLiteral("scatter-score.png"));
        NiceAxis* runtime = niceAxis(view.scoreChart(), Qt::Vertical);
        QVERIFY(runtime);
        QVERIFY(runtime->titleText().contains("ms"));
        QVERIFY(axisLabels(runtime).size() >= 2);
        QVERIFY(runtime->min() <= 910.0 && runtime->max() >= 910.0 + 1181e-3);
    }

    // The rank scatter once cut the markers of the slowest and fastest configs at its edges: every
    // marker lies whole inside the plot, for a few configs and for many, in both charts.
    void rankScatterMarkersStayWhole()
    {
        for (const int n : { 57, 1182 }) {
            std::vector<double> scores(static_cast<size_t>(n)), runtimes(static_cast<size_t>(n));
            for (int i = 0; i < n; ++i) {
                scores[size_t(i)] = double((i * 7919) % n) / n;
                runtimes[size_t(i)] = 9.1e8 + 1000.0 * ((i * 104729) % n);
            }
            RankScatterView view;
            view.resize(560, 520);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            view.setData(makeRankScatterData("g", scores, runtimes));
            QTest::qWait(100);
            checkMarkersInside(view.rankChart());
            if (QTest::currentTestFailed())
                return;
            view.tabs()->setCurrentIndex(1);
            QTest::qWait(100);
            checkMarkersInside(view.scoreChart());
            if (QTest::currentTestFailed())
                return;
            // Without runtimes the score chart's y axis is the predicted rank.
            view.setData(makeRankScatterData("g", scores, {}));
            QTest::qWait(100);
            checkMarkersInside(view.scoreChart());
            if (QTest::currentTestFailed())
                return;
        }
    }

    // One graph draws its bar and its axes as several do (docs/studio.md §5.3), read back from the
    // chart's series and axes and from its pixels: the bar's colour between y = 0 and y = tau at the
    // category's centre. As the inference panel has it: the strip on a tab behind the rank scatter,
    // filled while hidden (after a collection of several), shown, then filled again while shown.
    void tauStripDrawsOneGraph()
    {
        for (const double tau : { 0.6, -0.4, 1.0 }) {
            QTabWidget tabs;
            tabs.resize(500, 340);
            tabs.addTab(new QWidget, "scatter");
            auto* strip = new TauStripView;
            tabs.addTab(strip, "tau");
            tabs.show();
            QVERIFY(QTest::qWaitForWindowExposed(&tabs));
            strip->setEntries({ { "a", "a.npz", "layout:xla:default", 0.2 },
                { "b", "b.npz", "layout:nlp:default", 0.7 }, { "c", "c.npz", "layout:xla:default", -0.1 } });
            strip->setEntries({ { "only", "only.npz", "layout:xla:default", 0.3 } });
            tabs.setCurrentIndex(1);
            QTest::qWait(50);
            checkOneBar(*strip, 0.3);
            if (QTest::currentTestFailed())
                return;
            strip->setEntries({ { "only", "only.npz", "layout:xla:default", tau } });
            QTest::qWait(50);
            checkOneBar(*strip, tau);
            if (QTest::currentTestFailed())
                return;
            saveScreenshot(tabs, QStringLiteral("tau-strip-one-graph.png"));
        }
    }

    void tauAxesFollowThePolicy()
    {
        TauStripView strip;
        strip.setEntries({ { "a", "a.npz", "x", -0.25 }, { "b", "b.npz", "x", 0.5 } });
        const QStringList tau = axisLabels(niceAxis(strip.chart(), Qt::Vertical));
        QVERIFY2(tau.contains("0") && tau.contains("1.0"), qPrintable(tau.join(' ')));
        QVERIFY(niceAxis(strip.chart(), Qt::Vertical)->min() <= -0.25);
        QVERIFY(niceAxis(strip.chart(), Qt::Vertical)->max() <= 1.0);

        RunComparisonView comparison;
        tgraph::RunComparison c;
        c.graphs = { "g1", "g2" };
        tgraph::ComparedRun r;
        r.id = "r";
        r.graphTau = { { "g1", 0.3 }, { "g2", -0.1 } };
        c.runs.push_back(r);
        comparison.setComparison(c);
        const QStringList labels = axisLabels(niceAxis(comparison.chart(), Qt::Vertical));
        QVERIFY2(labels.contains(QStringLiteral("−1.0")) && labels.contains("0") && labels.contains("1.0"),
            qPrintable(labels.join(' ')));
    }

    void heatmapLabelsAreThinned()
    {
        QCOMPARE(HeatmapView::labelStride(4, 200, 15), int64_t(1));
        QCOMPARE(HeatmapView::labelStride(128, 240, 15), int64_t(10));
        QCOMPARE(HeatmapView::labelStride(128, 100, 15), int64_t(50)); // 7 labels every 20th need 105
        QCOMPARE(HeatmapView::labelStride(3, 1, 15), int64_t(5)); // one label, the first
        // The cross-config heatmap: 128 channel rows, 116 config columns, at its default size.
        HeatmapData d;
        d.columns = 116;
        for (int c = 0; c < 128; ++c)
            d.rowLabels << QStringLiteral("ch %1").arg(c);
        for (int r = 0; r < 128; ++r)
            for (int c = 0; c < 116; ++c)
                d.values.push_back(float(1.0 / 116 + 1e-5 * ((r * 31 + c * 17) % 7)));
        d.scale = HeatmapData::Scale::Auto;
        HeatmapView view;
        view.setData(d);
        view.resize(view.sizeHint().width(), 320);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const double lineHeight = view.fontMetrics().height();
        const double cellHeight = view.matrixRect().height() / 128;
        const std::vector<int64_t> rows = view.labelledRows();
        QVERIFY(rows.size() >= 2 && rows.size() < 128);
        QCOMPARE(rows.front(), int64_t(0));
        for (size_t i = 1; i < rows.size(); ++i)
            QVERIFY(double(rows[i] - rows[i - 1]) * cellHeight >= lineHeight);
        const std::vector<int64_t> columns = view.labelledColumns();
        QVERIFY(columns.size() >= 2);
        const double cellWidth = view.matrixRect().width() / 116;
        const double widest = view.fontMetrics().horizontalAdvance(QStringLiteral("115"));
        for (size_t i = 1; i < columns.size(); ++i)
            QVERIFY(double(columns[i] - columns[i - 1]) * cellWidth >= widest);
        // The colour bar's labels, as long as they are, stay inside the widget.
        for (const QString& label : view.colourBarLabels())
            QVERIFY2(view.colourBarRect().right() + 3 + view.fontMetrics().horizontalAdvance(label) <= view.width(),
                qPrintable(label));
        saveScreenshot(view, QStringLiteral("heatmap-cross.png"));
        // Narrower: fewer labels, still apart.
        view.resize(300, 160);
        QTRY_VERIFY(view.labelledRows().size() < rows.size());
        QVERIFY(view.labelledColumns().size() <= columns.size());
    }

    void heatmapColourRangeHasAMinimumSpan()
    {
        HeatmapData d;
        d.rowLabels << "ch 0";
        d.columns = 3;
        d.values = { 0.00862f, 0.0087f, 0.00866f };
        d.scale = HeatmapData::Scale::Auto;
        const auto [lo, hi] = d.colourRange();
        QVERIFY(hi - lo >= HeatmapData::kMinimumRelativeSpan * 0.0087 * 0.999);
        QVERIFY(lo <= 0.00862 && hi >= 0.0087);
        QVERIFY(!d.allEqual());
        d.values = { 0.1f, 0.9f, 0.5f }; // a real spread keeps its own range
        QCOMPARE(d.colourRange(), std::make_pair(double(0.1f), double(0.9f)));
        d.values = { 0.25f, 0.25f, std::nanf("") };
        QVERIFY(d.allEqual());
        d.scale = HeatmapData::Scale::Unit; // gates on the fixed 0..1 range are never "all equal"
        QVERIFY(!d.allEqual());

        // Diverging: differences of noise against what they were taken of are painted pale, a real
        // difference keeps its own range.
        d.scale = HeatmapData::Scale::Diverging;
        d.values = { 1e-7f, -2e-7f, 0.0f };
        QCOMPARE(d.colourRange().second, double(2e-7f)); // no reference: its own magnitude
        d.reference = 1.0; // gates: 0..1
        QCOMPARE(d.colourRange(), std::make_pair(-ColorMaps::kDivergingNoise, ColorMaps::kDivergingNoise));
        d.reference = 1e-3; // shares of 1e-3: a difference of 2e-7 is real and keeps the whole map
        QCOMPARE(d.colourRange().second, double(2e-7f));
        d.values = { 0.4f, -0.3f, 0.0f };
        QCOMPARE(d.colourRange(), std::make_pair(-double(0.4f), double(0.4f)));
        d.values = { 0.25f, 0.25f, std::nanf("") };

        // Drawn: the colour bar says "all 0.25" (checked on pixels: one colour across the bar).
        d.scale = HeatmapData::Scale::Auto;
        HeatmapView view;
        view.setData(d);
        view.resize(400, 160);
        QCOMPARE(view.colourBarLabels(), QStringList { "all 0.25" });
        const QImage image = view.grab().toImage();
        const QRectF bar = view.colourBarRect();
        QCOMPARE(image.pixelColor(int(bar.center().x()), int(bar.top()) + 4),
            image.pixelColor(int(bar.center().x()), int(bar.bottom()) - 4));
        saveScreenshot(view, QStringLiteral("heatmap-all-equal.png"));
        // A spread of values: a gradient from top to bottom.
        d.values = { 0.1f, 0.9f, 0.5f };
        view.setData(d);
        const QImage spread = view.grab().toImage();
        const QRectF gradient = view.colourBarRect();
        QVERIFY(spread.pixelColor(int(gradient.center().x()), int(gradient.top()) + 4)
            != spread.pixelColor(int(gradient.center().x()), int(gradient.bottom()) - 4));
    }

    void runtimesCarryTheDigitsThatTellThemApart()
    {
        // "measured 911 ms vs 911 ms ... The measurements disagree".
        QCOMPARE(Formatting::durations({ 911234567, 911456789 }), (QStringList { "911.2 ms", "911.5 ms" }));
        QCOMPARE(Formatting::durations({ 911234567, 911234999 }), (QStringList { "911.2346 ms", "911.2350 ms" }));
        QCOMPARE(Formatting::durations({ 911234567, 911234568 }), (QStringList { "911.234567 ms", "911.234568 ms" }));
        QCOMPARE(Formatting::durations({ 911234567, 911234567 }), (QStringList { "911 ms", "911 ms" }));
        QCOMPARE(Formatting::durations({ 1500, kNaN, 2500 }), (QStringList { "1.50 µs", "–", "2.50 µs" }));
        QCOMPARE(Formatting::durations({ 870 }), QStringList { "870 ns" });
        QCOMPARE(Formatting::durationDifference(911456789, 911234567), QStringLiteral("+0.22 ms (+0.024 %)"));
        QCOMPARE(Formatting::durationDifference(911234567, 911456789), QStringLiteral("−0.22 ms (−0.024 %)"));
        QCOMPARE(Formatting::durationDifference(5, 5), QStringLiteral("0 ns"));
        QCOMPARE(Formatting::durationUnit(2.5e9).second, QStringLiteral("s"));
    }
};

QTEST_MAIN(TestChartWidgets)
#include "tst_chartwidgets.moc"
