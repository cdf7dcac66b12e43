// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QGraphicsView>
#include <QPixmap>
#include <QVariantAnimation>

namespace tgraph::widgets {

class GraphMinimap;

// Zoom (wheel, anchored under the mouse), pan (drag), fit to view, a minimap for big drawings
// and a placeholder text ("Laying out 1,200 nodes…") drawn over the view while it has none.
class GraphView : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    // Node titles (10 pt) read at 9 pt from this zoom on: the first view of a graph is never drawn
    // smaller than this (docs/studio.md §1.2).
    static constexpr double kLegibleZoom = 0.9;

    double zoom() const; // view pixels per scene point
    void setZoom(double zoom);
    // The zoom at which the whole drawing fits the viewport (capped at 1).
    double fitZoom() const;
    // The first view of a drawing: fitted when it is legible so, else at the legible zoom with
    // `anchor` (scene point) at the top centre of the viewport. Returns true when it fitted.
    bool showFirstView(const QPointF& anchor);
    // Whether the whole drawing is in sight at the current zoom.
    bool drawingFits() const;
    void setPlaceholder(const QString& text);
    QString placeholder() const { return m_placeholder; }
    GraphMinimap* minimap() const { return m_minimap; }
    // Called after the scene's items were replaced.
    void sceneReplaced();
    // Whether the drawing was fitted and not zoomed or moved since; such a view fits again when
    // it is resized.
    bool isFitted() const { return m_fitted; }

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    void fitToView();
    void resetZoom();
    void centreOnSceneRect(const QRectF& rect);

Q_SIGNALS:
    void zoomChanged(double zoom);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    void zoomBy(double factor);
    // Zoom buttons and keys glide to `target` (anchored at the view's centre) over ~150 ms; a
    // request while gliding continues from the previous target.
    void animateZoomTo(double target);
    void updateMinimap();
    // The selected box in sight, if any: zoom keys and buttons keep it in place.
    QRectF selectionInSight() const;

    QVariantAnimation* m_zoomAnimation = nullptr;
    QPointF m_zoomFocus; // scene point the gliding zoom keeps at the viewport's centre, NaN = none

    QString m_placeholder;
    GraphMinimap* m_minimap = nullptr;
    bool m_fitted = false;
    bool m_minimapStale = true; // the scene changed since the thumbnail was drawn
};

// A thumbnail of the whole drawing with the visible part outlined; click or drag to move there.
class GraphMinimap : public QWidget
{
    Q_OBJECT
public:
    explicit GraphMinimap(GraphView* view);
    void refresh(); // re-renders the thumbnail
    void updateViewport() { update(); }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRectF thumbnailRect() const;
    void moveTo(const QPointF& position);

    GraphView* m_view;
    QPixmap m_thumbnail;
};

} // namespace tgraph::widgets
