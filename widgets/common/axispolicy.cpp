// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/axispolicy.h"

#include "widgets/common/formatting.h"

#include <QChart>

#include <algorithm>

namespace tgraph::widgets {

namespace AxisPolicy {

namespace {

// Ticks this close to a multiple of the interval (in intervals) count as on it, so that rounding
// noise such as -2.78e-17 neither adds a tick nor moves the range.
constexpr double kSnap = 1e-9;
// Above this many digits after the point, and from this magnitude on, labels are scientific.
constexpr int kMaxDecimals = 6;
constexpr double kMaxFixed = 1e7;
// Labels of numbers below kMaxScaled that would be longer than kMaxPlainChars characters
// ("0.0224", "−0.073") count in a factor 10^-3k instead.
constexpr int kMaxPlainChars = 5;
constexpr double kMaxScaled = 0.1;
// Labels that would need more significant digits than this count from an offset.
constexpr int kMaxSignificant = 4;

int exponentOf(double v) { return int(std::floor(std::log10(v) + kSnap)); }

// The smallest 1, 2 or 5 x 10^k that is at least `raw` (> 0).
double niceStep(double raw)
{
    const double base = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : { 1.0, 2.0, 5.0 })
        if (m * base >= raw * (1 - kSnap))
            return m * base;
    return 10 * base;
}

// The nice step before `step`: 1 -> 0.5, 2 -> 1, 5 -> 2.
double previousStep(double step)
{
    const double base = std::pow(10.0, std::floor(std::log10(step) + kSnap));
    const double mantissa = std::round(step / base);
    return mantissa < 1.5 ? base / 2 : mantissa < 3.5 ? base : 2 * base;
}

// The nice step after `step`: 1 -> 2 -> 5 -> 10.
double nextStep(double step)
{
    const double base = std::pow(10.0, std::floor(std::log10(step) + kSnap));
    const double mantissa = std::round(step / base);
    return mantissa < 1.5 ? 2 * base : mantissa < 3.5 ? 5 * base : 10 * base;
}

bool finite(double v) { return std::isfinite(v); }

} // namespace

double Ticks::value(int i) const { return double(firstIndex + i) * interval; }

QString Ticks::format(double v) const
{
    if (v == 0 || std::abs(v) < interval * kSnap)
        return QStringLiteral("0");
    if (decimals < 0)
        return Formatting::scientific(v, std::max(1, significant));
    return Formatting::number(v, decimals);
}

QString Ticks::label(int i) const
{
    if (hasOffset) {
        const double difference = value(i) - offset;
        if (std::abs(difference) < interval * 1e-6)
            return QStringLiteral("0");
        return Formatting::number(difference / std::pow(10.0, exponent), std::max(0, exponent - exponentOf(interval)));
    }
    if (firstIndex + i == 0)
        return QStringLiteral("0");
    if (exponent != 0 && decimals >= 0)
        return Formatting::number(value(i) / std::pow(10.0, exponent), std::max(0, decimals + exponent));
    return format(value(i));
}

QString Ticks::factor() const
{
    if (exponent == 0)
        return {};
    // Superscript digits and minus, so the factor reads as one short word.
    static const QString superscripts = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
    QString power;
    for (const QChar c : QString::number(std::abs(exponent)))
        power += superscripts[c.digitValue()];
    return QStringLiteral("×10") + (exponent < 0 ? QStringLiteral("⁻") : QString()) + power;
}

QString Ticks::offsetText() const
{
    if (!hasOffset)
        return {};
    // The offset is a multiple of 10^(step exponent + 2): as many digits as that needs.
    const int unitExponent = exponentOf(interval) + 2;
    const QString number = std::abs(offset) >= kMaxFixed || -unitExponent > kMaxDecimals
        ? Formatting::scientific(offset, std::max(1, exponentOf(std::abs(offset)) - unitExponent + 1))
        : Formatting::number(offset, std::max(0, -unitExponent));
    return QStringLiteral("offset ") + number;
}

QStringList Ticks::labels() const
{
    QStringList out;
    for (int i = 0; i < count; ++i)
        out << label(i);
    return out;
}

Ticks ticks(const Request& request)
{
    double lo = request.lo;
    double hi = request.hi;
    if (!finite(lo) || !finite(hi)) { // no data
        lo = 0;
        hi = 1;
    }
    if (lo > hi)
        std::swap(lo, hi);
    const auto clampToBounds = [&request](double v) {
        if (finite(request.lowerBound))
            v = std::max(v, request.lowerBound);
        if (finite(request.upperBound))
            v = std::min(v, request.upperBound);
        return v;
    };
    lo = clampToBounds(lo);
    hi = clampToBounds(hi);
    const double dataLo = lo;
    const double dataHi = hi;
    const bool integer = request.kind == Kind::Integer;
    // A single value (or values equal to within rounding): a range around it.
    const double scale = std::max(std::abs(lo), std::abs(hi));
    if (hi - lo <= scale * 1e-12) {
        const double pad = integer ? 1.0 : (scale > 0 ? scale * 0.1 : 1.0);
        lo = clampToBounds(lo - pad);
        hi = clampToBounds(hi + pad);
        if (hi <= lo) // bounds that hold a single value (one rank): one unit above it
            hi = lo + 1;
    }

    // The smallest nice step whose ticks shown (all of them outwards from the data; only those
    // inside the bounds on a bounded side, where the axis ends at the bound) are at most maxTicks.
    // The search starts a notch below the step that spreads maxTicks over the range, because the
    // ticks beyond a bound do not count.
    const int maxTicks = std::max(2, request.maxTicks);
    const bool boundedLo = finite(request.lowerBound);
    const bool boundedHi = finite(request.upperBound);
    double step = previousStep(niceStep((hi - lo) / double(maxTicks - 1)));
    double kLo = 0, kHi = 0, kFirst = 0, kLast = 0;
    for (;;) {
        if (integer)
            step = std::max(step, 1.0);
        kLo = std::floor(lo / step + kSnap);
        kHi = std::ceil(hi / step - kSnap);
        if (kHi <= kLo)
            kHi = kLo + 1;
        kFirst = boundedLo && kLo * step < request.lowerBound ? std::ceil(request.lowerBound / step - kSnap) : kLo;
        kLast = boundedHi && kHi * step > request.upperBound && request.upperBound > lo
            ? std::floor(request.upperBound / step + kSnap)
            : kHi;
        if (kLast - kFirst + 1 <= maxTicks)
            break;
        step = nextStep(step);
    }

    Ticks t;
    t.interval = step;
    t.min = std::max(kLo * step, boundedLo ? request.lowerBound : -HUGE_VAL);
    t.max = kLast < kHi ? request.upperBound : kHi * step;
    if (t.max <= t.min)
        t.max = t.min + step;
    t.firstIndex = int64_t(kFirst);
    t.count = int(std::max(0.0, kLast - kFirst + 1));
    while (t.count > 0 && t.value(t.count - 1) > t.max + step * kSnap)
        --t.count;

    // Digits: as many as the interval needs, so neighbouring labels differ.
    const double magnitude = std::max(std::abs(t.min), std::abs(t.max));
    const int stepExponent = int(std::floor(std::log10(step) + kSnap));
    t.decimals = std::max(0, -stepExponent);
    const bool offsetLabels
        = magnitude > 0 && t.count >= 2 && exponentOf(magnitude) - stepExponent + 1 > kMaxSignificant;
    if (offsetLabels) {
        // Differences from a round number near the middle, in thousands-steps of the interval's
        // power of ten; tooltips (format) still say the value itself.
        const double unit = std::pow(10.0, stepExponent + 2);
        t.hasOffset = true;
        t.offset = std::round(0.5 * (t.value(0) + t.value(t.count - 1)) / unit) * unit;
        t.exponent = 3 * int(std::ceil(stepExponent / 3.0));
        if (t.decimals > kMaxDecimals || magnitude >= kMaxFixed) {
            t.decimals = -1;
            t.significant = exponentOf(magnitude) - stepExponent + 1;
        }
    } else if (t.decimals > kMaxDecimals || magnitude >= kMaxFixed) {
        t.decimals = -1;
        t.significant = int(std::floor(std::log10(magnitude) + kSnap)) - stepExponent + 1;
    } else if (magnitude > 0 && magnitude < kMaxScaled) {
        qsizetype longest = 0;
        for (int i = 0; i < t.count; ++i)
            longest = std::max(longest, t.label(i).size());
        // 0.0224 -> 22.4 x 10^-3: the largest magnitude gets one to three digits before the point.
        if (longest > kMaxPlainChars)
            t.exponent = 3 * int(std::floor(std::floor(std::log10(magnitude) + kSnap) / 3.0));
    }

    // The margin: beyond the data and the bounds, never inside them.
    if (request.margin > 0 && std::isfinite(request.margin)) {
        t.min = std::min(t.min, dataLo - request.margin);
        t.max = std::max(t.max, dataHi + request.margin);
    }
    return t;
}

int maxTicksFor(double pixels, double spacing)
{
    if (!(pixels > 0) || !(spacing > 0))
        return 2;
    return std::clamp(int(pixels / spacing) + 1, 2, 11);
}

void fitToPlotArea(QChart* chart)
{
    // Queued: the new labels change the axes' sizes, which must not happen inside the chart's own
    // layout pass. A re-tick changes the plot area by a few pixels at most, so this settles.
    QObject::connect(
        chart, &QChart::plotAreaChanged, chart,
        [chart] {
            const QRectF area = chart->plotArea();
            for (QAbstractAxis* axis : chart->axes())
                if (auto* nice = qobject_cast<NiceAxis*>(axis))
                    nice->setLength(axis->orientation() == Qt::Horizontal ? area.width() : area.height());
        },
        Qt::QueuedConnection);
}

} // namespace AxisPolicy

