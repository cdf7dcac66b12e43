// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphscene.h"

#include "widgets/common/formatting.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphviewlog.h"
#include "widgets/graph/opcodepalette.h"

#include "core/view/nodehierarchy.h"

#include <QGraphicsSceneMouseEvent>

#include <algorithm>

using tgraph::ViewNode;

namespace {

constexpr double kCharWidth = 6.2; // points per label character at the view's font size
constexpr double kNodeHeight = 38;

} // namespace

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent)
{
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

tgraph::LayoutInput GraphScene::layoutInputFor(const tgraph::ViewGraph& view, const tgraph::GraphDocument& document)
{
    tgraph::LayoutInput input;
    input.nodes.resize(view.nodes.size());
    for (size_t i = 0; i < view.nodes.size(); ++i) {
        const ViewNode& v = view.nodes[i];
        tgraph::LayoutInput::Node& n = input.nodes[i];
        n.cluster = v.cluster;
        switch (v.kind) {
        case ViewNode::Kind::Node: {
            const size_t chars = std::max(document.nodeName(v.node).size(), document.opcodeName(v.node).size() + 8);
            n.width = std::clamp(double(chars) * kCharWidth + 20, 80.0, 230.0);
            n.height = kNodeHeight;
            break;
        }
        case ViewNode::Kind::Group:
            n.width = 210;
            n.height = 46;
            break;
        case ViewNode::Kind::More:
            n.width = 80;
            n.height = 24;
            break;
        case ViewNode::Kind::Alias: // a stand-in for a node or for a collapsed group's box
            n.width = v.node >= 0 ? std::clamp(double(document.nodeName(v.node).size()) * kCharWidth + 16, 60.0, 200.0)
                                  : 160.0;
            n.height = 24;
            break;
        }
    }
    for (const tgraph::ViewEdge& e : view.edges)
        input.edges.push_back({ e.from, e.to, 1 });
    for (const tgraph::ViewCluster& c : view.clusters)
        input.clusters.push_back({ c.parent, true });
    return input;
}

void GraphScene::setDocument(tgraph::GraphDocumentPtr document, const tgraph::GraphSource* source)
{
    clearLayout();
    m_document = std::move(document);
    m_source = source;
}

void GraphScene::clearLayout()
{
    m_selecting = true;
    clear();
    m_selecting = false;
    m_items.clear();
    m_edges.clear();
    m_itemOfNode.clear();
    m_layout.reset();
}

void GraphScene::showLayout(const ViewLayoutPtr& layout)
{
    const int64_t selected = m_selected;
    clearLayout();
    m_layout = layout;
    if (!layout || !m_document)
        return;
    const tgraph::GraphDocument& doc = *m_document;
    const tgraph::ViewGraph& view = layout->view;
    const tgraph::GraphLayout& geometry = layout->layout;

    std::vector<int> depth(view.clusters.size(), 0);
    for (size_t c = 0; c < view.clusters.size(); ++c) {
        const int parent = view.clusters[c].parent;
        depth[c] = parent >= 0 ? depth[size_t(parent)] + 1 : 0;
        const auto& box = geometry.clusters[c];
        addItem(new GraphClusterItem(int(c), QRectF(box.x, box.y, box.width, box.height),
            QString::fromStdString(view.clusters[c].title), depth[c]));
    }
    const auto& groups = m_source ? m_source->hierarchy.groups() : doc.full.hierarchy.groups();
    m_items.resize(view.nodes.size(), nullptr);
    for (size_t i = 0; i < view.nodes.size(); ++i) {
        const ViewNode& v = view.nodes[i];
        const auto& box = geometry.nodes[i];
        const QRectF rect(box.x, box.y, box.width, box.height);
        GraphNodeItem::Shape shape = GraphNodeItem::Shape::Node;
        QString title;
        QString detail;
        switch (v.kind) {
        case ViewNode::Kind::Node:
            title = QString::fromStdString(doc.nodeName(v.node));
            detail = QString::fromStdString(doc.opcodeName(v.node));
            if (doc.module)
                detail += QStringLiteral("  ") + QString::fromStdString(doc.shapeText(v.node));
            if (v.expandable)
                detail += QStringLiteral("  \u25b8");
            break;
        case ViewNode::Kind::Group:
            shape = GraphNodeItem::Shape::Group;
            title = v.group >= 0 && size_t(v.group) < groups.size()
                ? QString::fromStdString(groups[size_t(v.group)].title)
                : tr("group");
            detail = tr("%1 nodes").arg(Formatting::count(v.count));
            break;
        case ViewNode::Kind::More:
            shape = GraphNodeItem::Shape::More;
            title = tr("+%1 more").arg(Formatting::count(v.count));
            break;
        case ViewNode::Kind::Alias:
            shape = GraphNodeItem::Shape::Alias;
            if (v.node >= 0)
                title = QString::fromStdString(doc.nodeName(v.node));
            else if (v.group >= 0 && size_t(v.group) < groups.size())
                title = QString::fromStdString(groups[size_t(v.group)].title);
            break;
        }
        auto* item = new GraphNodeItem(int(i), v.kind == ViewNode::Kind::Group ? -1 : v.node, shape, rect);
        item->setLabels(title, detail);
        item->setFocusNode(v.focus);
        if ((v.kind == ViewNode::Kind::Node || v.kind == ViewNode::Kind::Alias) && v.node >= 0)
            item->setConfigurable(doc.isConfigurable(v.node));
        addItem(item);
        m_items[i] = item;
        if (v.kind == ViewNode::Kind::Node)
            m_itemOfNode.emplace(v.node, item);
    }
    for (size_t e = 0; e < view.edges.size(); ++e) {
        const auto& points = geometry.edges[e].points;
        if (points.size() < 2)
            continue;
        QPainterPath path(QPointF(points[0].x, points[0].y));
        size_t k = 1;
        for (; k + 2 < points.size(); k += 3)
            path.cubicTo(QPointF(points[k].x, points[k].y), QPointF(points[k + 1].x, points[k + 1].y),
                QPointF(points[k + 2].x, points[k + 2].y));
        for (; k < points.size(); ++k)
            path.lineTo(points[k].x, points[k].y);
        auto* edge = new GraphEdgeItem(path, view.edges[e].count);
        addItem(edge);
        m_edges.push_back(edge);
    }
    setSceneRect(QRectF(-20, -20, geometry.width + 40, geometry.height + 40));
    applyColors();
    if (selected >= 0)
        selectNode(selected);
    qCDebug(lcGraphView) << "scene shows" << view.nodes.size() << "boxes," << view.edges.size() << "edges";
}

void GraphScene::setRemovedOutside(const tgraph::GraphSource* kept)
{
    m_kept = kept;
    applyColors();
}

void GraphScene::setOverlay(const NodeOverlay* overlay)
{
    m_overlay = overlay && !overlay->isEmpty() ? overlay : nullptr;
    applyColors();
}

void GraphScene::setHighlighted(const std::vector<int64_t>& nodes)
{
    for (GraphNodeItem* item : m_items)
        if (item)
            item->setHighlighted(false);
    for (const int64_t node : nodes)
        if (GraphNodeItem* item = itemForNode(node))
            item->setHighlighted(true);
}

void GraphScene::applyColors()
{
    if (!m_document || !m_layout)
        return;
    const tgraph::GraphDocument& doc = *m_document;
    for (GraphNodeItem* item : m_items) {
        if (!item)
            continue;
        const ViewNode& v = m_layout->view.nodes[size_t(item->viewIndex())];
        QColor fill;
        if (v.kind == ViewNode::Kind::Group) {
            fill = QColor(0xdd, 0xdd, 0xf0);
        } else if (v.kind == ViewNode::Kind::More || v.node < 0) {
            fill = QColor(0xf6, 0xf6, 0xf6);
        } else if (m_overlay && !m_overlay->isEmpty()) {
            // Nodes outside the overlay in grey, never in their opcode's colour (which could
            // read as a value).
            fill = m_overlay->hasValue(v.node) ? m_overlay->colorOf(v.node) : NodeOverlay::noValueColor();
        } else {
            fill = OpcodePalette::color(doc.opcodeName(v.node));
        }
        item->setFill(fill);
        item->setRemoved(m_kept && v.kind == ViewNode::Kind::Node && !m_kept->contains(v.node));
    }
}

GraphNodeItem* GraphScene::itemForNode(int64_t node) const
{
    const auto it = m_itemOfNode.find(node);
    return it == m_itemOfNode.end() ? nullptr : it->second;
}

GraphNodeItem* GraphScene::itemAt(int viewIndex) const
{
    return viewIndex >= 0 && size_t(viewIndex) < m_items.size() ? m_items[size_t(viewIndex)] : nullptr;
}

bool GraphScene::selectNode(int64_t node)
{
    m_selecting = true;
    clearSelection();
    GraphNodeItem* item = itemForNode(node);
    if (item)
        item->setSelected(true);
    m_selecting = false;
    m_selected = node;
    for (GraphEdgeItem* edge : m_edges)
        edge->setHighlighted(false);
    return item != nullptr;
}

void GraphScene::onSelectionChanged()
{
    if (m_selecting)
        return;
    const QList<QGraphicsItem*> items = selectedItems();
    // With several boxes selected (ctrl+click), the newly selected one counts.
    int64_t node = -1;
    for (QGraphicsItem* item : items) {
        if (item->type() != GraphNodeItem::Type)
            continue;
        const int64_t candidate = static_cast<GraphNodeItem*>(item)->node();
        if (node < 0 || node == m_selected)
            node = candidate;
    }
    if (node == m_selected)
        return;
    m_selected = node;
    Q_EMIT nodeSelected(node);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    const QList<QGraphicsItem*> under = items(event->scenePos());
    for (QGraphicsItem* item : under) {
        if (item->type() == GraphNodeItem::Type) {
            Q_EMIT viewNodeActivated(static_cast<GraphNodeItem*>(item)->viewIndex());
            event->accept();
            return;
        }
    }
    // Topmost first: the innermost box around the click.
    for (QGraphicsItem* item : under) {
        if (item->type() == GraphClusterItem::Type) {
            Q_EMIT clusterActivated(static_cast<GraphClusterItem*>(item)->clusterIndex());
            event->accept();
            return;
        }
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}
