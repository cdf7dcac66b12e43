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
#include <QMenu>
#include <QSet>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace tgraph::widgets {

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
    , m_crumbs(new QLabel(this))
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
    // Breadcrumbs: the groups around the selection, each a link that brings it into sight.
    m_crumbs->setObjectName(QStringLiteral("breadcrumbs"));
    m_crumbs->setTextFormat(Qt::RichText);
    m_crumbs->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_crumbs->setMinimumWidth(40);
    m_crumbs->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_crumbs->hide();
    connect(m_crumbs, &QLabel::linkActivated, this, [this](const QString& link) {
        bool ok = false;
        const int group = link.mid(2).toInt(&ok);
        if (ok && link.startsWith(QStringLiteral("g:")))
            focusGroup(group);
    });
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
    header->addWidget(m_crumbs);
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
    connect(m_scene, &GraphScene::contextMenuRequested, this, &GraphPane::showContextMenu);
    connect(m_scene, &GraphScene::nodeSelected, this, &GraphPane::updateBreadcrumbs);
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

std::vector<uint8_t> GraphPane::firstViewExpansion(int64_t budget) const
{
    const GraphSource* s = source();
    std::vector<uint8_t> expanded = s->hierarchy.firstViewExpansion(budget);
    // The nodes of an .npz graph have no names ("node 1712"): its first view stops at the blocks
    // that hold nodes, which are named by their opcodes.
    if (!m_document->module) {
        const auto& groups = s->hierarchy.groups();
        for (size_t g = 0; g < groups.size() && g < expanded.size(); ++g)
            if (groups[g].kind == tgraph::NodeHierarchy::GroupKind::Block && !groups[g].nodes.empty())
                expanded[g] = 0;
    }
    return expanded;
}

bool GraphPane::hasNamedGroups(const tgraph::NodeHierarchy& hierarchy)
{
    for (const tgraph::NodeHierarchy::Group& group : hierarchy.groups())
        if (group.kind == tgraph::NodeHierarchy::GroupKind::Scope || group.kind == tgraph::NodeHierarchy::GroupKind::Block)
            return true;
    return false;
}

int64_t GraphPane::firstViewBudget() const
{
    // About what the canvas shows at the legible zoom: its scene area over what a box takes with the
    // space Graphviz leaves around it (about 250 x 100 points), half as many again since drawings
    // are rarely that compact (the rest is a scroll or the minimap away). A pane not shown yet counts
    // as the canvas of a 1366x768 window.
    QSize port = m_view->viewport()->size();
    if (port.width() < 300 || port.height() < 200)
        port = QSize(950, 560);
    const double zoom = GraphView::kLegibleZoom;
    const double boxes = 1.5 * (port.width() / zoom) * (port.height() / zoom) / (250.0 * 100.0);
    return std::clamp(int64_t(boxes), kMinFirstView, kMaxFirstView);
}

void GraphPane::showComputations(int64_t budget)
{
    const GraphSource* s = source();
    if (!s)
        return;
    m_mode = Mode::Computations;
    m_firstView = budget < 0;
    m_firstViewTries = 0;
    if (!m_firstView) {
        m_expanded = s->hierarchy.expandWithin(std::min(budget, kMaxViewNodes));
    } else if (s->nodeCount() <= kWholeGraphNodes && !hasNamedGroups(s->hierarchy)) {
        m_expanded = s->hierarchy.expandWithin(kWholeGraphNodes); // nothing to name a box by: the nodes
        m_firstViewTries = 2; // whole, at the legible zoom: never fewer boxes
    } else {
        m_expanded = firstViewExpansion(firstViewBudget());
    }
    rebuild(true);
}

void GraphPane::openSimilarGroups(int32_t group)
{
    const GraphSource* s = source();
    if (!s || group < 0 || size_t(group) >= s->hierarchy.groups().size())
        return;
    std::vector<uint8_t> expanded = m_expanded;
    expanded.resize(s->hierarchy.groups().size(), 0);
    int opened = 0;
    for (const int32_t g : s->hierarchy.similarGroups(group)) {
        for (const int32_t a : s->hierarchy.ancestry(g))
            if (!expanded[size_t(a)]) {
                expanded[size_t(a)] = 1;
                opened += a == g;
            }
    }
    const int64_t visible = s->hierarchy.visibleCount(expanded);
    if (visible > kMaxViewNodes) {
        Q_EMIT message(tr("Opening these would show %1 boxes (more than %2)").arg(count(visible), count(kMaxViewNodes)));
        return;
    }
    m_mode = Mode::Computations;
    m_expanded = std::move(expanded);
    m_focusGroup = group;
    rebuild(false);
    Q_EMIT message(tr("Opened %n group(s) like %1", nullptr, opened)
                       .arg(QString::fromStdString(s->hierarchy.groups()[size_t(group)].title)));
}

