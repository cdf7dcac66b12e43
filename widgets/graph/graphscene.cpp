// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphscene.h"

#include "widgets/common/formatting.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphviewlog.h"
#include "widgets/graph/opcodepalette.h"

#include "core/view/nodehierarchy.h"

#include <QGraphicsSceneContextMenuEvent>
#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QGuiApplication>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tgraph::widgets {

using tgraph::ViewNode;

namespace {

constexpr double kNodeHeight = 40;
constexpr double kGroupHeight = 50;

// Widths of a box's two lines at zoom 1 (scene points are pixels there), in GraphNodeItem's fonts.
struct LabelMetrics
{
    QFontMetricsF title;
    QFontMetricsF detail;
    static const LabelMetrics& get()
    {
        static const LabelMetrics metrics = [] {
            QFont title = QGuiApplication::font();
            title.setPointSizeF(GraphNodeItem::kTitlePoints);
            title.setBold(true);
            QFont detail = QGuiApplication::font();
            detail.setPointSizeF(GraphNodeItem::kDetailPoints);
            return LabelMetrics { QFontMetricsF(title), QFontMetricsF(detail) };
        }();
        return metrics;
    }
};

} // namespace

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent)
{
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

GraphScene::~GraphScene()
{
    // Items deleted with the scene are deselected on the way: that is no selection by the user.
    blockSignals(true);
    clear();
}

tgraph::LayoutInput GraphScene::layoutInputFor(
    const tgraph::ViewGraph& view, const tgraph::GraphDocument& document, const tgraph::GraphSource* source)
{
    const auto& groups = (source ? source->hierarchy : document.full.hierarchy).groups();
    tgraph::LayoutInput input;
    input.nodes.resize(view.nodes.size());
    for (size_t i = 0; i < view.nodes.size(); ++i) {
        const ViewNode& v = view.nodes[i];
        tgraph::LayoutInput::Node& n = input.nodes[i];
        n.cluster = v.cluster;
        switch (v.kind) {
        case ViewNode::Kind::Node: {
            const LabelMetrics& m = LabelMetrics::get();
            const double title = m.title.horizontalAdvance(QString::fromStdString(document.nodeName(v.node)));
            const double detail
                = m.detail.horizontalAdvance(QString::fromStdString(document.opcodeName(v.node))) + 60; // + shape
            n.width = std::clamp(std::max(title, detail) + 22, 80.0, 260.0);
            n.height = kNodeHeight;
            break;
        }
        case ViewNode::Kind::Group: {
            double width = 210;
            if (v.group >= 0 && size_t(v.group) < groups.size()) {
                const auto& group = groups[size_t(v.group)];
                const LabelMetrics& m = LabelMetrics::get();
                width = std::max(m.title.horizontalAdvance(groupTitle(group)),
                            m.detail.horizontalAdvance(groupDetail(group)))
                    + 26;
            }
            n.width = std::clamp(width, 120.0, 360.0);
            n.height = kGroupHeight;
            break;
        }
        case ViewNode::Kind::More:
            n.width = 80;
            n.height = 24;
            break;
        case ViewNode::Kind::Alias: { // a stand-in for a node or for a collapsed group's box
            QString name;
            if (v.node >= 0)
                name = QString::fromStdString(document.nodeName(v.node));
            else if (v.group >= 0 && size_t(v.group) < groups.size())
                name = groupTitle(groups[size_t(v.group)]);
            n.width = std::clamp(LabelMetrics::get().title.horizontalAdvance(name) + 20, 60.0, 300.0);
            n.height = 24;
            break;
        }
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
            if (v.group >= 0 && size_t(v.group) < groups.size()) {
                title = groupTitle(groups[size_t(v.group)]);
                detail = groupDetail(groups[size_t(v.group)]);
            } else {
                title = tr("group");
                detail = tr("%1 nodes").arg(Formatting::count(v.count));
            }
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
                title = groupTitle(groups[size_t(v.group)]);
            break;
        }
        auto* item = new GraphNodeItem(int(i), v.kind == ViewNode::Kind::Group ? -1 : v.node, shape, rect);
        item->setLabels(title, detail);
        if (v.kind == ViewNode::Kind::Group && v.group >= 0 && size_t(v.group) < groups.size()) {
            const auto& group = groups[size_t(v.group)];
            item->setToolTip(QStringLiteral("%1\n%2\n%3")
                                 .arg(QString::fromStdString(group.path.empty() ? group.title : group.path), detail,
                                     tr("Double-click to open it; right-click for more")));
        }
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

void GraphScene::setNodeColors(std::vector<QColor> colors, QColor neutral)
{
    m_nodeColors = std::move(colors);
    m_neutralColor = neutral;
    applyColors();
}

QColor GraphScene::groupColor(int32_t group) const
{
    const auto& groups = m_source->hierarchy.groups();
    std::vector<std::pair<QRgb, int64_t>> counts; // few distinct colours
    std::vector<int32_t> stack { group };
    while (!stack.empty()) {
        const int32_t g = stack.back();
        stack.pop_back();
        if (g < 0 || size_t(g) >= groups.size())
            continue;
        for (const int64_t node : groups[size_t(g)].nodes) {
            if (node < 0 || size_t(node) >= m_nodeColors.size() || !m_nodeColors[size_t(node)].isValid()
                || m_nodeColors[size_t(node)] == m_neutralColor)
                continue;
            const QRgb rgb = m_nodeColors[size_t(node)].rgb();
            auto it = std::find_if(counts.begin(), counts.end(), [rgb](const auto& c) { return c.first == rgb; });
            if (it == counts.end())
                counts.emplace_back(rgb, 1);
            else
                ++it->second;
        }
        stack.insert(stack.end(), groups[size_t(g)].children.begin(), groups[size_t(g)].children.end());
    }
    if (counts.empty())
        return m_neutralColor;
    const auto most
        = std::max_element(counts.begin(), counts.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
    return QColor(most->first);
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
            // With an overlay, a collapsed group takes the colour of its nodes' mean value, so that the
            // overlay reads at the first view too (docs/studio.md §1.2).
            fill = QColor(0xdd, 0xdd, 0xf0);
            if (!m_nodeColors.empty() && m_source && v.group >= 0) {
                fill = groupColor(v.group); // the diff view: the colour of the group's changes
            } else if (m_overlay && m_source && v.group >= 0) {
                const float mean = groupMean(m_source->hierarchy, v.group, *m_overlay);
                fill = std::isnan(mean) ? NodeOverlay::noValueColor() : m_overlay->colorOfValue(mean);
            }
        } else if (v.kind == ViewNode::Kind::More || v.node < 0) {
            fill = QColor(0xf6, 0xf6, 0xf6);
        } else if (size_t(v.node) < m_nodeColors.size() && m_nodeColors[size_t(v.node)].isValid()) {
            fill = m_nodeColors[size_t(v.node)];
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

QString GraphScene::groupTitle(const tgraph::NodeHierarchy::Group& group)
{
    // A block of an .npz graph is named by what it holds: its two main opcodes fit a box whole.
    if (group.kind == tgraph::NodeHierarchy::GroupKind::Block && !group.opcodes.empty()) {
        QStringList parts;
        for (size_t i = 0; i < std::min<size_t>(group.opcodes.size(), 2); ++i)
            parts << QStringLiteral("%1 ×%2")
                         .arg(QString::fromStdString(group.opcodes[i].name), Formatting::count(group.opcodes[i].count));
        return parts.join(QStringLiteral(" · "));
    }
    return QString::fromStdString(group.title);
}

QString GraphScene::groupDetail(const tgraph::NodeHierarchy::Group& group)
{
    using Kind = tgraph::NodeHierarchy::GroupKind;
    if (group.kind == Kind::Block) // its title names its opcodes already
        return tr("nodes %1–%2 · %3 in all")
            .arg(Formatting::count(group.first), Formatting::count(group.last), Formatting::count(group.total));
    QStringList parts { tr("%n op(s)", nullptr, int(std::min<int64_t>(group.total, INT32_MAX))) };
    if (group.total >= 1)
        for (size_t i = 0; i < std::min<size_t>(group.opcodes.size(), 2); ++i)
            parts << QStringLiteral("%1 ×%2")
                         .arg(QString::fromStdString(group.opcodes[i].name), Formatting::count(group.opcodes[i].count));
    return parts.join(QStringLiteral(" · "));
}

float GraphScene::groupMean(const tgraph::NodeHierarchy& hierarchy, int32_t group, const NodeOverlay& overlay)
{
    const auto& groups = hierarchy.groups();
    double sum = 0;
    int64_t count = 0;
    std::vector<int32_t> stack { group };
    while (!stack.empty()) {
        const int32_t g = stack.back();
        stack.pop_back();
        if (g < 0 || size_t(g) >= groups.size())
            continue;
        for (const int64_t node : groups[size_t(g)].nodes)
            if (overlay.hasValue(node)) {
                sum += double(overlay.values[size_t(node)]);
                ++count;
            }
        stack.insert(stack.end(), groups[size_t(g)].children.begin(), groups[size_t(g)].children.end());
    }
    return count > 0 ? float(sum / double(count)) : std::numeric_limits<float>::quiet_NaN();
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

void GraphScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* event)
{
    const QList<QGraphicsItem*> under = items(event->scenePos());
    for (QGraphicsItem* item : under)
        if (item->type() == GraphNodeItem::Type) {
            Q_EMIT contextMenuRequested(static_cast<GraphNodeItem*>(item)->viewIndex(), -1, event->screenPos());
            event->accept();
            return;
        }
    for (QGraphicsItem* item : under)
        if (item->type() == GraphClusterItem::Type) {
            Q_EMIT contextMenuRequested(-1, static_cast<GraphClusterItem*>(item)->clusterIndex(), event->screenPos());
            event->accept();
            return;
        }
    QGraphicsScene::contextMenuEvent(event);
}

} // namespace tgraph::widgets
