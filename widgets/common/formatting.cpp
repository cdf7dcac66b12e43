// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/formatting.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

namespace Formatting {

namespace {

const QString kMinus = QStringLiteral("−"); // U+2212, for differences shown with a sign
constexpr int kMaxDecimals = 12;

// `value` rounded to `decimals` is zero: printed without a sign.
bool roundsToZero(double value, int decimals) { return std::abs(value) * std::pow(10.0, decimals) < 0.5; }

// Drops the zeros at the end of a fraction, and the decimal mark when nothing is left after it.
QString trimZeros(QString text, const QLocale& locale)
{
    const QString mark = locale.decimalPoint();
    if (!text.contains(mark))
        return text;
    while (text.endsWith(locale.zeroDigit()))
        text.chop(1);
    if (text.endsWith(mark))
        text.chop(mark.size());
    return text;
}

// The locale's minus at the start of `text` as the typographic minus, U+2212, which every negative
// number the studio shows carries ("−0.25", "−1.5e-05"); "+" and "−" have the same width.
QString typographicMinus(QString text, const QLocale& locale)
{
    const QString sign = locale.negativeSign();
    if (text.startsWith(sign))
        text.replace(0, sign.size(), kMinus);
    return text;
}

// |value| without a sign, and the sign that goes in front of it (empty for zero).
QString withSign(double value, const QString& magnitude, bool zero)
{
    if (zero)
        return magnitude;
    return (value > 0 ? QStringLiteral("+") : kMinus) + magnitude;
}

} // namespace

QString missing() { return QStringLiteral("–"); }

QString count(int64_t value)
{
    const QLocale locale;
    return typographicMinus(locale.toString(qlonglong(value)), locale);
}

QString id(int64_t value) { return QString::number(qlonglong(value)); }

QString number(double value, int decimals)
{
    if (!std::isfinite(value))
        return missing();
    decimals = std::clamp(decimals, 0, kMaxDecimals);
    if (roundsToZero(value, decimals))
        value = 0;
    const QLocale locale;
    return typographicMinus(locale.toString(value, 'f', decimals), locale);
}

QString significant(double value, int digits)
{
    if (!std::isfinite(value))
        return missing();
    digits = std::clamp(digits, 1, 17);
    if (value == 0)
        return QLocale().toString(0);
    const double magnitude = std::abs(value);
    if (magnitude < 1e-4 || magnitude >= 1e9)
        return scientific(value, digits);
    const int exponent = int(std::floor(std::log10(magnitude)));
    const int decimals = std::max(0, digits - 1 - exponent);
    const QLocale locale;
    return typographicMinus(trimZeros(locale.toString(value, 'f', decimals), locale), locale);
}

QString scientific(double value, int digits)
{
    if (!std::isfinite(value))
        return missing();
    const QLocale locale;
    return typographicMinus(locale.toString(value, 'e', std::clamp(digits, 1, 17) - 1), locale);
}

QString percent(double fraction, int decimals)
{
    if (!std::isfinite(fraction))
        return missing();
    return number(100.0 * fraction, decimals) + QStringLiteral(" %");
}

QString signedNumber(double value, int decimals)
{
    if (!std::isfinite(value))
        return missing();
    decimals = std::clamp(decimals, 0, kMaxDecimals);
    const bool zero = roundsToZero(value, decimals);
    return withSign(value, QLocale().toString(zero ? 0.0 : std::abs(value), 'f', decimals), zero);
}

QString signedSignificant(double value, int digits)
{
    if (!std::isfinite(value))
        return missing();
    return withSign(value, significant(std::abs(value), digits), value == 0);
}

QString meanStd(double mean, double std, int decimals)
{
    if (!std::isfinite(mean))
        return missing();
    if (!std::isfinite(std))
        return number(mean, decimals);
    return number(mean, decimals) + QStringLiteral(" ± ") + number(std, decimals);
}

QString seconds(double value, int decimals) { return number(value, decimals) + QStringLiteral(" s"); }

QString factor(double value, int decimals)
{
    if (!std::isfinite(value))
        return missing();
    return number(value, decimals) + QStringLiteral("×");
}

QString numberList(const QStringList& numbers)
{
    return numbers.join(QLocale().decimalPoint() == QLatin1String(",") ? QStringLiteral("; ") : QStringLiteral(", "));
}

QString elapsed(int64_t s)
{
    s = std::max<int64_t>(0, s);
    if (s < 60)
        return QStringLiteral("%1s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1m %2s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1h %2m").arg(count(s / 3600)).arg((s % 3600) / 60);
}

std::pair<double, QString> durationUnit(double ns)
{
    const double magnitude = std::abs(ns);
    if (!(magnitude >= 1e3))
        return { 1.0, QStringLiteral("ns") };
    if (std::round(magnitude / 1e3) < 1000)
        return { 1e3, QStringLiteral("µs") };
    if (std::round(magnitude / 1e6) < 1000)
        return { 1e6, QStringLiteral("ms") };
    return { 1e9, QStringLiteral("s") };
}

namespace {

// Decimals for three significant digits of `scaled` (a value in its unit), after rounding.
int threeDigitDecimals(double scaled)
{
    const double magnitude = std::abs(scaled);
    for (int decimals = 2; decimals > 0; --decimals) {
        const double rounded = std::round(magnitude * std::pow(10.0, decimals)) / std::pow(10.0, decimals);
        if (rounded < std::pow(10.0, 3 - decimals))
            return decimals;
    }
    return 0;
}

// The unit and the decimals that durations() uses for `values`.
std::pair<std::pair<double, QString>, int> durationDigits(const std::vector<double>& values)
{
    std::vector<double> finite;
    for (const double v : values)
        if (std::isfinite(v))
            finite.push_back(std::round(v)); // runtimes are whole nanoseconds
    double largest = 0;
    for (const double v : finite)
        largest = std::max(largest, std::abs(v));
    const auto unit = durationUnit(largest);
    const int maxDecimals = int(std::lround(std::log10(unit.first))); // 1 ns
    const double scaled = largest / unit.first;
    int decimals = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2;
    decimals = std::min(decimals, maxDecimals);
    std::sort(finite.begin(), finite.end());
    finite.erase(std::unique(finite.begin(), finite.end()), finite.end());
    for (; decimals < maxDecimals; ++decimals) {
        bool apart = true;
        for (size_t i = 1; i < finite.size() && apart; ++i)
            apart = std::round(finite[i - 1] / unit.first * std::pow(10.0, decimals))
                != std::round(finite[i] / unit.first * std::pow(10.0, decimals));
        if (apart)
            break;
    }
    return { unit, decimals };
}

} // namespace

QString duration(int64_t nanoseconds)
{
    const auto [perUnit, name] = durationUnit(double(nanoseconds));
    if (perUnit == 1.0)
        return count(nanoseconds) + QStringLiteral(" ns");
    const double scaled = double(nanoseconds) / perUnit;
    return number(scaled, threeDigitDecimals(scaled)) + QLatin1Char(' ') + name;
}

QStringList durations(const std::vector<double>& nanoseconds)
{
    const auto [unit, decimals] = durationDigits(nanoseconds);
    QStringList out;
    for (const double v : nanoseconds)
        out << (std::isfinite(v) ? number(std::round(v) / unit.first, decimals) + QLatin1Char(' ') + unit.second
                                 : missing());
    return out;
}

QString durationDifference(double a, double b)
{
    if (!std::isfinite(a) || !std::isfinite(b))
        return missing();
    const double d = std::round(a) - std::round(b);
    if (d == 0)
        return QStringLiteral("0 ns");
    const auto [unit, decimals] = durationDigits({ a, b });
    // The difference in the values' unit, with at least two significant digits of its own.
    const double scaled = d / unit.first;
    const int maxDecimals = int(std::lround(std::log10(unit.first)));
    const int own = std::clamp(1 - int(std::floor(std::log10(std::abs(scaled)))), 0, maxDecimals);
    QString text = signedNumber(scaled, std::max(decimals, own)) + QLatin1Char(' ') + unit.second;
    if (b != 0) {
        const double relative = 100.0 * d / std::abs(b);
        const int digits = std::clamp(1 - int(std::floor(std::log10(std::abs(relative)))), 0, 6);
        text += QStringLiteral(" (%1 %)").arg(signedNumber(relative, digits));
    }
    return text;
}

std::pair<QString, QString> distinct(double a, double b)
{
    QString la, lb;
    for (int digits = 3; digits <= 9; ++digits) {
        la = significant(a, digits);
        lb = significant(b, digits);
        if (la != lb)
            break;
    }
    return { la, lb };
}

QString bytes(uint64_t value)
{
    if (value < 1024)
        return count(int64_t(value)) + QStringLiteral(" B");
    static const char* const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
    double scaled = double(value);
    int unit = -1;
    while (scaled >= 1024 && unit < 4) {
        scaled /= 1024;
        ++unit;
    }
    if (std::round(scaled * 100) / 100 >= 1024 && unit < 4) { // 1023.999 KiB reads "1.00 MiB"
        scaled /= 1024;
        ++unit;
    }
    return number(scaled, threeDigitDecimals(scaled)) + QLatin1Char(' ') + QLatin1String(units[unit]);
}

QString shape(const std::vector<int64_t>& dims)
{
    QStringList parts;
    for (const int64_t d : dims)
        parts << id(d);
    if (parts.size() == 1)
        return QStringLiteral("(%1,)").arg(parts.front());
    return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
}

} // namespace Formatting

} // namespace tgraph::widgets