QRectF GraphPane::groupRect(int32_t group) const
{
    const ViewLayout* layout = m_scene->viewLayout();
    const GraphSource* s = source();
    if (!layout || !s || group < 0)
        return {};
    const int32_t box = layout->view.indexOfGroup(group);
    if (box >= 0)
        if (GraphNodeItem* item = m_scene->itemAt(box))
            return item->sceneBoundingRect();
    for (size_t c = 0; c < layout->view.clusters.size(); ++c)
        if (layout->view.clusters[c].group == group) {
            const auto& frame = layout->layout.clusters[c];
            return QRectF(frame.x, frame.y, frame.width, frame.height);
        }
    // An open chunk or block has no frame: the boxes of its nodes.
    QRectF rect;
    for (const tgraph::ViewNode& v : layout->view.nodes) {
        if (v.kind != ViewNode::Kind::Node)
            continue;
        const std::vector<int32_t> around = s->hierarchy.ancestry(s->hierarchy.groupOfNode(v.node));
        if (std::find(around.begin(), around.end(), group) != around.end())
            if (GraphNodeItem* item = m_scene->itemForNode(v.node))
                rect = rect.united(item->sceneBoundingRect());
    }
    return rect;
}

void GraphPane::focusGroup(int32_t group)
{
    const GraphSource* s = source();
    if (!s || group < 0 || size_t(group) >= s->hierarchy.groups().size())
        return;
    if (m_mode == Mode::Computations && !isLayoutPending()) {
        if (const QRectF rect = groupRect(group); !rect.isNull()) {
            m_view->centreOnSceneRect(rect);
            return;
        }
    }
    // Not drawn: open what is around it (it shows as a box).
    std::vector<uint8_t> expanded = m_mode == Mode::Computations ? m_expanded : std::vector<uint8_t> {};
    expanded.resize(s->hierarchy.groups().size(), 0);
    for (const int32_t a : s->hierarchy.ancestry(group))
        if (a != group)
            expanded[size_t(a)] = 1;
    if (s->hierarchy.visibleCount(expanded) > kMaxViewNodes)
        return;
    m_mode = Mode::Computations;
    m_expanded = std::move(expanded);
    m_focusGroup = group;
    rebuild(false);
}

QString GraphPane::breadcrumbText() const { return m_crumbs->text(); }

void GraphPane::updateBreadcrumbs()
{
    const GraphSource* s = source();
    const int64_t node = m_scene->selectedNode();
    if (!s || node < 0 || !s->contains(node)) {
        m_crumbs->clear();
        m_crumbs->hide();
        return;
    }
    QStringList crumbs;
    const auto& groups = s->hierarchy.groups();
    for (const int32_t g : s->hierarchy.breadcrumbs(s->hierarchy.groupOfNode(node))) {
        const auto& group = groups[size_t(g)];
        if (group.kind == tgraph::NodeHierarchy::GroupKind::Chunk)
            continue; // a cut through a computation, not a name
        crumbs << QStringLiteral("<a href=\"g:%1\">%2</a>").arg(g).arg(QString::fromStdString(group.title).toHtmlEscaped());
    }
    crumbs << QStringLiteral("<b>%1</b>").arg(QString::fromStdString(m_document->nodeName(node)).toHtmlEscaped());
    m_crumbs->setText(crumbs.join(QStringLiteral(" › ")));
    m_crumbs->setToolTip(tr("The groups around the selected node: click one to bring it into sight"));
    m_crumbs->show();
}

