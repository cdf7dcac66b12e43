// SPDX-License-Identifier: Apache-2.0
// Text for people (docs/studio.md §8.4): every number through Formatting follows the locale's
// decimal mark and grouping together (checked under C and German, QLocale::setDefault), "–" for
// values that are not finite.

#include "widgets/common/formatting.h"

#include <QLocale>
#include <QTest>

#include <cmath>
#include <limits>

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
};

QTEST_MAIN(TestFormatting)
#include "tst_formatting.moc"
