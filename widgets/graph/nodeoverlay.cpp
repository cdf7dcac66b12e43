// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/nodeoverlay.h"

#include "widgets/common/colormaps.h"
#include "widgets/common/formatting.h"

#include "core/graph/featurenames.h"
#include "core/view/graphdocument.h"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tgraph::widgets {

QColor NodeOverlay::colorAt(double t)
{
    // A perceptually ordered map (viridis-like), interpolated between five stops.
    static const std::array<QColor, 5> stops { QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b),
        QColor(0x21, 0x91, 0x8c), QColor(0x5e, 0xc9, 0x62), QColor(0xfd, 0xe7, 0x25) };
    t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * double(stops.size() - 1);
    const auto k = std::min(size_t(t), stops.size() - 2);
    const double f = t - double(k);
    const QColor& a = stops[k];
    const QColor& b = stops[k + 1];
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f),
        float(a.greenF() + (b.greenF() - a.greenF()) * f), float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

QColor NodeOverlay::colorOf(int64_t node) const
{
    if (!hasValue(node))
        return {};
    return colorOfValue(values[size_t(node)]);
}

QColor NodeOverlay::colorOfValue(float value) const
{
    if (std::isnan(value))
        return {};
    const auto [lo, hi] = colourRange();
    const double v = double(value);
    if (diverging)
        return ColorMaps::diverging(v / hi);
    return colorAt(hi > lo ? (v - lo) / (hi - lo) : 0.5);
}

std::pair<double, double> NodeOverlay::colourRange() const
{
    if (diverging) {
        const double m = ColorMaps::divergingHalfRange(double(maximum), double(reference));
        return { -m, m };
    }
    return ColorMaps::sequentialRange(double(minimum), double(maximum));
}

bool NodeOverlay::allEqual() const
{
    const float* first = nullptr;
    for (const float& v : values) {
        if (std::isnan(v))
            continue;
        if (first && v != *first)
            return false;
        if (!first)
            first = &v;
    }
    return first != nullptr;
}

bool NodeOverlay::hasMissingValues() const
{
    return std::any_of(values.begin(), values.end(), [](float v) { return std::isnan(v); });
}

void NodeOverlay::updateRange()
{
    minimum = std::numeric_limits<float>::infinity();
    maximum = -std::numeric_limits<float>::infinity();
    for (const float v : values) {
        if (std::isnan(v))
            continue;
        minimum = std::min(minimum, v);
        maximum = std::max(maximum, v);
    }
    if (minimum > maximum)
        minimum = maximum = 0;
    if (diverging) {
        maximum = std::max(std::abs(minimum), std::abs(maximum));
        minimum = -maximum;
    }
}

NodeOverlay NodeOverlay::featureColumn(const tgraph::GraphDocument& document, int column)
{
    NodeOverlay overlay;
    overlay.name = QString::fromStdString(tgraph::nodeFeatureName(column));
    const auto& features = document.nodeFeatures();
    const int64_t n = document.nodeCount();
    const int64_t width = n > 0 ? int64_t(features.size()) / n : 0;
    overlay.values.assign(size_t(n), std::numeric_limits<float>::quiet_NaN());
    if (column >= 0 && column < width)
        for (int64_t node = 0; node < n; ++node)
            overlay.values[size_t(node)] = features.data()[node * width + column];
    overlay.updateRange();
    return overlay;
}

namespace {

constexpr int kMargin = 4; // between the parts
constexpr int kMinimumBar = 60; // the colour map's smallest width
constexpr int kMinimumName = 48; // the name elided down to this
constexpr int kNameWidth = 260; // the name's width when there is room

} // namespace

