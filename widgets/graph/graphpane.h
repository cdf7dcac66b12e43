// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/graph/layoutrunner.h"

#include "core/view/graphdocument.h"

#include <QWidget>

#include <functional>

class QMenu;
class QLabel;
class QTimer;

namespace tgraph::widgets {

class GraphScene;
class GraphView;
class NodeOverlay;
class ElidedLabel;

// One graph drawing of a document's full or pruned graph, with a title giving its node and edge
// counts. Never lays out more than kMaxViewNodes boxes: big graphs start as collapsed
// computations (double-click a box to open it), or show the neighbourhood of a node, or the paths
// between two nodes. Layouts run in the background; a newer request drops an older result.
class GraphPane : public QWidget
{
    Q_OBJECT
public:
    enum class Mode { Computations, Neighbourhood, Paths };
    // The first view of a graph (docs/studio.md §1.2) opens groups within a budget of boxes that
    // the canvas can about show legibly (GraphView::kLegibleZoom): from kMinFirstView to
    // kMaxFirstView boxes by the canvas's area, half as many when the drawing comes out more than
    // three times too big.
    static constexpr int64_t kMinFirstView = 16;
    static constexpr int64_t kMaxFirstView = 60;
    static constexpr int64_t kMaxViewNodes = 2000; // expansions beyond this are refused
    // A graph of up to this many nodes whose hierarchy has no named groups (no op_name scopes, no
    // blocks: only computations) opens whole: its boxes would have nothing to be called by.
    static constexpr int64_t kWholeGraphNodes = 200;

    explicit GraphPane(QWidget* parent = nullptr);

    void setDocument(tgraph::GraphDocumentPtr document, tgraph::GraphSource::Kind kind);
    const tgraph::GraphDocumentPtr& document() const { return m_document; }
    const tgraph::GraphSource* source() const;
    bool isPrunedPane() const { return m_kind == tgraph::GraphSource::Kind::Pruned; }

    Mode mode() const { return m_mode; }
    int radius() const { return m_radius; }
    int64_t centreNode() const { return m_centre; }
    QString titleText() const;
    QString noteText() const;

    // Computation view with the first groups opened within `budget` boxes (-1: the first view,
    // legible at its canvas's size).
    void showComputations(int64_t budget = -1);
    // The budget of boxes of a first view on this pane's canvas.
    int64_t firstViewBudget() const;
    // The hierarchy's first view within `budget` boxes (for an .npz graph, down to blocks, not nodes).
    std::vector<uint8_t> firstViewExpansion(int64_t budget) const;
    // Whether `hierarchy` has groups named by the graph itself (op_name scopes, .npz blocks).
    static bool hasNamedGroups(const tgraph::NodeHierarchy& hierarchy);
    // Opens every collapsed group like `group` (NodeHierarchy::similarGroups) within kMaxViewNodes.
    void openSimilarGroups(int32_t group);
    // Brings group `group` into sight: its box or its open frame, opening its ancestors if needed.
    void focusGroup(int32_t group);
    // The breadcrumb bar's text (the groups around the selection, outermost first).
    QString breadcrumbText() const;
    // Every computation collapsed to one box.
    void collapseAll();
    void showNeighbourhood(int64_t node, int radius);
    void showPaths(int64_t from, int64_t to);
    // Selects `node` (a full-graph id), changing the view to one that shows it when needed;
    // `centre` scrolls it into the middle. False when the node is not in this pane's graph.
    bool selectNode(int64_t node, bool centre = true);
    int64_t selectedNode() const;
    // What a double click on view box `viewIndex` does: open a group, expand a node's embedded
    // computations, widen around a "more" marker, jump to an alias's original.
    void activateViewNode(int viewIndex);
    // What a double click inside an open group's frame does: collapse the group again.
    void collapseCluster(int clusterIndex);

    void setRemovedOutside(const tgraph::GraphSource* kept);
    void setOverlay(const NodeOverlay* overlay);
    void setHighlighted(const std::vector<int64_t>& nodes);
    // GraphScene::setNodeColors: colours by a diff's kinds instead of by opcode.
    void setNodeColors(std::vector<QColor> colors, QColor neutral);

    GraphScene* scene() const { return m_scene; }
    GraphView* view() const { return m_view; }
    LayoutRunner* runner() const { return m_runner; }
    bool isLayoutPending() const;
    // Time from the last request to its drawing, in milliseconds (-1 before the first).
    qint64 lastLayoutMs() const { return m_lastLayoutMs; }

    // Adds the caller's actions to the context menu of a node (node id of the document), e.g. the
    // studio's "History across Passes" for a stage of a dump folder; none by default.
    using NodeMenuHook = std::function<void(QMenu& menu, qint64 node)>;
    void setNodeMenuHook(NodeMenuHook hook) { m_nodeMenuHook = std::move(hook); }

Q_SIGNALS:
    void nodeSelected(qint64 node);
    void layoutShown();
    void message(const QString& text); // for the status bar
    void layoutFailed(const QString& message);

private:
    void refreshMinimap();
    void rebuild(bool fit);
    void updateBreadcrumbs();
    void showContextMenu(int viewIndex, int clusterIndex, const QPoint& screenPos);
    // Where the first view is anchored: the top of the drawing, where most boxes are.
    QPointF firstViewAnchor(const ViewLayout& layout) const;
    // The scene rectangle of group `group` as drawn (its box, its frame, or its nodes), null if not shown.
    QRectF groupRect(int32_t group) const;
    void onLayoutFinished(quint64 id, const ViewLayoutPtr& layout);
    void onLayoutFailed(quint64 id, const QString& message);
    void updateTitle();

    tgraph::GraphDocumentPtr m_document;
    NodeMenuHook m_nodeMenuHook;
    tgraph::GraphSource::Kind m_kind = tgraph::GraphSource::Kind::Full;
    Mode m_mode = Mode::Computations;
    std::vector<uint8_t> m_expanded;
    int m_radius = 2;
    int64_t m_centre = -1;
    int64_t m_pathEnd = -1;
    int64_t m_pendingSelection = -1;
    bool m_pendingFit = true;
    bool m_firstView = false; // the layout requested is (a try at) the first view
    int m_firstViewTries = 0;
    int32_t m_focusGroup = -1; // after the next layout: bring this group into sight
    std::vector<int64_t> m_highlighted;
    QString m_note;
    qint64 m_lastLayoutMs = -1;
    qint64 m_requestStarted = 0;

    ElidedLabel* m_title = nullptr;
    ElidedLabel* m_noteLabel = nullptr;
    QLabel* m_crumbs = nullptr;
    GraphScene* m_scene = nullptr;
    GraphView* m_view = nullptr;
    LayoutRunner* m_runner = nullptr;
    QTimer* m_placeholderTimer = nullptr;
    int m_pendingNodes = 0;
};

} // namespace tgraph::widgets