NiceAxis::NiceAxis(QObject* parent)
    : QCategoryAxis(parent)
{
    setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    // A title set from outside is the plain title; the axis adds the factor to it.
    connect(this, &QAbstractAxis::titleTextChanged, this, [this](const QString& text) {
        if (text == composedTitle())
            return;
        m_title = text;
        retitle();
    });
    relabel();
}

QString NiceAxis::composedTitle() const
{
    QStringList notes;
    if (m_ticks.hasOffset)
        notes << m_ticks.offsetText();
    if (!m_ticks.factor().isEmpty())
        notes << m_ticks.factor();
    return notes.isEmpty() || m_title.isEmpty() ? m_title
                                                : QStringLiteral("%1 (%2)").arg(m_title, notes.join(QStringLiteral(", ")));
}

void NiceAxis::retitle()
{
    const QString text = composedTitle();
    if (titleText() != text)
        setTitleText(text);
}

void NiceAxis::setRequest(const AxisPolicy::Request& request)
{
    m_request = request;
    relabel();
}

void NiceAxis::setDataRange(double lo, double hi)
{
    m_request.lo = lo;
    m_request.hi = hi;
    relabel();
}

void NiceAxis::setLength(double pixels)
{
    const double spacing
        = orientation() == Qt::Vertical ? AxisPolicy::kVerticalSpacing : AxisPolicy::kHorizontalSpacing;
    const bool changed = m_length <= 0
        || AxisPolicy::maxTicksFor(pixels, spacing) != AxisPolicy::maxTicksFor(m_length, spacing);
    m_length = pixels;
    if (changed)
        relabel();
}

void NiceAxis::relabel()
{
    AxisPolicy::Request request = m_request;
    if (m_length > 0)
        request.maxTicks = AxisPolicy::maxTicksFor(m_length,
            orientation() == Qt::Vertical ? AxisPolicy::kVerticalSpacing : AxisPolicy::kHorizontalSpacing);
    const AxisPolicy::Ticks t = AxisPolicy::ticks(request);
    const bool same = t.min == m_ticks.min && t.max == m_ticks.max && t.interval == m_ticks.interval
        && t.firstIndex == m_ticks.firstIndex && t.count == m_ticks.count && t.decimals == m_ticks.decimals
        && t.exponent == m_ticks.exponent && t.hasOffset == m_ticks.hasOffset && t.offset == m_ticks.offset
        && categoriesLabels().size() == t.count;
    m_ticks = t;
    retitle();
    if (same && min() == t.min && max() == t.max)
        return;
    for (const QString& label : categoriesLabels())
        remove(label);
    setStartValue(t.min);
    for (int i = 0; i < t.count; ++i)
        append(t.label(i), t.value(i));
    setRange(t.min, t.max);
}

} // namespace tgraph::widgets