void GraphPane::showContextMenu(int viewIndex, int clusterIndex, const QPoint& screenPos)
{
    const ViewLayout* layout = m_scene->viewLayout();
    const GraphSource* s = source();
    if (!layout || !s || m_mode != Mode::Computations)
        return;
    QMenu menu;
    int32_t group = -1;
    if (viewIndex >= 0 && size_t(viewIndex) < layout->view.nodes.size()) {
        const ViewNode& v = layout->view.nodes[size_t(viewIndex)];
        if (v.kind == ViewNode::Kind::Group)
            group = v.group;
        else if (v.kind == ViewNode::Kind::Node)
            group = s->hierarchy.groupOfNode(v.node);
        if (v.kind == ViewNode::Kind::Group)
            menu.addAction(tr("Open"), this, [this, viewIndex] { activateViewNode(viewIndex); });
    } else if (clusterIndex >= 0 && size_t(clusterIndex) < layout->view.clusters.size()) {
        group = layout->view.clusters[size_t(clusterIndex)].group;
        menu.addAction(tr("Collapse"), this, [this, clusterIndex] { collapseCluster(clusterIndex); });
    }
    if (group >= 0) {
        const std::vector<int32_t> similar = s->hierarchy.similarGroups(group);
        if (similar.size() > 1)
            menu.addAction(tr("Open All %n Groups Like “%1”", nullptr, int(similar.size()))
                               .arg(QString::fromStdString(s->hierarchy.groups()[size_t(group)].title)),
                this, [this, group] { openSimilarGroups(group); });
        const int32_t parent = s->hierarchy.groups()[size_t(group)].parent;
        if (viewIndex >= 0 && parent >= 0 && layout->view.nodes[size_t(viewIndex)].kind == ViewNode::Kind::Group)
            menu.addAction(tr("Collapse “%1”").arg(QString::fromStdString(s->hierarchy.groups()[size_t(parent)].title)),
                this, [this, parent] {
                    m_expanded[size_t(parent)] = 0;
                    m_focusGroup = parent;
                    rebuild(false);
                });
    }
    if (m_nodeMenuHook && viewIndex >= 0 && size_t(viewIndex) < layout->view.nodes.size()
        && layout->view.nodes[size_t(viewIndex)].kind == ViewNode::Kind::Node && !isPrunedPane()) {
        menu.addSeparator();
        m_nodeMenuHook(menu, layout->view.nodes[size_t(viewIndex)].node);
    }
    menu.addSeparator();
    menu.addAction(tr("Collapse Everything"), this, &GraphPane::collapseAll);
    menu.addAction(tr("First View"), this, [this] { showComputations(); });
    menu.exec(screenPos);
}

void GraphPane::collapseAll()
{
    const GraphSource* s = source();
    if (!s)
        return;
    m_mode = Mode::Computations;
    m_firstView = false;
    m_expanded.assign(s->hierarchy.groups().size(), 0);
    rebuild(true);
}

void GraphPane::showNeighbourhood(int64_t node, int radius)
{
    const GraphSource* s = source();
    if (!s || !s->contains(node))
        return;
    m_mode = Mode::Neighbourhood;
    m_firstView = false;
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
    m_firstView = false;
    m_centre = from;
    m_pathEnd = to;
    rebuild(true);
}

void GraphPane::rebuild(bool fit)
{
    if (!fit)
        m_firstView = false; // an expansion or a collapse keeps the view where it is
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
    tgraph::LayoutInput input = GraphScene::layoutInputFor(view, doc, s);
    m_pendingNodes = int(input.nodes.size());
    m_pendingFit = m_pendingFit || fit;
    m_requestStarted = QDateTime::currentMSecsSinceEpoch();
    m_runner->request(std::move(view), std::move(input));
    m_placeholderTimer->start();
    updateTitle();
}

bool GraphPane::isLayoutPending() const { return m_runner->isBusy(); }

QPointF GraphPane::firstViewAnchor(const ViewLayout& layout) const
{
    // Windows of the canvas's size (at the legible zoom), one with each box at its top centre: the
    // topmost of those showing nearly the most different names whole (a node's or a group's; the
    // stand-ins of high-degree boxes repeat a name and do not count). The first view shows as many
    // names as it can, starting where the data comes in.
    const QSizeF window(m_view->viewport()->width() / GraphView::kLegibleZoom,
        m_view->viewport()->height() / GraphView::kLegibleZoom);
    const auto& boxes = layout.layout.nodes;
    if (boxes.empty())
        return m_scene->sceneRect().center();
    std::vector<QRectF> rects;
    std::vector<QString> names;
    rects.reserve(boxes.size());
    for (size_t i = 0; i < boxes.size(); ++i) {
        rects.emplace_back(boxes[i].x, boxes[i].y, boxes[i].width, boxes[i].height);
        const GraphNodeItem* item = m_scene->itemAt(int(i));
        const bool named = item && i < layout.view.nodes.size()
            && (layout.view.nodes[i].kind == ViewNode::Kind::Node || layout.view.nodes[i].kind == ViewNode::Kind::Group);
        names.push_back(named ? item->title() : QString());
    }
    std::vector<int> counts(rects.size(), 0);
    int most = 0;
    for (size_t i = 0; i < rects.size(); ++i) {
        const QRectF w(rects[i].center().x() - window.width() / 2, rects[i].top() - 0.15 * window.height(),
            window.width(), window.height());
        QSet<QString> seen;
        for (size_t j = 0; j < rects.size(); ++j)
            if (!names[j].isEmpty() && w.contains(rects[j]))
                seen.insert(names[j]);
        counts[i] = int(seen.size());
        most = std::max(most, counts[i]);
    }
    size_t best = 0;
    for (size_t i = 0; i < rects.size(); ++i)
        if (counts[i] * 10 >= most * 9 && (counts[best] * 10 < most * 9 || rects[i].top() < rects[best].top()))
            best = i;
    return QPointF(rects[best].center().x(), rects[best].top());
}

