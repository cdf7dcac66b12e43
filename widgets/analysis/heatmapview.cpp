// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/heatmapview.h"

#include "widgets/common/colormaps.h"
#include "widgets/common/formatting.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

namespace {
constexpr double kLabelWidth = 90;
constexpr double kTitleHeight = 28;
constexpr double kAxisHeight = 30;
constexpr double kBarWidth = 16;
constexpr double kBarGap = 14; // between the matrix and the colour bar
constexpr double kBarTitle = 20; // the colour bar's rotated title
} // namespace

std::pair<double, double> HeatmapData::colourRange() const
{
    if (scale == Scale::Unit)
        return { 0.0, 1.0 };
    double lo = 0, hi = 0, magnitude = 0;
    bool any = false;
    for (const float v : values) {
        if (std::isnan(v))
            continue;
        lo = any ? std::min(lo, double(v)) : v;
        hi = any ? std::max(hi, double(v)) : v;
        magnitude = std::max(magnitude, std::abs(double(v)));
        any = true;
    }
    if (scale == Scale::Diverging) {
        const double m = ColorMaps::divergingHalfRange(magnitude, reference);
        return { -m, m };
    }
    if (!any)
        return { 0.0, 1.0 };
    return ColorMaps::sequentialRange(lo, hi);
}

bool HeatmapData::allEqual() const
{
    if (scale == Scale::Unit)
        return false;
    bool any = false;
    float first = 0;
    for (const float v : values) {
        if (std::isnan(v))
            continue;
        if (any && v != first)
            return false;
        first = any ? first : v;
        any = true;
    }
    return any;
}

HeatmapView::HeatmapView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

void HeatmapView::setData(HeatmapData data)
{
    m_data = std::move(data);
    m_range = m_data.colourRange();
    updateGeometry();
    update();
}

int64_t HeatmapView::labelStride(int64_t count, double available, double perLabel)
{
    if (count <= 0 || !(perLabel > 0))
        return 1;
    for (int64_t base = 1;; base *= 10)
        for (const int64_t m : { 1, 2, 5 }) {
            const int64_t k = m * base;
            const int64_t labels = (count + k - 1) / k;
            if (double(labels) * perLabel <= available || k >= count)
                return k;
        }
}

std::vector<int64_t> HeatmapView::labelledRows() const
{
    std::vector<int64_t> rows;
    if (m_data.rows() == 0 || m_data.columns == 0)
        return rows;
    const int64_t k = labelStride(m_data.rows(), matrixRect().height(), fontMetrics().height());
    for (int64_t r = 0; r < m_data.rows(); r += k)
        rows.push_back(r);
    return rows;
}

std::vector<int64_t> HeatmapView::labelledColumns() const
{
    std::vector<int64_t> columns;
    if (m_data.rows() == 0 || m_data.columns == 0)
        return columns;
    // Room for the widest label that may be drawn, with a gap.
    int widest = fontMetrics().horizontalAdvance(Formatting::id(m_data.columns - 1));
    for (const QString& name : m_data.columnNames)
        widest = std::max(widest, fontMetrics().horizontalAdvance(name));
    const int64_t k = labelStride(m_data.columns, matrixRect().width(), widest + 12);
    for (int64_t c = 0; c < m_data.columns; c += k)
        columns.push_back(c);
    return columns;
}

QSize HeatmapView::sizeHint() const
{
    return { 720, int(kTitleHeight + kAxisHeight + 26 * std::max<int64_t>(m_data.rows(), 4)) };
}
// Small enough for a docked panel on a 1366x768 screen (docs/studio.md §9).
QSize HeatmapView::minimumSizeHint() const { return { 220, 90 }; }

