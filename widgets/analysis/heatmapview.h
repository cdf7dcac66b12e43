// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <vector>

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
    // The range the colours span: 0..1 for Unit, min..max for Auto, -m..m for Diverging with m the
    // largest magnitude (1 when all values are 0 or NaN).
    std::pair<double, double> colourRange() const;
};

// Heatmap with an always visible colour bar; hover shows row, column and value; a click emits
// cellClicked. Draws any number of columns by letting cells shrink to a pixel.
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
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void cellClicked(qint64 row, qint64 column);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF matrixRect() const;
    QRectF colourBarRect() const;
    QColor colourOf(float value) const;

    HeatmapData m_data;
    std::pair<double, double> m_range { 0, 1 };
};
