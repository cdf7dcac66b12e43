// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphview.h"

#include <QGraphicsItem>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

namespace {

constexpr double kMinZoom = 0.01;
constexpr double kMaxZoom = 8;
constexpr int kMinimapSize = 150;

} // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent)
    , m_zoomAnimation(new QVariantAnimation(this))
    , m_minimap(new GraphMinimap(this))
{
    m_zoomAnimation->setDuration(150);
    m_zoomAnimation->setEasingCurve(QEasingCurve::OutCubic);
    m_zoomFocus = QPointF(qQNaN(), qQNaN());
    connect(m_zoomAnimation, &QVariantAnimation::valueChanged, this, [this](const QVariant& value) {
        const ViewportAnchor anchor = transformationAnchor();
        setTransformationAnchor(AnchorViewCenter);
        zoomBy(value.toDouble() / zoom());
        setTransformationAnchor(anchor);
        if (!qIsNaN(m_zoomFocus.x()))
            centerOn(m_zoomFocus); // zoom centres on the selection
    });
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setBackgroundBrush(Qt::white);
    setFrameShape(QFrame::NoFrame);
    m_minimap->hide();
}

double GraphView::zoom() const { return transform().m11(); }

void GraphView::setZoom(double zoom)
{
    m_fitted = false;
    m_zoomAnimation->stop();
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    setTransform(QTransform::fromScale(zoom, zoom));
    updateMinimap();
    Q_EMIT zoomChanged(zoom);
}

void GraphView::zoomBy(double factor)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    if (target == zoom())
        return;
    scale(target / zoom(), target / zoom());
    updateMinimap();
    Q_EMIT zoomChanged(target);
}

void GraphView::animateZoomTo(double target)
{
    const bool gliding = m_zoomAnimation->state() == QAbstractAnimation::Running;
    const double from = zoom();
    const double base = gliding ? m_zoomAnimation->endValue().toDouble() : from;
    m_zoomAnimation->stop();
    target = std::clamp(base * target / from, kMinZoom, kMaxZoom);
    m_zoomAnimation->setStartValue(from);
    m_zoomAnimation->setEndValue(target);
    m_zoomAnimation->start();
}

QRectF GraphView::selectionInSight() const
{
    if (!scene())
        return {};
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    for (const QGraphicsItem* item : scene()->selectedItems())
        if (visible.intersects(item->sceneBoundingRect()))
            return item->sceneBoundingRect();
    return {};
}

void GraphView::zoomIn()
{
    m_fitted = false;
    const QRectF selected = selectionInSight();
    m_zoomFocus = selected.isNull() ? QPointF(qQNaN(), qQNaN()) : selected.center();
    animateZoomTo(zoom() * 1.25);
}

void GraphView::zoomOut()
{
    m_fitted = false;
    const QRectF selected = selectionInSight();
    m_zoomFocus = selected.isNull() ? QPointF(qQNaN(), qQNaN()) : selected.center();
    animateZoomTo(zoom() * 0.8);
}

double GraphView::fitZoom() const
{
    const QRectF rect = sceneRect();
    const QSize port = viewport()->size();
    if (rect.isEmpty() || port.isEmpty())
        return 1;
    // fitInView keeps a small margin on each side.
    return std::min({ (port.width() - 4) / rect.width(), (port.height() - 4) / rect.height(), 1.0 });
}

bool GraphView::drawingFits() const
{
    if (!scene() || sceneRect().isEmpty())
        return true;
    const QRectF drawn = mapFromScene(sceneRect()).boundingRect();
    return drawn.width() <= viewport()->width() + 2 && drawn.height() <= viewport()->height() + 2;
}

bool GraphView::showFirstView(const QPointF& anchor)
{
    if (fitZoom() >= kLegibleZoom) {
        fitToView();
        return true;
    }
    setZoom(kLegibleZoom);
    // The anchor at the top centre, the drawing's top edge at the viewport's top when it is near.
    const double halfHeight = viewport()->height() / (2 * kLegibleZoom);
    const double top = std::max(sceneRect().top(), anchor.y() - 0.15 * 2 * halfHeight);
    centerOn(anchor.x(), top + halfHeight);
    updateMinimap();
    return false;
}

void GraphView::resetZoom() { setZoom(1); }

void GraphView::fitToView()
{
    m_zoomAnimation->stop();
    if (!scene() || sceneRect().isEmpty())
        return;
    fitInView(sceneRect(), Qt::KeepAspectRatio);
    // Never blow a small graph up beyond its natural size.
    if (zoom() > 1)
        setZoom(1);
    centerOn(sceneRect().center());
    updateMinimap();
    // Fitted until the user zooms or moves: a pane laid out while hidden or small (the pruned pane
    // before the split view opens) fits again once it has its size.
    m_fitted = true;
    Q_EMIT zoomChanged(zoom());
}

