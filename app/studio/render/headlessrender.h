// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QImage>
#include <QList>
#include <QRectF>
#include <QSize>
#include <QString>

#include <cstdint>
#include <map>

namespace tgraph::widgets {
class GraphPane;
}

namespace tgraph::studio {

// `tgraph-studio --render FILE -o OUT.png|svg`: draws a graph with the studio's own widgets
// offscreen, for reports and for tests.
struct RenderRequest
{
    QString input;
    QString output; // .png or .svg
    QString view = QStringLiteral("graph"); // graph | pruned | split | computations
    QString node; // name or #id: the neighbourhood of this node
    int radius = 2;
    int module = 0; // which module of a file holding several
    // Valid: draw what a graph view's canvas of this size shows as it opens (the first view at the
    // zoom the studio opens it at, docs/studio.md §1.2), as a PNG; invalid: the whole drawing.
    QSize canvas;
};

struct RenderResult
{
    QImage image; // as written for PNG; also filled for SVG
    // Where each drawn node's box ended up in `image`, by full-graph node id (first panel wins).
    std::map<int64_t, QRectF> nodeBoxes;
    int64_t nodesDrawn = 0;
};

// Renders `request` (waiting for the layouts in a local event loop). Returns false with `error`
// naming the file and the problem: unreadable input, unknown view or node, no pruned graph, an
// output that cannot be written. Needs a QApplication.
bool renderGraph(const RenderRequest& request, RenderResult* result, QString* error);

// Runs a local event loop until every pane has drawn its layout (or one failed: false with
// `failure` set, also after two minutes).
bool waitForGraphLayouts(const QList<widgets::GraphPane*>& panes, QString* failure);

} // namespace tgraph::studio
