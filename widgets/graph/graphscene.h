// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/graph/layoutrunner.h"
#include "widgets/graph/nodeoverlay.h"

#include "core/view/graphdocument.h"
#include "core/view/nodehierarchy.h"

#include <QGraphicsScene>

#include <unordered_map>
#include <vector>

namespace tgraph::widgets {

class GraphNodeItem;
class GraphEdgeItem;

// The items of one laid-out view graph: node boxes coloured by opcode (or an overlay), edges
// with arrowheads, computation boxes. Names nodes by their full-graph id.
class GraphScene : public QGraphicsScene
{
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    // The box sizes and clusters Graphviz should use for `view` of `source` (nullptr: the full graph).
    static tgraph::LayoutInput layoutInputFor(const tgraph::ViewGraph& view, const tgraph::GraphDocument& document,
        const tgraph::GraphSource* source = nullptr);
    // The two lines of a collapsed group's box: its name, and what it holds ("310 ops · convolution
    // ×12 · add ×40"; for a block of an .npz graph, named by its opcodes, its node range).
    static QString groupTitle(const tgraph::NodeHierarchy::Group& group);
    static QString groupDetail(const tgraph::NodeHierarchy::Group& group);
    // The overlay's mean over a group's nodes (nested groups included), NaN when none has a value.
    static float groupMean(const tgraph::NodeHierarchy& hierarchy, int32_t group, const NodeOverlay& overlay);

    // The document and the source (its full or pruned graph) whose views this scene shows.
    void setDocument(tgraph::GraphDocumentPtr document, const tgraph::GraphSource* source);
    // Replaces the items with those of `layout`; keeps the selected node when it is still shown.
    void showLayout(const ViewLayoutPtr& layout);
    void clearLayout();
    const ViewLayout* viewLayout() const { return m_layout.get(); }

    // Nodes outside `kept` are drawn as removed (the full graph's pane in the split view).
    void setRemovedOutside(const tgraph::GraphSource* kept);
    void setOverlay(const NodeOverlay* overlay);
    // Colours that replace the opcode colours (a diff's kinds, docs/studio.md §11): one per
    // full-graph node (an invalid colour keeps the usual one). A collapsed group takes the most
    // frequent colour of its nodes other than `neutral`, so that a group holding a change reads as
    // changed at the first view; `neutral` when all its nodes have it. Empty: the usual colours.
    void setNodeColors(std::vector<QColor> colors, QColor neutral);
    void setHighlighted(const std::vector<int64_t>& nodes);

    GraphNodeItem* itemForNode(int64_t node) const;
    GraphNodeItem* itemAt(int viewIndex) const;
    int64_t selectedNode() const { return m_selected; }
    // Selects the box of `node` (without emitting nodeSelected); false when it is not shown.
    bool selectNode(int64_t node);

Q_SIGNALS:
    void nodeSelected(qint64 node); // a user click; -1 when the selection was cleared
    void viewNodeActivated(int viewIndex); // double click on a box
    void clusterActivated(int clusterIndex); // double click inside a computation's frame
    // Right click on a box (viewIndex >= 0) or inside an open group's frame (clusterIndex >= 0).
    void contextMenuRequested(int viewIndex, int clusterIndex, const QPoint& screenPos);

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

private:
    void onSelectionChanged();
    void applyColors();
    QColor groupColor(int32_t group) const;

    tgraph::GraphDocumentPtr m_document;
    const tgraph::GraphSource* m_source = nullptr;
    ViewLayoutPtr m_layout;
    std::vector<GraphNodeItem*> m_items; // by view index
    std::vector<GraphEdgeItem*> m_edges;
    std::unordered_map<int64_t, GraphNodeItem*> m_itemOfNode; // Node boxes only
    const tgraph::GraphSource* m_kept = nullptr;
    const NodeOverlay* m_overlay = nullptr;
    std::vector<QColor> m_nodeColors;
    QColor m_neutralColor;
    int64_t m_selected = -1;
    bool m_selecting = false;
};

} // namespace tgraph::widgets
