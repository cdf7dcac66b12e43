// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphitems.h"

#include "widgets/graph/opcodepalette.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace tgraph::widgets {

namespace {

// Labels from this zoom on, where a node's 10 pt title is 6 pt on screen: smaller text is noise.
// Below it a collapsed group still shows its title, at a size that stays legible on screen, as long
// as enough of it fits the box (docs/studio.md §1.2).
constexpr double kTextLevel = 0.6;
constexpr double kOutlineLevel = 0.12;
constexpr double kScreenTitlePoints = 9; // a group's title when the zoom makes it smaller

QColor blend(const QColor& a, const QColor& b, double f)
{
    return QColor::fromRgbF(float(a.redF() * (1 - f) + b.redF() * f), float(a.greenF() * (1 - f) + b.greenF() * f),
        float(a.blueF() * (1 - f) + b.blueF() * f));
}

} // namespace

GraphNodeItem::GraphNodeItem(int viewIndex, int64_t node, Shape shape, const QRectF& rect)
    : m_viewIndex(viewIndex)
    , m_node(node)
    , m_shape(shape)
    , m_rect(rect)
{
    setFlag(ItemIsSelectable, shape == Shape::Node || shape == Shape::Alias);
    setAcceptHoverEvents(false);
    setZValue(2);
}

QRectF GraphNodeItem::boundingRect() const { return m_rect.adjusted(-4, -4, 4, 4); }

QPainterPath GraphNodeItem::shape() const
{
    QPainterPath path;
    path.addRect(m_rect);
    return path;
}

void GraphNodeItem::setLabels(const QString& title, const QString& detail)
{
    m_title = title;
    m_detail = detail;
    setToolTip(detail.isEmpty() ? title : title + QLatin1Char('\n') + detail);
    update();
}

void GraphNodeItem::setFill(const QColor& color)
{
    m_fill = color;
    update();
}

void GraphNodeItem::setConfigurable(bool configurable)
{
    m_configurable = configurable;
    update();
}

void GraphNodeItem::setRemoved(bool removed)
{
    m_removed = removed;
    update();
}

void GraphNodeItem::setHighlighted(bool highlighted)
{
    m_highlighted = highlighted;
    update();
}

void GraphNodeItem::setFocusNode(bool focus)
{
    m_focus = focus;
    update();
}

QColor GraphNodeItem::paintedFill() const
{
    return m_removed ? blend(m_fill, OpcodePalette::prunedTint(), 0.75) : m_fill;
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QColor fill = paintedFill();
    if (m_highlighted)
        painter->fillRect(m_rect.adjusted(-4, -4, 4, 4), QColor(0xff, 0xd4, 0x00));
    if (lod < kOutlineLevel) {
        painter->fillRect(m_rect, m_configurable && !m_removed ? OpcodePalette::configurableBorder() : fill);
        if (isSelected())
            painter->fillRect(m_rect, QColor(0, 0x60, 0xff, 160));
        return;
    }
    QPen pen(m_removed ? QColor(0xa0, 0xa0, 0xa0) : QColor(0x40, 0x40, 0x40), 1);
    if (m_configurable)
        pen = QPen(m_removed ? blend(OpcodePalette::configurableBorder(), Qt::white, 0.6)
                             : OpcodePalette::configurableBorder(),
            3.5);
    if (m_removed || m_shape == Shape::Alias || m_shape == Shape::More)
        pen.setStyle(Qt::DashLine);
    if (isSelected())
        pen = QPen(QColor(0, 0x60, 0xff), 4);
    else if (m_focus)
        pen = QPen(QColor(0x10, 0x10, 0x10), 3);
    painter->setPen(pen);
    painter->setBrush(fill);
    const double radius = m_shape == Shape::Group ? 2 : 6;
    painter->drawRoundedRect(m_rect, radius, radius);
    if (m_shape == Shape::Group) { // a stacked look for collapsed groups
        painter->setBrush(Qt::NoBrush);
        painter->drawLine(m_rect.bottomLeft() + QPointF(3, 3), m_rect.bottomRight() + QPointF(3, 3));
        painter->drawLine(m_rect.topRight() + QPointF(3, 3), m_rect.bottomRight() + QPointF(3, 3));
    }
    const QColor text = fill.lightnessF() < 0.5 ? Qt::white : QColor(0x10, 0x10, 0x10);
    if (lod < kTextLevel) {
        if (m_shape != Shape::Group || lod < 0.05)
            return;
        // The group's title at a constant size on screen, when at least 6 of its characters fit.
        QFont font = painter->font();
        font.setBold(true);
        font.setPointSizeF(kScreenTitlePoints / lod);
        painter->setFont(font);
        const QRectF inner = m_rect.adjusted(3, 1, -3, -1);
        const QFontMetricsF metrics(font);
        if (metrics.height() > inner.height() * 1.05
            || metrics.horizontalAdvance(m_title.left(6)) > inner.width())
            return;
        painter->setPen(m_removed ? QColor(0x80, 0x80, 0x80) : text);
        painter->drawText(inner, Qt::AlignCenter,
            metrics.elidedText(m_title, Qt::ElideMiddle, inner.width()));
        return;
    }
    painter->setPen(m_removed ? QColor(0x80, 0x80, 0x80) : text);
    QFont font = painter->font();
    font.setPointSizeF(GraphNodeItem::kTitlePoints);
    font.setItalic(m_shape == Shape::Alias);
    const QRectF inner = m_rect.adjusted(6, 2, -6, -2);
    if (m_detail.isEmpty()) {
        painter->setFont(font);
        painter->drawText(
            inner, Qt::AlignCenter, painter->fontMetrics().elidedText(m_title, Qt::ElideMiddle, int(inner.width())));
        return;
    }
    font.setBold(true);
    painter->setFont(font);
    const QRectF top(inner.left(), inner.top(), inner.width(), inner.height() / 2);
    painter->drawText(top, Qt::AlignHCenter | Qt::AlignBottom,
        painter->fontMetrics().elidedText(m_title, Qt::ElideMiddle, int(inner.width())));
    font.setBold(false);
    font.setPointSizeF(GraphNodeItem::kDetailPoints);
    painter->setFont(font);
    const QRectF bottom(inner.left(), inner.center().y(), inner.width(), inner.height() / 2);
    painter->drawText(bottom, Qt::AlignHCenter | Qt::AlignTop,
        painter->fontMetrics().elidedText(m_detail, Qt::ElideRight, int(inner.width())));
}