OverlayColorBar::OverlayColorBar(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void OverlayColorBar::setOverlay(const NodeOverlay& overlay)
{
    m_name = overlay.name;
    m_diverging = overlay.diverging;
    m_range = overlay.colourRange();
    m_allEqual = overlay.allEqual();
    m_missing = overlay.hasMissingValues();
    m_labels.clear();
    m_equalColor = QColor();
    if (m_allEqual) {
        for (int64_t node = 0; node < int64_t(overlay.values.size()); ++node)
            if (overlay.hasValue(node)) {
                m_labels << tr("all %1").arg(Formatting::significant(double(overlay.values[size_t(node)]), 6));
                m_equalColor = overlay.colorOf(node);
                break;
            }
    } else {
        const auto [low, high] = Formatting::distinct(m_range.first, m_range.second);
        m_labels << low << high;
    }
    setToolTip(m_missing ? tr("%1\nGrey nodes have no value.").arg(m_name) : m_name);
    updateGeometry();
    update();
}

OverlayColorBar::Parts OverlayColorBar::partsFor(int width) const
{
    const QFontMetrics fm = fontMetrics();
    const int h = fm.height() + 10;
    Parts parts;
    const int nameWidth = std::min(fm.horizontalAdvance(m_name) + kMargin, kNameWidth);
    const int missingWidth = m_missing ? fm.height() + kMargin + fm.horizontalAdvance(tr("no value")) + 2 * kMargin : 0;
    int x = 0;
    if (m_allEqual) {
        const int labelWidth = fm.horizontalAdvance(m_labels.value(0)) + kMargin;
        const int name = std::clamp(width - kMinimumBar / 2 - labelWidth - missingWidth - 2 * kMargin, kMinimumName,
            std::max(kMinimumName, nameWidth));
        parts.name = QRect(x, 0, name, h);
        x += name + kMargin;
        parts.bar = QRect(x, 4, kMinimumBar / 2, h - 8);
        x += parts.bar.width() + kMargin;
        parts.high = QRect(x, 0, labelWidth, h);
        x += labelWidth + kMargin;
    } else {
        const int lowWidth = fm.horizontalAdvance(m_labels.value(0)) + kMargin;
        const int highWidth = fm.horizontalAdvance(m_labels.value(1)) + kMargin;
        const int fixed = lowWidth + highWidth + missingWidth + 3 * kMargin;
        // The name takes what the bar's minimum leaves, up to its own width.
        const int name = std::clamp(width - fixed - kMinimumBar * 2, kMinimumName, std::max(kMinimumName, nameWidth));
        parts.name = QRect(x, 0, name, h);
        x += name + kMargin;
        parts.low = QRect(x, 0, lowWidth, h);
        x += lowWidth;
        const int bar = std::max(kMinimumBar, width - x - highWidth - missingWidth - 2 * kMargin);
        parts.bar = QRect(x, 4, bar, h - 8);
        x += bar + kMargin;
        parts.high = QRect(x, 0, highWidth, h);
        x += highWidth + kMargin;
    }
    if (m_missing)
        parts.missing = QRect(x, 0, missingWidth, h);
    return parts;
}

OverlayColorBar::Parts OverlayColorBar::parts() const { return partsFor(width()); }

QSize OverlayColorBar::sizeHint() const
{
    // The minimum with the name whole (up to kNameWidth) and the colour map twice as wide.
    const int name = std::min(fontMetrics().horizontalAdvance(m_name) + kMargin, kNameWidth);
    const int extra = std::max(0, name - kMinimumName) + (m_allEqual ? 0 : kMinimumBar);
    return minimumSizeHint() + QSize(extra, 0);
}

QSize OverlayColorBar::minimumSizeHint() const
{
    const Parts p = partsFor(0); // the narrowest: name elided, bar at its minimum
    const int right = std::max(p.high.right(), p.missing.isNull() ? 0 : p.missing.right());
    return { right + 1, fontMetrics().height() + 10 };
}

void OverlayColorBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const Parts parts = this->parts();
    const QFontMetrics fm = fontMetrics();
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(parts.name, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(m_name, Qt::ElideMiddle, parts.name.width()));
    if (m_allEqual) {
        p.fillRect(parts.bar, m_equalColor);
    } else {
        QLinearGradient gradient(parts.bar.topLeft(), parts.bar.topRight());
        for (int k = 0; k <= 8; ++k)
            gradient.setColorAt(
                k / 8.0, m_diverging ? ColorMaps::diverging(k / 4.0 - 1.0) : NodeOverlay::colorAt(k / 8.0));
        p.fillRect(parts.bar, gradient);
        p.drawText(parts.low.adjusted(0, 0, -kMargin, 0), Qt::AlignVCenter | Qt::AlignRight, m_labels.value(0));
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(parts.bar.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(parts.high, Qt::AlignVCenter | Qt::AlignLeft, m_labels.value(m_allEqual ? 0 : 1));
    if (m_missing) {
        const int side = fm.height() - 4;
        const QRect swatch(parts.missing.left() + kMargin, (height() - side) / 2, side, side);
        p.fillRect(swatch, NodeOverlay::noValueColor());
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(swatch.adjusted(0, 0, -1, -1));
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(parts.missing.adjusted(side + 2 * kMargin, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, tr("no value"));
    }
}

} // namespace tgraph::widgets
