// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/formatting.h"

#include "core/util/format.h"
#include "core/io/ndarray.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace Formatting {

QString count(int64_t value) { return QLocale().toString(qlonglong(value)); }

QString duration(int64_t nanoseconds) { return QString::fromStdString(tgraph::formatDuration(nanoseconds)); }

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
            apart = QString::number(finite[i - 1] / unit.first, 'f', decimals)
                != QString::number(finite[i] / unit.first, 'f', decimals);
        if (apart)
            break;
    }
    return { unit, decimals };
}

} // namespace

QStringList durations(const std::vector<double>& nanoseconds)
{
    const auto [unit, decimals] = durationDigits(nanoseconds);
    QStringList out;
    for (const double v : nanoseconds)
        out << (std::isfinite(v) ? QStringLiteral("%1 %2").arg(QString::number(std::round(v) / unit.first, 'f', decimals), unit.second)
                                 : QStringLiteral("–"));
    return out;
}

QString durationDifference(double a, double b)
{
    if (!std::isfinite(a) || !std::isfinite(b))
        return QStringLiteral("–");
    const double d = std::round(a) - std::round(b);
    if (d == 0)
        return QStringLiteral("0 ns");
    const auto [unit, decimals] = durationDigits({ a, b });
    // The difference in the values' unit, with at least two significant digits of its own.
    const double scaled = std::abs(d) / unit.first;
    const int maxDecimals = int(std::lround(std::log10(unit.first)));
    const int own = std::clamp(1 - int(std::floor(std::log10(scaled))), 0, maxDecimals);
    QString text = QStringLiteral("%1%2 %3")
                       .arg(d > 0 ? QStringLiteral("+") : QStringLiteral("−"),
                           QString::number(scaled, 'f', std::max(decimals, own)), unit.second);
    if (b != 0) {
        const double relative = 100.0 * std::abs(d) / std::abs(b);
        const int digits = std::clamp(1 - int(std::floor(std::log10(relative))), 0, 6);
        text += QStringLiteral(" (%1%2 %)").arg(d > 0 ? QStringLiteral("+") : QStringLiteral("−"),
            QString::number(relative, 'f', digits));
    }
    return text;
}

std::pair<QString, QString> distinct(double a, double b)
{
    const QLocale locale;
    QString la, lb;
    for (int digits = 3; digits <= 9; ++digits) {
        la = locale.toString(a, 'g', digits);
        lb = locale.toString(b, 'g', digits);
        if (la != lb)
            break;
    }
    return { la, lb };
}

QString bytes(uint64_t value) { return QString::fromStdString(tgraph::formatBytes(value)); }

QString shape(const std::vector<int64_t>& dims) { return QString::fromStdString(tgraph::shapeToString(dims)); }

} // namespace Formatting
