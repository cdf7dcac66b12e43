// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphpane.h"

#include "widgets/common/elidedlabel.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphscene.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/graphviewlog.h"

#include "core/view/nodehierarchy.h"
#include "core/view/subgraphselection.h"

#include <QDateTime>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

using Formatting::count;
using tgraph::GraphSource;
using tgraph::ViewNode;

namespace {

constexpr int kPlaceholderDelayMs = 500;

} // namespace

GraphPane::GraphPane(QWidget* parent)
    : QWidget(parent)
    , m_title(new ElidedLabel(this, Qt::ElideRight))
    , m_noteLabel(new ElidedLabel(this, Qt::ElideMiddle))
    , m_scene(new GraphScene(this))
    , m_view(new GraphView(this))
    , m_runner(new LayoutRunner(this))
    , m_placeholderTimer(new QTimer(this))
{
    m_title->setObjectName(QStringLiteral("paneTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_noteLabel->setObjectName(QStringLiteral("paneNote"));
    m_noteLabel->setForegroundRole(QPalette::PlaceholderText);
    m_view->setScene(m_scene);
    // Alias stand-ins for high-degree nodes come on top of the boxes; they are small and cheap.
    tgraph::LayoutOptions options;
    options.maxNodes = 2 * kMaxViewNodes;
    m_runner->setOptions(options);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* header = new QVBoxLayout;
    header->setContentsMargins(6, 4, 6, 0);
    header->setSpacing(0);
    header->addWidget(m_title);
    header->addWidget(m_noteLabel);
    layout->addLayout(header);
    layout->addWidget(m_view, 1);

    m_placeholderTimer->setSingleShot(true);
    m_placeholderTimer->setInterval(kPlaceholderDelayMs);
    connect(m_placeholderTimer, &QTimer::timeout, this,
        [this] { m_view->setPlaceholder(tr("Laying out %Ln node(s)…", nullptr, m_pendingNodes)); });
    connect(m_runner, &LayoutRunner::finished, this, &GraphPane::onLayoutFinished);
    connect(m_runner, &LayoutRunner::failed, this, &GraphPane::onLayoutFailed);
    connect(m_scene, &GraphScene::nodeSelected, this, &GraphPane::nodeSelected);
    connect(m_scene, &GraphScene::viewNodeActivated, this, &GraphPane::activateViewNode);
    connect(m_scene, &GraphScene::clusterActivated, this, &GraphPane::collapseCluster);
}

const GraphSource* GraphPane::source() const
{
    if (!m_document)
        return nullptr;
    if (m_kind == GraphSource::Kind::Pruned)
        return m_document->pruned ? &*m_document->pruned : nullptr;
    return &m_document->full;
}

void GraphPane::setDocument(tgraph::GraphDocumentPtr document, GraphSource::Kind kind)
{
    m_runner->cancel();
    m_document = std::move(document);
    m_kind = kind;
    m_scene->setDocument(m_document, source());
    m_highlighted.clear();
    m_centre = m_pathEnd = m_pendingSelection = -1;
    if (!source()) {
        m_view->setPlaceholder(
            m_document ? tr("No pruned graph: %1").arg(QString::fromStdString(m_document->pruneError)) : QString());
        updateTitle();
        return;
    }
    showComputations();
}

QString GraphPane::titleText() const { return m_title->fullText(); }

QString GraphPane::noteText() const { return m_noteLabel->fullText(); }

void GraphPane::updateTitle()
{
    const GraphSource* s = source();
    if (!s) {
        m_title->setFullText(isPrunedPane() ? tr("Pruned graph (none)") : tr("No graph"));
        m_noteLabel->setFullText(QString());
        return;
    }
    const QString what = isPrunedPane() ? tr("After pruning") : tr("Full graph");
    m_title->setFullText(tr("%1 — %2 nodes, %3 edges").arg(what, count(s->nodeCount()), count(s->edgeCount())));
    m_noteLabel->setFullText(m_note);
    m_noteLabel->setVisible(!m_note.isEmpty());
}

void GraphPane::showComputations(int64_t budget)
{
    const GraphSource* s = source();
    if (!s)
        return;
    m_mode = Mode::Computations;
    // Small graphs open whole; big ones start with fewer boxes so the first view comes quickly.
    if (budget < 0)
        budget = s->nodeCount() <= kInitialBudget ? kInitialBudget
            : m_document->module                  ? kLargeGraphBudget
                                                  : kOverviewBudget;
    m_expanded = s->hierarchy.expandWithin(std::min(budget, kMaxViewNodes));
    rebuild(true);
}

void GraphPane::collapseAll()
{
    const GraphSource* s = source();
    if (!s)
        return;
    m_mode = Mode::Computations;
    m_expanded.assign(s->hierarchy.groups().size(), 0);
    rebuild(true);
}

void GraphPane::showNeighbourhood(int64_t node, int radius)
{
    const GraphSource* s = source();
    if (!s || !s->contains(node))
        return;
    m_mode = Mode::Neighbourhood;
    m_centre = node;
    m_radius = std::clamp(radius, 1, 3);
    rebuild(true);
}

void GraphPane::showPaths(int64_t from, int64_t to)
{
    const GraphSource* s = source();
    if (!s || !s->contains(from) || !s->contains(to))
        return;
    m_mode = Mode::Paths;
    m_centre = from;
    m_pathEnd = to;
    rebuild(true);
}

void GraphPane::rebuild(bool fit)
{
    const GraphSource* s = source();
    if (!s)
        return;
    const tgraph::GraphDocument& doc = *m_document;
    tgraph::ViewGraph view;
    try {
        switch (m_mode) {
        case Mode::Computations:
            view = s->hierarchy.view(doc, *s, m_expanded);
            break;
        case Mode::Neighbourhood: {
            tgraph::NeighbourhoodOptions options;
            options.radius = m_radius;
            view = tgraph::neighbourhoodView(doc, *s, m_centre, options);
            break;
        }
        case Mode::Paths:
            view = tgraph::pathsView(doc, *s, m_centre, m_pathEnd);
            break;
        }
    } catch (const std::exception& e) {
        Q_EMIT layoutFailed(QString::fromStdString(e.what()));
        return;
    }
    m_note = QString::fromStdString(view.note);
    if (m_mode == Mode::Computations) {
        const int64_t shown = view.nodesShown();
        m_note = shown == s->nodeCount() ? QString()
            : shown == 0 // an overview of an .npz graph
            ? tr("%1 nodes in %2 boxes; double-click a box to open it")
                  .arg(count(s->nodeCount()), count(int64_t(view.nodes.size())))
            : tr("Showing %1 of %2 nodes; double-click a box to open it").arg(count(shown), count(s->nodeCount()));
    }
    const std::string frame = tgraph::dropSoleOuterCluster(view);
    if (!frame.empty())
        m_note = m_note.isEmpty() ? QString::fromStdString(frame)
                                  : QString::fromStdString(frame) + QStringLiteral(" · ") + m_note;
    tgraph::aliasHighDegreeNodes(view);
    tgraph::LayoutInput input = GraphScene::layoutInputFor(view, doc);
    m_pendingNodes = int(input.nodes.size());
    m_pendingFit = m_pendingFit || fit;
    m_requestStarted = QDateTime::currentMSecsSinceEpoch();
    m_runner->request(std::move(view), std::move(input));
    m_placeholderTimer->start();
    updateTitle();
}

bool GraphPane::isLayoutPending() const { return m_runner->isBusy(); }

void GraphPane::onLayoutFinished(quint64, const ViewLayoutPtr& layout)
{
    m_placeholderTimer->stop();
    m_view->setPlaceholder({});
    m_scene->showLayout(layout);
    m_scene->setHighlighted(m_highlighted);
    m_view->sceneReplaced();
    m_lastLayoutMs = QDateTime::currentMSecsSinceEpoch() - m_requestStarted;
    qCDebug(lcGraphView) << "layout of" << layout->view.nodes.size() << "boxes shown after" << m_lastLayoutMs << "ms";
    const int64_t pending = m_pendingSelection;
    m_pendingSelection = -1;
    if (m_pendingFit)
        m_view->fitToView();
    m_pendingFit = false;
    if (pending >= 0) {
        m_scene->selectNode(pending);
        if (GraphNodeItem* item = m_scene->itemForNode(pending))
            m_view->centreOnSceneRect(item->sceneBoundingRect());
    }
    Q_EMIT layoutShown();
}

void GraphPane::onLayoutFailed(quint64, const QString& message)
{
    m_placeholderTimer->stop();
    m_view->setPlaceholder(tr("Layout failed: %1").arg(message));
    Q_EMIT layoutFailed(message);
}

int64_t GraphPane::selectedNode() const { return m_scene->selectedNode(); }

bool GraphPane::selectNode(int64_t node, bool centre)
{
    const GraphSource* s = source();
    if (!s || !s->contains(node)) {
        m_scene->selectNode(-1);
        if (s && node >= 0 && node < m_document->nodeCount())
            Q_EMIT message(tr("%1 is not in the pruned graph").arg(QString::fromStdString(m_document->nodeName(node))));
        return false;
    }
    if (m_scene->selectNode(node) && !isLayoutPending()) {
        if (centre)
            m_view->centreOnSceneRect(m_scene->itemForNode(node)->sceneBoundingRect());
        return true;
    }
    // Not drawn: open the groups around it, or show its neighbourhood when that would be too big.
    m_pendingSelection = node;
    if (m_mode == Mode::Computations) {
        std::vector<uint8_t> expanded = m_expanded;
        for (const int32_t g : s->hierarchy.ancestry(s->hierarchy.groupOfNode(node)))
            expanded[size_t(g)] = 1;
        if (s->hierarchy.visibleCount(expanded) <= kMaxViewNodes) {
            m_expanded = std::move(expanded);
            rebuild(false);
            return true;
        }
    }
    m_mode = Mode::Neighbourhood;
    m_centre = node;
    rebuild(true);
    m_pendingSelection = node;
    return true;
}

void GraphPane::activateViewNode(int viewIndex)
{
    const ViewLayout* layout = m_scene->viewLayout();
    const GraphSource* s = source();
    if (!layout || !s || viewIndex < 0 || size_t(viewIndex) >= layout->view.nodes.size())
        return;
    const ViewNode v = layout->view.nodes[size_t(viewIndex)];
    switch (v.kind) {
    case ViewNode::Kind::Group:
    case ViewNode::Kind::Node: {
        if (m_mode != Mode::Computations) {
            if (v.kind == ViewNode::Kind::Node)
                showNeighbourhood(v.node, m_radius); // re-centre on it
            return;
        }
        std::vector<uint8_t> expanded = m_expanded;
        const std::vector<int32_t> groups
            = v.kind == ViewNode::Kind::Group ? std::vector<int32_t> { v.group } : s->hierarchy.groupsOwnedBy(v.node);
        if (groups.empty())
            return;
        bool allOpen = true;
        for (const int32_t g : groups)
            allOpen = allOpen && expanded[size_t(g)];
        for (const int32_t g : groups)
            expanded[size_t(g)] = !allOpen; // a second double-click on an expanded node folds it again
        const int64_t visible = s->hierarchy.visibleCount(expanded);
        if (visible > kMaxViewNodes) {
            Q_EMIT message(tr("Opening this would show %1 boxes (more than %2); showing the neighbourhood of a node "
                              "works for any size")
                               .arg(count(visible), count(kMaxViewNodes)));
            return;
        }
        m_expanded = std::move(expanded);
        if (v.kind == ViewNode::Kind::Node)
            m_pendingSelection = v.node;
        rebuild(false);
        return;
    }
    case ViewNode::Kind::More:
        showNeighbourhood(v.node, m_radius);
        return;
    case ViewNode::Kind::Alias:
        if (GraphNodeItem* original = m_scene->itemAt(v.aliasOf)) {
            if (v.node < 0) { // a collapsed group's stand-in: just go to the box
                m_view->centreOnSceneRect(original->sceneBoundingRect());
                return;
            }
            m_scene->selectNode(v.node);
            m_view->centreOnSceneRect(original->sceneBoundingRect());
            Q_EMIT nodeSelected(v.node);
        }
        return;
    }
}

void GraphPane::collapseCluster(int clusterIndex)
{
    const ViewLayout* layout = m_scene->viewLayout();
    if (!layout || m_mode != Mode::Computations || clusterIndex < 0
        || size_t(clusterIndex) >= layout->view.clusters.size())
        return;
    const int32_t group = layout->view.clusters[size_t(clusterIndex)].group;
    if (group < 0 || size_t(group) >= m_expanded.size())
        return;
    m_expanded[size_t(group)] = 0;
    rebuild(false);
}

void GraphPane::setRemovedOutside(const GraphSource* kept)
{
    m_scene->setRemovedOutside(kept);
    refreshMinimap();
}

void GraphPane::setOverlay(const NodeOverlay* overlay)
{
    m_scene->setOverlay(overlay);
    refreshMinimap();
}

void GraphPane::refreshMinimap()
{
    // The thumbnail is a picture of the scene: new colours draw it again.
    if (m_view->minimap()->isVisible())
        m_view->minimap()->refresh();
}

void GraphPane::setHighlighted(const std::vector<int64_t>& nodes)
{
    m_highlighted = nodes;
    m_scene->setHighlighted(nodes);
}