QStringList HeatmapView::colourBarLabels() const
{
    if (m_data.allEqual()) {
        for (const float v : m_data.values)
            if (!std::isnan(v))
                return { tr("all %1").arg(Formatting::significant(double(v), 4)) };
    }
    const auto [low, high] = Formatting::distinct(m_range.first, m_range.second);
    QStringList labels { high, low };
    if (m_data.scale == HeatmapData::Scale::Diverging)
        labels << QStringLiteral("0");
    return labels;
}

double HeatmapView::colourBarArea() const
{
    // The bar, its labels (as wide as they are) and its title.
    int widest = 0;
    for (const QString& label : colourBarLabels())
        widest = std::max(widest, fontMetrics().horizontalAdvance(label));
    return kBarGap + kBarWidth + 4 + widest + kBarTitle;
}

QRectF HeatmapView::matrixRect() const
{
    return QRectF(kLabelWidth, kTitleHeight, std::max(10.0, width() - kLabelWidth - colourBarArea()),
        std::max(10.0, height() - kTitleHeight - kAxisHeight));
}

QRectF HeatmapView::colourBarRect() const
{
    const QRectF m = matrixRect();
    return QRectF(m.right() + kBarGap, m.top(), kBarWidth, m.height());
}

QColor HeatmapView::colourOf(float value) const
{
    if (std::isnan(value))
        return {};
    const double span = m_range.second - m_range.first;
    if (m_data.scale == HeatmapData::Scale::Diverging)
        return ColorMaps::diverging(double(value) / m_range.second);
    return ColorMaps::viridis(span > 0 ? (double(value) - m_range.first) / span : 0.5);
}

std::pair<int64_t, int64_t> HeatmapView::cellAt(const QPoint& position) const
{
    const QRectF m = matrixRect();
    if (m_data.rows() == 0 || m_data.columns == 0 || !m.contains(position))
        return { -1, -1 };
    const auto row
        = std::min<int64_t>(m_data.rows() - 1, int64_t((position.y() - m.top()) / m.height() * double(m_data.rows())));
    const auto column = std::min<int64_t>(
        m_data.columns - 1, int64_t((position.x() - m.left()) / m.width() * double(m_data.columns)));
    if (std::isnan(m_data.at(row, column)))
        return { -1, -1 };
    return { row, column };
}

QString HeatmapView::describeCell(int64_t row, int64_t column) const
{
    if (row < 0 || column < 0 || row >= m_data.rows() || column >= m_data.columns)
        return {};
    const QString columnName = column < m_data.columnNames.size()
        ? m_data.columnNames[int(column)]
        : QStringLiteral("%1 %2").arg(m_data.columnLabel, Formatting::id(column));
    return tr("%1, %2: %3")
        .arg(m_data.rowLabels[int(row)], columnName, Formatting::significant(double(m_data.at(row, column)), 4));
}