GraphEdgeItem::GraphEdgeItem(const QPainterPath& path, int count)
    : m_path(path)
    , m_count(count)
{
    setZValue(1);
    // The arrowhead points along the last segment of the spline into the consumer.
    const int n = path.elementCount();
    if (n >= 2) {
        const QPointF tip = path.elementAt(n - 1);
        QPointF from = path.elementAt(n - 2);
        if (QLineF(from, tip).length() < 0.01 && n >= 3)
            from = path.elementAt(n - 3);
        const QLineF line(tip, from);
        if (line.length() > 0.01) {
            const QLineF unit = line.unitVector();
            const QPointF d(unit.dx() * 9, unit.dy() * 9);
            const QPointF normal(-d.y() * 0.45, d.x() * 0.45);
            m_arrow << tip << tip + d + normal << tip + d - normal;
        }
    }
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-3, -3, 3, 3);
}

QRectF GraphEdgeItem::boundingRect() const { return m_bounds; }

void GraphEdgeItem::setHighlighted(bool highlighted)
{
    m_highlighted = highlighted;
    setZValue(highlighted ? 1.5 : 1);
    update();
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QColor color = m_highlighted ? QColor(0, 0x60, 0xff) : QColor(0x70, 0x70, 0x70);
    // Merged edges (between collapsed groups) get a little heavier with their count.
    const double weight = std::min(3.0, 0.5 * std::log2(double(std::max(1, m_count))));
    QPen pen(color, (m_highlighted ? 2.0 : 1.0) + weight);
    pen.setCosmetic(lod < 0.3);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    if (lod >= 0.3 && !m_arrow.isEmpty()) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(color);
        painter->drawPolygon(m_arrow);
    }
}

GraphClusterItem::GraphClusterItem(int clusterIndex, const QRectF& rect, const QString& title, int depth)
    : m_clusterIndex(clusterIndex)
    , m_rect(rect)
    , m_title(title)
    , m_depth(depth)
{
    setZValue(0);
    setToolTip(title);
}

void GraphClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const int shade = std::max(0xe0, 0xf8 - 8 * m_depth);
    painter->setPen(QPen(QColor(0x90, 0x90, 0xa8), 1.2));
    painter->setBrush(QColor(shade, shade, 0xff));
    painter->drawRoundedRect(m_rect, 4, 4);
    if (lod < 0.3)
        return;
    QFont font = painter->font();
    font.setPointSizeF(10);
    font.setBold(true);
    painter->setFont(font);
    painter->setPen(QColor(0x30, 0x30, 0x60));
    const QRectF strip(m_rect.left() + 6, m_rect.top() + 1, m_rect.width() - 12, 18);
    painter->drawText(strip, Qt::AlignLeft | Qt::AlignVCenter,
        painter->fontMetrics().elidedText(m_title, Qt::ElideMiddle, int(strip.width())));
}

} // namespace tgraph::widgets
