// SPDX-License-Identifier: Apache-2.0
// Text for people (docs/studio.md §8.4 and §9): every number through Formatting follows the
// locale's decimal mark and grouping together (checked under C and German, QLocale::setDefault),
// "–" for values that are not finite; names shortened by DistinctNames keep what tells them apart
// (shared heads and tails elided, numbers never cut, very short widths); chart legends through
// LegendNames stay distinct and whole in their tooltips.

#include "widgets/common/distinctnames.h"
#include "widgets/common/formatting.h"
#include "widgets/common/legendnames.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QFontMetrics>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QSet>
#include <QTest>

#include <cmath>
#include <limits>

using namespace tgraph::widgets;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Runs `body` with `locale` as the default QLocale, and restores the previous one.
template <class Body> void underLocale(const QLocale& locale, Body body)
{
    const QLocale previous;
    QLocale::setDefault(locale);
    body();
    QLocale::setDefault(previous);
}

bool allDistinct(const QStringList& names) { return QSet<QString>(names.begin(), names.end()).size() == names.size(); }

} // namespace

class TestFormatting : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The C locale as the system's LANG=C gives it: with grouping (QLocale::c() omits it).
    void init()
    {
        QLocale c = QLocale::c();
        c.setNumberOptions(QLocale::DefaultNumberOptions);
        QLocale::setDefault(c);
    }

    void numbersInC()
    {
        QCOMPARE(Formatting::count(1234567), QStringLiteral("1,234,567"));
        QCOMPARE(Formatting::id(1234567), QStringLiteral("1234567"));
        QCOMPARE(Formatting::number(240.31, 1), QStringLiteral("240.3"));
        QCOMPARE(Formatting::number(12345.6, 1), QStringLiteral("12,345.6"));
        QCOMPARE(Formatting::number(-0.0001, 2), QStringLiteral("0.00")); // never "-0.00"
        QCOMPARE(Formatting::number(-12.5, 1), QStringLiteral("−12.5")); // the typographic minus
        QCOMPARE(Formatting::count(-3), QStringLiteral("−3"));
        QCOMPARE(Formatting::significant(-0.000123, 3), QStringLiteral("−0.000123"));
        QCOMPARE(Formatting::scientific(-1.5e-10, 2), QStringLiteral("−1.5e-10"));
        QCOMPARE(Formatting::significant(0.079623, 3), QStringLiteral("0.0796"));
        QCOMPARE(Formatting::significant(1234.5, 4), QStringLiteral("1,235"));
        QCOMPARE(Formatting::significant(0.5, 4), QStringLiteral("0.5"));
        QCOMPARE(Formatting::significant(0, 4), QStringLiteral("0"));
        QCOMPARE(Formatting::significant(1.234e-5, 3), QStringLiteral("1.23e-05"));
        QCOMPARE(Formatting::scientific(1.5e10, 2), QStringLiteral("1.5e+10"));
        QCOMPARE(Formatting::percent(0.1234, 1), QStringLiteral("12.3 %"));
        QCOMPARE(Formatting::signedNumber(-0.25, 2), QStringLiteral("−0.25"));
        QCOMPARE(Formatting::signedNumber(0.25, 2), QStringLiteral("+0.25"));
        QCOMPARE(Formatting::signedNumber(0.001, 2), QStringLiteral("0.00"));
        QCOMPARE(Formatting::signedSignificant(-0.00123, 2), QStringLiteral("−0.0012"));
        QCOMPARE(Formatting::meanStd(0.81234, 0.01234, 4), QStringLiteral("0.8123 ± 0.0123"));
        QCOMPARE(Formatting::meanStd(0.81234, kNaN, 4), QStringLiteral("0.8123"));
        QCOMPARE(Formatting::seconds(1.234, 1), QStringLiteral("1.2 s"));
        QCOMPARE(Formatting::factor(1.2345, 2), QStringLiteral("1.23×"));
        QCOMPARE(Formatting::elapsed(192), QStringLiteral("3m 12s"));
        QCOMPARE(Formatting::duration(240300000), QStringLiteral("240 ms"));
        QCOMPARE(Formatting::duration(1250000), QStringLiteral("1.25 ms"));
        QCOMPARE(Formatting::duration(999600), QStringLiteral("1.00 ms")); // the unit after rounding
        QCOMPARE(Formatting::duration(870), QStringLiteral("870 ns"));
        QCOMPARE(Formatting::bytes(1536), QStringLiteral("1.50 KiB"));
        QCOMPARE(Formatting::bytes(512), QStringLiteral("512 B"));
        QCOMPARE(Formatting::numberList({ "0.5", "1.5" }), QStringLiteral("0.5, 1.5"));
        QCOMPARE(Formatting::shape({ 2, 3 }), QStringLiteral("(2, 3)"));
        QCOMPARE(Formatting::shape({ 5 }), QStringLiteral("(5,)"));
    }

    void numbersInGerman()
    {
        underLocale(QLocale(QLocale::German, QLocale::Germany), [] {
            QCOMPARE(Formatting::count(215029), QStringLiteral("215.029"));
            QCOMPARE(Formatting::id(215029), QStringLiteral("215029"));
            QCOMPARE(Formatting::number(240.31, 1), QStringLiteral("240,3"));
            QCOMPARE(Formatting::number(12345.6, 1), QStringLiteral("12.345,6"));
            QCOMPARE(Formatting::significant(0.079623, 3), QStringLiteral("0,0796"));
            QCOMPARE(Formatting::percent(0.1234, 1), QStringLiteral("12,3 %"));
            QCOMPARE(Formatting::signedNumber(-0.25, 2), QStringLiteral("−0,25"));
            QCOMPARE(Formatting::meanStd(0.81234, 0.01234, 4), QStringLiteral("0,8123 ± 0,0123"));
            QCOMPARE(Formatting::durations({ 240300000, 240400000 }), (QStringList { "240,3 ms", "240,4 ms" }));
            QCOMPARE(Formatting::durationDifference(911456789, 911234567), QStringLiteral("+0,22 ms (+0,024 %)"));
            QCOMPARE(Formatting::duration(1250000), QStringLiteral("1,25 ms"));
            QCOMPARE(Formatting::bytes(1536), QStringLiteral("1,50 KiB"));
            const auto [low, high] = Formatting::distinct(0.00857, 0.0087);
            QCOMPARE(low, QStringLiteral("0,00857"));
            QCOMPARE(high, QStringLiteral("0,0087"));
            // A list of decimals never reads as one number.
            QCOMPARE(Formatting::numberList({ "0,5", "1,5" }), QStringLiteral("0,5; 1,5"));
        });
    }

    void nonFiniteValuesReadDash()
    {
        for (const double v : { kNaN, kInf, -kInf }) {
            QCOMPARE(Formatting::number(v, 2), Formatting::missing());
            QCOMPARE(Formatting::significant(v, 3), Formatting::missing());
            QCOMPARE(Formatting::scientific(v, 3), Formatting::missing());
            QCOMPARE(Formatting::percent(v, 1), Formatting::missing());
            QCOMPARE(Formatting::signedNumber(v, 1), Formatting::missing());
            QCOMPARE(Formatting::meanStd(v, 0.1, 1), Formatting::missing());
            QCOMPARE(Formatting::factor(v, 2), Formatting::missing());
        }
        QCOMPARE(Formatting::missing(), QStringLiteral("–"));
    }

    // Names that share their head keep their own part: the seeds of a sweep's runs.
    void sharedHeadIsElided()
    {
        const QStringList runs { "sweep-a / c0-s42", "sweep-a / c0-s43" };
        const QStringList shown = DistinctNames::shorten(runs, 12);
        QVERIFY2(allDistinct(shown), qPrintable(shown.join(" | ")));
        for (int i = 0; i < runs.size(); ++i) {
            QVERIFY2(shown[i].size() <= 12, qPrintable(shown[i]));
            QVERIFY2(shown[i].endsWith(runs[i].right(3)), qPrintable(shown[i])); // "s42", "s43" whole
            QVERIFY2(shown[i].startsWith(QStringLiteral("sweep")), qPrintable(shown[i]));
            QVERIFY(shown[i].contains(QChar(0x2026)));
        }
        // Names that fit stay whole.
        QCOMPARE(DistinctNames::shorten(runs, 16), runs);
    }

    // Names that share their tail: the distinct head is kept, the shared tail elided (not "s…o").
    void sharedTailIsElided()
    {
        const QStringList files { "ssd_mobilenet_tf.hlo", "graphsage_tf.hlo" };
        QCOMPARE(DistinctNames::shorten(files, 14), (QStringList { "ssd_mobilenet…", "graphsage…" }));
        // With more room, as much of the shared tail as fits.
        const QStringList wider = DistinctNames::shorten(files, 17);
        QVERIFY2(
            wider[0].startsWith(QStringLiteral("ssd_mobilenet_")) && wider[1].startsWith(QStringLiteral("graphsage_")),
            qPrintable(wider.join(" | ")));
        QVERIFY(wider[0].size() <= 17 && wider[1].size() <= 17);
        // Narrower than the longer own part: cut at its end, one "…" only.
        QCOMPARE(DistinctNames::shorten(files, 12), (QStringList { "ssd_mobilen…", "graphsage…" }));
    }

    // A number is never cut in two: "run-9" / "run-10" keep 9 and 10, "seed-12" / "seed-13" whole.
    void numbersThatDifferStayWhole()
    {
        const QStringList graphs { "graph_0009_resnet50.npz", "graph_0010_resnet50.npz", "graph_0011_resnet50.npz" };
        const QStringList shown = DistinctNames::shorten(graphs, 14);
        QVERIFY2(allDistinct(shown), qPrintable(shown.join(" | ")));
        for (int i = 0; i < graphs.size(); ++i) {
            QVERIFY2(shown[i].size() <= 14, qPrintable(shown[i]));
            QVERIFY2(shown[i].contains(graphs[i].mid(6, 4)), qPrintable(shown[i]));
        }
        const QStringList seeds = DistinctNames::shorten({ "model seed-12 final", "model seed-13 final" }, 10);
        QVERIFY2(seeds[0].contains(QStringLiteral("12")) && seeds[1].contains(QStringLiteral("13")),
            qPrintable(seeds.join(" | ")));
        QVERIFY2(!seeds[0].contains(QStringLiteral("1…")), qPrintable(seeds[0])); // not cut inside the number
    }

    // Very short widths: never wider than asked, never empty, at least "…".
    void veryShortWidths()
    {
        const QStringList names { "sweep-a / c0-s42", "sweep-a / c0-s43", "other" };
        for (int width : { -3, 0, 1, 2, 3, 4, 5 }) {
            const QStringList shown = DistinctNames::shorten(names, width);
            QCOMPARE(shown.size(), names.size());
            for (const QString& s : shown) {
                QVERIFY2(!s.isEmpty(), qPrintable(QString::number(width)));
                QVERIFY2(s.size() <= std::max(1, width), qPrintable(s + " at " + QString::number(width)));
            }
        }
        QCOMPARE(DistinctNames::shorten({ "abcdef", "abcxyz" }, 1), (QStringList { "…", "…" }));
        // From four characters the own parts show: "…def" / "…xyz".
        const QStringList four = DistinctNames::shorten({ "abc-def", "abc-xyz" }, 4);
        QVERIFY2(allDistinct(four), qPrintable(four.join(" | ")));
    }

    // One name, equal names, an empty list: elided in the middle like any long name.
    void singleAndEqualNames()
    {
        QCOMPARE(DistinctNames::shorten({}, 5), QStringList {});
        const QStringList one = DistinctNames::shorten({ "cluster_0__XlaCompiledKernel_true" }, 11);
        QCOMPARE(one.front().size(), 11);
        QVERIFY(one.front().startsWith(QStringLiteral("clust")) && one.front().endsWith(QStringLiteral("_true")));
        const QStringList same = DistinctNames::shorten({ "same-long-name", "same-long-name" }, 8);
        QCOMPARE(same.front(), same.back());
        QVERIFY(same.front().size() <= 8);
    }

    // In pixels: every name within the width, the seeds kept.
    void pixelWidths()
    {
        const QFontMetrics metrics(QApplication::font());
        const QStringList runs { "sweep-a / c0-s42", "sweep-a / c0-s43" };
        const int width = metrics.horizontalAdvance(QStringLiteral("sweep-a…s42")) + 2;
        const QStringList shown = DistinctNames::shorten(runs, metrics, width);
        QVERIFY2(allDistinct(shown), qPrintable(shown.join(" | ")));
        for (int i = 0; i < runs.size(); ++i) {
            QVERIFY2(metrics.horizontalAdvance(shown[i]) <= width, qPrintable(shown[i]));
            QVERIFY2(shown[i].endsWith(runs[i].right(3)), qPrintable(shown[i]));
        }
    }

    // A narrow chart: the legend entries stay distinct, their notes go first, the tooltips are whole.
    void legendEntriesStayDistinct()
    {
        QChartView view(new QChart);
        QChart* chart = view.chart();
        QList<QAbstractSeries*> series;
        QStringList names, notes;
        for (const QString& name : { QStringLiteral("sweep-a / c0-s42"), QStringLiteral("sweep-a / c0-s43"),
                 QStringLiteral("sweep-a / c1-s42") }) {
            auto* s = new QLineSeries;
            s->append(0, 0);
            s->append(1, 1);
            chart->addSeries(s);
            series << s;
            names << name;
            notes << QStringLiteral("  (best 0.8312 at step 1,200)");
        }
        view.resize(360, 240);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        LegendNames::set(chart, series, names, notes);
        QTest::qWait(50);
        const QFontMetrics metrics(chart->legend()->font());
        const int room = LegendNames::roomPerEntry(chart, int(series.size()));
        QStringList shown;
        for (int i = 0; i < series.size(); ++i) {
            shown << series[i]->name();
            QVERIFY2(metrics.horizontalAdvance(series[i]->name()) <= room, qPrintable(series[i]->name()));
            QCOMPARE(LegendNames::fullName(series[i]), names[i] + notes[i]);
        }
        QVERIFY2(allDistinct(shown), qPrintable(shown.join(" | ")));
        QVERIFY2(shown[0].contains(QStringLiteral("s42")) && shown[1].contains(QStringLiteral("s43")),
            qPrintable(shown.join(" | ")));
        // Wide enough: names and notes whole.
        view.resize(1800, 240);
        QTRY_COMPARE(series[0]->name(), names[0] + notes[0]);
    }
};

QTEST_MAIN(TestFormatting)
#include "tst_formatting.moc"