void GraphPane::onLayoutFinished(quint64, const ViewLayoutPtr& layout)
{
    const GraphSource* s = source();
    const QSize port = m_view->viewport()->size();
    const bool judged = port.width() >= 300 && port.height() >= 200; // a pane not shown yet cannot tell
    if (m_firstView && m_mode == Mode::Computations && s && judged && m_firstViewTries < 2) {
        // A first view that does not fit legibly: fewer, bigger groups, while that is possible.
        const double width = layout->layout.width + 44, height = layout->layout.height + 44;
        const double fit = std::min({ (port.width() - 4) / width, (port.height() - 4) / height, 1.0 });
        const auto shown = int64_t(layout->view.nodes.size());
        // More than three times the canvas: half the boxes (the drawing at the legible zoom scrolls
        // a little, never across many screens).
        if (fit < GraphView::kLegibleZoom / 3) {
            const int64_t budget = std::max<int64_t>(kMinFirstView, shown / 2);
            std::vector<uint8_t> fewer = firstViewExpansion(budget);
            const int64_t left = s->hierarchy.visibleCount(fewer);
            if (budget < shown && left < shown && left >= kMinFirstView) {
                ++m_firstViewTries;
                m_expanded = std::move(fewer);
                rebuild(true);
                return;
            }
        }
    }
    m_placeholderTimer->stop();
    m_view->setPlaceholder({});
    m_scene->showLayout(layout);
    m_scene->setHighlighted(m_highlighted);
    m_view->sceneReplaced();
    m_lastLayoutMs = QDateTime::currentMSecsSinceEpoch() - m_requestStarted;
    qCDebug(lcGraphView) << "layout of" << layout->view.nodes.size() << "boxes shown after" << m_lastLayoutMs << "ms";
    const int64_t pending = m_pendingSelection;
    m_pendingSelection = -1;
    if (m_pendingFit) {
        if (m_firstView && judged)
            m_view->showFirstView(firstViewAnchor(*layout));
        else
            m_view->fitToView();
    }
    m_pendingFit = false;
    m_firstView = m_firstView && !judged; // judged once the pane has its size
    if (pending >= 0) {
        m_scene->selectNode(pending);
        if (GraphNodeItem* item = m_scene->itemForNode(pending))
            m_view->centreOnSceneRect(item->sceneBoundingRect());
    } else if (m_focusGroup >= 0) {
        // An opened group in place: its frame (or its nodes) in sight, never an empty view.
        const QRectF rect = groupRect(m_focusGroup);
        if (!rect.isNull()) {
            const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
            if (!visible.contains(rect)) {
                const double fit = std::min(port.width() / (rect.width() + 40), port.height() / (rect.height() + 40));
                if (fit >= GraphView::kLegibleZoom && fit < m_view->zoom())
                    m_view->setZoom(std::min(fit, 1.0));
                else if (m_view->zoom() < GraphView::kLegibleZoom)
                    m_view->setZoom(GraphView::kLegibleZoom);
                const QRectF now = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
                m_view->centerOn(rect.center().x(),
                    rect.height() <= now.height() ? rect.center().y() : rect.top() + now.height() / 2 - 20);
            }
        }
    }
    m_focusGroup = -1;
    updateBreadcrumbs();
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
        else
            m_focusGroup = v.group;
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
    m_firstView = false;
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

void GraphPane::setNodeColors(std::vector<QColor> colors, QColor neutral)
{
    m_scene->setNodeColors(std::move(colors), neutral);
}

void GraphPane::setHighlighted(const std::vector<int64_t>& nodes)
{
    m_highlighted = nodes;
    m_scene->setHighlighted(nodes);
}

} // namespace tgraph::widgets
