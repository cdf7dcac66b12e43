// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QString>

#include <cstdint>

namespace tgraph::widgets {

// One box of a graph view: an instruction, a collapsed group, a "N more" marker or an alias.
// Draws with level of detail: a plain box when small on screen, labels only when readable.
class GraphNodeItem : public QGraphicsItem
{
public:
    enum class Shape { Node, Group, More, Alias };
    enum { Type = UserType + 1 };
    // The label fonts at zoom 1: the title (bold) reads at 9 pt from GraphView::kLegibleZoom on.
    static constexpr double kTitlePoints = 10;
    static constexpr double kDetailPoints = 8.5;

    GraphNodeItem(int viewIndex, int64_t node, Shape shape, const QRectF& rect);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    int viewIndex() const { return m_viewIndex; }
    int64_t node() const { return m_node; }
    Shape nodeShape() const { return m_shape; }
    QRectF rect() const { return m_rect; }

    void setLabels(const QString& title, const QString& detail);
    QString title() const { return m_title; }
    QString detail() const { return m_detail; }
    void setFill(const QColor& color);
    QColor fill() const { return m_fill; }
    void setConfigurable(bool configurable);
    bool isConfigurable() const { return m_configurable; }
    // Pruning removes this node: drawn faded with a dashed border.
    void setRemoved(bool removed);
    bool isRemoved() const { return m_removed; }
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; }
    void setFocusNode(bool focus);
    // The colour the box's interior is painted with (fill after tinting).
    QColor paintedFill() const;

private:
    int m_viewIndex;
    int64_t m_node;
    Shape m_shape;
    QRectF m_rect;
    QString m_title;
    QString m_detail;
    QColor m_fill;
    bool m_configurable = false;
    bool m_removed = false;
    bool m_highlighted = false;
    bool m_focus = false;
};

// A producer -> consumer edge: Graphviz's B-spline with an arrowhead at the consumer.
class GraphEdgeItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 2 };
    GraphEdgeItem(const QPainterPath& path, int count);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    void setHighlighted(bool highlighted);

private:
    QPainterPath m_path;
    QPolygonF m_arrow;
    QRectF m_bounds;
    int m_count;
    bool m_highlighted = false;
};

// A computation (or chunk) drawn as a box around its members, with its title at the top.
class GraphClusterItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 3 };
    GraphClusterItem(int clusterIndex, const QRectF& rect, const QString& title, int depth);
    int clusterIndex() const { return m_clusterIndex; }

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_rect.adjusted(-1, -1, 1, 1); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    QString title() const { return m_title; }

private:
    int m_clusterIndex;
    QRectF m_rect;
    QString m_title;
    int m_depth;
};

} // namespace tgraph::widgets
