// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/common/colormaps.h"

#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace tgraph::widgets {

// A matrix of values as the heatmap draws it: rows (layers) x columns (channels or configs).
struct HeatmapData
{
    enum class Scale {
        Unit, // viridis over the fixed range 0..1 (channel gates: comparable across runs)
        Auto, // viridis over the values' own range (e.g. softmax weights over configs)
        Diverging, // signed differences: a diverging map symmetric around 0
    };
    QString title;
    QString valueLabel; // colour bar title, e.g. "gate (sigmoid)"
    QString columnLabel = QStringLiteral("channel");
    QStringList rowLabels;
    QStringList columnNames; // optional, one per column (e.g. "config 17"); else the column index
    int64_t columns = 0;
    std::vector<float> values; // rows x columns, row-major; NaN = no cell (a shorter row)
    Scale scale = Scale::Unit;

    int64_t rows() const { return rowLabels.size(); }
    float at(int64_t row, int64_t column) const { return values[size_t(row * columns + column)]; }
    // Diverging: the magnitude of the values the differences were taken of (gates: 1), so that a
    // difference of rounding noise is painted pale (ColorMaps::divergingHalfRange); 0 = not known.
    double reference = 0;
    // The smallest span of an Auto colour range, relative to the values' largest magnitude
    // (ColorMaps::kMinimumRelativeSpan, docs/studio.md §8.2).
    static constexpr double kMinimumRelativeSpan = ColorMaps::kMinimumRelativeSpan;
    // The range the colours span: 0..1 for Unit; for Auto min..max, widened around its centre to at
    // least kMinimumRelativeSpan of the largest magnitude (v ± 0.5 when all values are v); -m..m
    // for Diverging with m the largest magnitude, at least ColorMaps::kDivergingNoise of `reference`
    // (1 when all values are 0 or NaN).
    std::pair<double, double> colourRange() const;
    // Auto or Diverging values that are all the same (and not NaN): the colour bar says "all v"
    // instead of showing a range.
    bool allEqual() const;
};

// Heatmap with an always visible colour bar; hover shows row, column and value; a click emits
// cellClicked. Draws any number of columns by letting cells shrink to a pixel. Row and column
// labels are thinned to every k-th (k = 1, 2, 5, 10, 20, ...) so that they never overlap.
class HeatmapView : public QWidget
{
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr);

    void setData(HeatmapData data);
    const HeatmapData& data() const { return m_data; }
    // The cell under a widget position (row, column), (-1, -1) outside.
    std::pair<int64_t, int64_t> cellAt(const QPoint& position) const;
    QString describeCell(int64_t row, int64_t column) const;
    // The rows and columns whose labels are drawn at the current size.
    std::vector<int64_t> labelledRows() const;
    std::vector<int64_t> labelledColumns() const;
    // The smallest k of 1, 2, 5, 10, 20, 50, ... such that every k-th of `count` labels, each
    // needing `perLabel` pixels, fits in `available` pixels.
    static int64_t labelStride(int64_t count, double available, double perLabel);
    // Where the cells and the colour bar are drawn, and the colour bar's labels (top, bottom, and
    // "0" in the middle of a diverging one; one "all v" when all values are v).
    QRectF matrixRect() const;
    QRectF colourBarRect() const;
    QStringList colourBarLabels() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void cellClicked(qint64 row, qint64 column);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    double colourBarArea() const;
    QColor colourOf(float value) const;

    HeatmapData m_data;
    std::pair<double, double> m_range { 0, 1 };
};

} // namespace tgraph::widgets