void GraphView::centreOnSceneRect(const QRectF& rect)
{
    m_fitted = false;
    // Zoom in until the box is readable, never zooming out.
    if (zoom() < 0.7)
        setZoom(kLegibleZoom);
    centerOn(rect.center());
    updateMinimap();
}

void GraphView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    viewport()->update();
}

void GraphView::sceneReplaced()
{
    m_minimapStale = true;
    updateMinimap();
    viewport()->update();
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ShiftModifier) { // shift + wheel scrolls sideways
        QGraphicsView::wheelEvent(event);
        return;
    }
    const QPoint delta = event->pixelDelta().isNull() ? event->angleDelta() : event->pixelDelta() * 4;
    if (delta.y() == 0)
        return;
    m_fitted = false;
    zoomBy(std::pow(1.0015, delta.y()));
    event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event)
{
    m_fitted = false; // a drag moves the drawing
    QGraphicsView::mousePressEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_fitted)
        fitToView();
    updateMinimap();
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    m_minimap->updateViewport();
}

void GraphView::updateMinimap()
{
    // Only while the drawing does not fit: a minimap over a drawing in sight hides part of it.
    const QSize area = viewport()->size();
    const bool wanted = scene() && !scene()->items().isEmpty() && area.width() > 2 * kMinimapSize + 100
        && area.height() > kMinimapSize + 150 && !drawingFits();
    const bool wasVisible = m_minimap->isVisible();
    m_minimap->setVisible(wanted);
    if (!wanted)
        return;
    const QRect geometry = viewport()->geometry();
    m_minimap->setGeometry(
        geometry.right() - kMinimapSize - 8, geometry.bottom() - kMinimapSize - 8, kMinimapSize, kMinimapSize);
    if (!wasVisible || m_minimapStale) {
        m_minimap->refresh();
        m_minimapStale = false;
    }
    m_minimap->updateViewport();
    m_minimap->raise();
}

void GraphView::drawForeground(QPainter* painter, const QRectF& rect)
{
    QGraphicsView::drawForeground(painter, rect);
    if (m_placeholder.isEmpty())
        return;
    painter->save();
    painter->resetTransform();
    const QRect area = viewport()->rect();
    QFont font = painter->font();
    font.setPointSizeF(font.pointSizeF() * 1.3);
    painter->setFont(font);
    const QRect box
        = painter->fontMetrics()
              .boundingRect(area.adjusted(40, 40, -40, -40), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder)
              .adjusted(-16, -10, 16, 10);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(255, 255, 255, 220));
    painter->drawRoundedRect(box, 6, 6);
    painter->setPen(palette().color(QPalette::PlaceholderText));
    painter->drawText(box, Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
    painter->restore();
}

GraphMinimap::GraphMinimap(GraphView* view)
    : QWidget(view)
    , m_view(view)
{
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
}

QRectF GraphMinimap::thumbnailRect() const
{
    const QRectF scene = m_view->sceneRect();
    if (scene.isEmpty())
        return {};
    const double s = std::min((width() - 4) / scene.width(), (height() - 4) / scene.height());
    const QSizeF size(scene.width() * s, scene.height() * s);
    return QRectF(QPointF((width() - size.width()) / 2, (height() - size.height()) / 2), size);
}

void GraphMinimap::refresh()
{
    if (!m_view->scene())
        return;
    const QRectF target = thumbnailRect();
    m_thumbnail = QPixmap(target.size().toSize().expandedTo(QSize(1, 1)));
    m_thumbnail.fill(Qt::white);
    QPainter p(&m_thumbnail);
    m_view->scene()->render(&p, QRectF(QPointF(0, 0), target.size()), m_view->sceneRect());
    update();
}

void GraphMinimap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(250, 250, 250, 235));
    p.setPen(QColor(0x90, 0x90, 0x90));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    const QRectF target = thumbnailRect();
    if (target.isEmpty())
        return;
    p.drawPixmap(target.topLeft(), m_thumbnail);
    const QRectF scene = m_view->sceneRect();
    const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect().intersected(scene);
    const double s = target.width() / scene.width();
    const QRectF frame(target.left() + (visible.left() - scene.left()) * s,
        target.top() + (visible.top() - scene.top()) * s, visible.width() * s, visible.height() * s);
    p.setPen(QPen(QColor(0, 0x60, 0xff), 1.5));
    p.setBrush(QColor(0, 0x60, 0xff, 30));
    p.drawRect(frame);
}

void GraphMinimap::moveTo(const QPointF& position)
{
    const QRectF target = thumbnailRect();
    if (target.isEmpty())
        return;
    const QRectF scene = m_view->sceneRect();
    const double s = target.width() / scene.width();
    m_view->centerOn(
        scene.left() + (position.x() - target.left()) / s, scene.top() + (position.y() - target.top()) / s);
    update();
}

void GraphMinimap::mousePressEvent(QMouseEvent* event) { moveTo(event->position()); }

void GraphMinimap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        moveTo(event->position());
}

} // namespace tgraph::widgets
