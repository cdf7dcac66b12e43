// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/nodeoverlay.h"

#include "widgets/common/colormaps.h"

#include "core/graph/featurenames.h"
#include "core/view/graphdocument.h"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

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
    if (diverging) {
        const double m = std::max(std::abs(double(minimum)), std::abs(double(maximum)));
        return ColorMaps::diverging(m > 0 ? double(values[size_t(node)]) / m : 0.0);
    }
    const double span = double(maximum) - double(minimum);
    return colorAt(span > 0 ? (double(values[size_t(node)]) - minimum) / span : 0.5);
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

OverlayColorBar::OverlayColorBar(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void OverlayColorBar::setOverlay(const QString& name, float minimum, float maximum, bool diverging)
{
    m_diverging = diverging;
    m_name = name;
    m_minimum = minimum;
    m_maximum = maximum;
    update();
}

QSize OverlayColorBar::sizeHint() const { return { 320, fontMetrics().height() + 8 }; }

void OverlayColorBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QString low = QString::number(double(m_minimum), 'g', 4);
    const QString high = QString::number(double(m_maximum), 'g', 4);
    const QFontMetrics fm = fontMetrics();
    const int nameWidth = fm.horizontalAdvance(m_name) + 8;
    const int lowWidth = fm.horizontalAdvance(low) + 6;
    const int highWidth = fm.horizontalAdvance(high) + 6;
    QRect bar(nameWidth + lowWidth, 4, std::max(20, width() - nameWidth - lowWidth - highWidth), height() - 8);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int k = 0; k <= 8; ++k)
        gradient.setColorAt(k / 8.0, m_diverging ? ColorMaps::diverging(k / 4.0 - 1.0) : NodeOverlay::colorAt(k / 8.0));
    p.fillRect(bar, gradient);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, 0, nameWidth, height()), Qt::AlignVCenter | Qt::AlignLeft, m_name);
    p.drawText(QRect(nameWidth, 0, lowWidth - 3, height()), Qt::AlignVCenter | Qt::AlignRight, low);
    p.drawText(QRect(bar.right() + 4, 0, highWidth, height()), Qt::AlignVCenter | Qt::AlignLeft, high);
}