void HeatmapView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    painter.setPen(palette().text().color());
    QFont titleFont = font();
    titleFont.setBold(true);
    painter.setFont(titleFont);
    painter.drawText(QRectF(0, 0, width(), kTitleHeight), Qt::AlignCenter, m_data.title);
    painter.setFont(font());
    const QRectF m = matrixRect();
    if (m_data.rows() == 0 || m_data.columns == 0) {
        painter.drawText(m, Qt::AlignCenter, tr("No attention maps"));
        return;
    }
    const double cellW = m.width() / double(m_data.columns);
    const double cellH = m.height() / double(m_data.rows());
    for (int64_t r = 0; r < m_data.rows(); ++r) {
        for (int64_t c = 0; c < m_data.columns; ++c) {
            const QColor colour = colourOf(m_data.at(r, c));
            if (!colour.isValid())
                continue;
            // Cells overlap by a fraction of a pixel so that no seams show between them.
            painter.fillRect(
                QRectF(m.left() + double(c) * cellW, m.top() + double(r) * cellH, cellW + 0.6, cellH + 0.6), colour);
        }
    }
    // Row labels, thinned to fit the font's height, each centred on its row.
    painter.setPen(palette().text().color());
    const double lineHeight = fontMetrics().height();
    for (const int64_t r : labelledRows())
        painter.drawText(QRectF(0, m.top() + (double(r) + 0.5) * cellH - lineHeight / 2, kLabelWidth - 6, lineHeight),
            Qt::AlignRight | Qt::AlignVCenter, m_data.rowLabels[int(r)]);
    painter.setPen(palette().mid().color());
    painter.drawRect(m);
    // Column axis: labels thinned to fit their width, and the axis title.
    painter.setPen(palette().text().color());
    const std::vector<int64_t> columns = labelledColumns();
    const double columnStep = columns.size() > 1 ? double(columns[1] - columns[0]) * cellW : m.width();
    for (const int64_t column : columns) {
        const double x = m.left() + (double(column) + 0.5) * cellW;
        const QString label
            = column < m_data.columnNames.size() ? m_data.columnNames[int(column)] : Formatting::id(column);
        painter.drawText(QRectF(x - columnStep / 2, m.bottom() + 2, columnStep, 14), Qt::AlignHCenter | Qt::AlignTop,
            label);
    }
    painter.drawText(QRectF(m.left(), m.bottom() + 14, m.width(), 16), Qt::AlignCenter, m_data.columnLabel);

    // Colour bar with its range; one colour and "all v" when every value is the same.
    const QRectF bar = colourBarRect();
    if (m_data.allEqual()) {
        float value = 0;
        for (const float v : m_data.values)
            if (!std::isnan(v)) {
                value = v;
                break;
            }
        painter.fillRect(bar, colourOf(value));
        painter.setPen(palette().mid().color());
        painter.drawRect(bar);
        painter.setPen(palette().text().color());
        painter.drawText(QRectF(bar.right() + 3, bar.top() - 7, width(), 14), Qt::AlignLeft | Qt::AlignVCenter,
            colourBarLabels().front());
        painter.save();
        painter.translate(width() - 6, bar.center().y());
        painter.rotate(-90);
        painter.drawText(QRectF(-bar.height() / 2, -14, bar.height(), 14), Qt::AlignCenter, m_data.valueLabel);
        painter.restore();
        return;
    }
    const int steps = std::max(2, int(bar.height()));
    for (int i = 0; i < steps; ++i) {
        const double t = 1.0 - double(i) / double(steps - 1);
        const double value = m_range.first + t * (m_range.second - m_range.first);
        painter.fillRect(
            QRectF(bar.left(), bar.top() + i * bar.height() / steps, bar.width(), bar.height() / steps + 1),
            colourOf(float(value)));
    }
    painter.setPen(palette().mid().color());
    painter.drawRect(bar);
    painter.setPen(palette().text().color());
    const QStringList labels = colourBarLabels();
    painter.drawText(QRectF(bar.right() + 3, bar.top() - 7, width(), 14), Qt::AlignLeft | Qt::AlignVCenter, labels[0]);
    painter.drawText(
        QRectF(bar.right() + 3, bar.bottom() - 7, width(), 14), Qt::AlignLeft | Qt::AlignVCenter, labels[1]);
    if (labels.size() > 2)
        painter.drawText(
            QRectF(bar.right() + 3, bar.center().y() - 7, width(), 14), Qt::AlignLeft | Qt::AlignVCenter, labels[2]);
    painter.save();
    painter.translate(width() - 6, bar.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-bar.height() / 2, -14, bar.height(), 14), Qt::AlignCenter, m_data.valueLabel);
    painter.restore();
}

void HeatmapView::mouseMoveEvent(QMouseEvent* event)
{
    const auto [row, column] = cellAt(event->position().toPoint());
    if (row < 0)
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), describeCell(row, column), this);
}

void HeatmapView::mousePressEvent(QMouseEvent* event)
{
    const auto [row, column] = cellAt(event->position().toPoint());
    if (row >= 0)
        Q_EMIT cellClicked(row, column);
    QWidget::mousePressEvent(event);
}

} // namespace tgraph::widgets
