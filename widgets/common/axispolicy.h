// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QCategoryAxis>
#include <QString>
#include <QStringList>

#include <cmath>
#include <cstdint>
#include <limits>

class QChart;

namespace tgraph::widgets {

// One axis policy for every linear chart axis of the studio (docs/studio.md §8): nice ticks (1, 2 or
// 5 x 10^k apart), labels with just enough digits that neighbours differ, 0 printed as "0", small
// numbers labelled in a common factor ("22.4" with "×10⁻³" in the title, not "0.0224"), a padded
// range for a single value, integer ticks for steps and counts, ranks kept within [0, C - 1] and an
// optional margin that keeps markers at the ends whole.
namespace AxisPolicy {

enum class Kind {
    Real,
    Integer, // steps, ranks, counts: ticks at whole numbers only
};

struct Request
{
    // The data range; NaN or infinite ends mean "no data" (the axis shows 0..1).
    double lo = std::numeric_limits<double>::quiet_NaN();
    double hi = std::numeric_limits<double>::quiet_NaN();
    Kind kind = Kind::Real;
    // The axis never leaves [lowerBound, upperBound] (e.g. ranks: 0 and C - 1); NaN = unbounded.
    double lowerBound = std::numeric_limits<double>::quiet_NaN();
    double upperBound = std::numeric_limits<double>::quiet_NaN();
    int maxTicks = 6; // at least 2
    // The axis reaches this far (in data units) beyond the data and the bounds, so that markers
    // drawn at the extremes stay whole; the ticks stay within the data and the bounds.
    double margin = 0;
};

struct Ticks
{
    double min = 0; // the axis range
    double max = 1;
    double interval = 0.2; // 1, 2 or 5 x 10^k
    int64_t firstIndex = 0; // the first tick is firstIndex * interval
    int count = 6; // ticks from the first on, all within [min, max]
    int decimals = 1; // digits after the point in fixed notation; -1: scientific
    int significant = 0; // significant digits when scientific
    // The labels count in units of 10^exponent (a multiple of 3; 0: plain numbers). Numbers below
    // 0.1 whose labels would be longer than five characters (0.0224, −0.073) are labelled "22.4",
    // "−73" with the factor "×10⁻³" in the axis title, so the labels fit a narrow chart.
    int exponent = 0;
    // Values that differ only in their fifth significant digit or later (scores -0.0431592 to
    // -0.0431608) are labelled as differences from a round offset, in units of 10^exponent:
    // "−1.0", "−0.5", "0", "0.5" with "offset −0.04316, ×10⁻⁶" in the title, as plotting tools do.
    bool hasOffset = false;
    double offset = 0;

    // Tick i's value: an integer multiple of the interval, exactly 0 at the multiple 0.
    double value(int i) const;
    // Tick i's label, in units of 10^exponent; "0" for the tick at 0.
    QString label(int i) const;
    QStringList labels() const;
    // The factor the labels count in, for the axis title: "×10⁻³"; empty when exponent is 0.
    QString factor() const;
    // The offset for the axis title: "offset −0.04316"; empty without one.
    QString offsetText() const;
    // A number in this axis' format, not scaled (tooltips next to the axis).
    QString format(double value) const;
};

// The ticks for `request` (pure arithmetic; tested on its own).
Ticks ticks(const Request& request);
// How many ticks fit along `pixels` when labels need `spacing` pixels each (at least 2, at most 11).
int maxTicksFor(double pixels, double spacing);
// Pixels a label needs along a horizontal and a vertical axis.
constexpr double kHorizontalSpacing = 70;
constexpr double kVerticalSpacing = 36;

} // namespace AxisPolicy

// A linear chart axis that follows AxisPolicy: give it the data range (setRequest) and it labels
// itself at nice ticks, as many as its length on screen holds. The labels are its categories
// (QCategoryAxis, positioned on their values), so what the chart prints is exactly
// AxisPolicy::Ticks::labels(), read back with categoriesLabels() and endValue(). When the labels
// count in a factor (Ticks::exponent), the axis adds it to the title set with setTitleText:
// "score (×10⁻³)". AxisPolicy::fitToPlotArea(chart) re-ticks a chart's NiceAxis objects when its
// plot area resizes.
class NiceAxis : public QCategoryAxis
{
    Q_OBJECT
public:
    explicit NiceAxis(QObject* parent = nullptr);

    void setRequest(const AxisPolicy::Request& request);
    // The data range only, keeping kind and bounds.
    void setDataRange(double lo, double hi);
    const AxisPolicy::Request& request() const { return m_request; }
    const AxisPolicy::Ticks& ticks() const { return m_ticks; }
    // The axis' length on screen (pixels), which decides how many ticks fit.
    void setLength(double pixels);
    double length() const { return m_length; }

    // The title as set, without the factor.
    const QString& plainTitle() const { return m_title; }

private:
    void relabel();
    QString composedTitle() const;
    void retitle();

    QString m_title;
    AxisPolicy::Request m_request;
    AxisPolicy::Ticks m_ticks;
    double m_length = -1; // unknown: the Request's maxTicks applies
};

namespace AxisPolicy {
// Re-ticks every NiceAxis of `chart` to its plot area's width (horizontal axes) or height
// (vertical ones) whenever the plot area changes; call once per chart.
void fitToPlotArea(QChart* chart);
} // namespace AxisPolicy

} // namespace tgraph::widgets
