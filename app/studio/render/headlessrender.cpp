// SPDX-License-Identifier: Apache-2.0
#include "app/studio/render/headlessrender.h"

#include "app/studio/common/studiolog.h"

#include "widgets/graph/graphexport.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/graphscene.h"

#include "core/view/graphdocument.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

constexpr int kLayoutTimeoutMs = 120000;

} // namespace

bool waitForGraphLayouts(const QList<GraphPane*>& panes, QString* failure)
{
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    for (GraphPane* pane : panes) {
        QObject::connect(pane, &GraphPane::layoutShown, &loop, [&loop, panes] {
            for (GraphPane* p : panes)
                if (p->isLayoutPending())
                    return;
            loop.quit();
        });
        QObject::connect(pane, &GraphPane::layoutFailed, &loop, [&loop, failure](const QString& message) {
            *failure = message;
            loop.quit();
        });
    }
    const auto pending = [&panes] {
        for (GraphPane* p : panes)
            if (p->isLayoutPending())
                return true;
        return false;
    };
    if (pending()) {
        timeout.start(kLayoutTimeoutMs);
        loop.exec();
    }
    if (failure->isEmpty() && pending())
        *failure = QStringLiteral("the layout took longer than %1 s").arg(kLayoutTimeoutMs / 1000);
    return failure->isEmpty();
}

bool renderGraph(const RenderRequest& request, RenderResult* result, QString* error)
{
    const QString name = QFileInfo(request.input).fileName();
    const auto fail = [&](const QString& file, const QString& problem) {
        *error = file + QStringLiteral(": ") + problem;
        return false;
    };
    const QString suffix = QFileInfo(request.output).suffix().toLower();
    if (suffix != QStringLiteral("png") && suffix != QStringLiteral("svg"))
        return fail(request.output, QStringLiteral("the output must end in .png or .svg"));
    const QStringList views { QStringLiteral("graph"), QStringLiteral("pruned"), QStringLiteral("split"),
        QStringLiteral("computations") };
    if (!views.contains(request.view))
        return fail(request.input,
            QStringLiteral("unknown view '%1' (graph, pruned, split or computations)").arg(request.view));
    if (request.radius < 1 || request.radius > 3)
        return fail(request.input, QStringLiteral("the radius must be 1, 2 or 3"));
    const bool canvas = request.canvas.isValid();
    if (canvas && (request.canvas.width() < 200 || request.canvas.height() < 150 || request.canvas.width() > 8000
            || request.canvas.height() > 8000))
        return fail(request.input, QStringLiteral("the canvas must be 200x150 to 8000x8000 pixels"));
    if (canvas && (suffix != QStringLiteral("png") || request.view == QStringLiteral("split")))
        return fail(request.output, QStringLiteral("a canvas is drawn as a PNG of one pane (not the split view)"));

    tgraph::GraphDocumentPtr document;
    try {
        auto documents = tgraph::openGraphDocuments(request.input.toStdString());
        if (request.module < 0 || request.module >= int(documents.size()))
            return fail(request.input,
                QStringLiteral("module %1 asked for; the file holds %2").arg(request.module).arg(documents.size()));
        document = std::move(documents[size_t(request.module)]);
    } catch (const std::exception& e) {
        const QString message = QString::fromStdString(e.what());
        *error = message.contains(name) ? message : name + QStringLiteral(": ") + message;
        return false;
    }

    int64_t node = -1;
    if (!request.node.isEmpty()) {
        node = document->findNode(request.node.toStdString());
        if (node < 0)
            return fail(request.input, QStringLiteral("no node named '%1'").arg(request.node));
    }
    const bool wantsPruned = request.view == QStringLiteral("pruned") || request.view == QStringLiteral("split");
    if (wantsPruned && !document->pruned)
        return fail(
            request.input, QStringLiteral("no pruned graph: %1").arg(QString::fromStdString(document->pruneError)));
    if (request.view == QStringLiteral("pruned") && node >= 0 && !document->pruned->contains(node))
        return fail(request.input, QStringLiteral("node '%1' is not in the pruned graph").arg(request.node));

    QList<GraphPane*> panes;
    GraphPane full;
    GraphPane pruned;
    if (request.view != QStringLiteral("pruned"))
        panes << &full;
    if (wantsPruned)
        panes << &pruned;
    for (GraphPane* pane : panes) {
        if (canvas) { // the pane as the studio shows it, its drawing area of the canvas's size
            pane->resize(request.canvas + QSize(0, pane->sizeHint().height() - pane->view()->sizeHint().height()));
            pane->show();
            const QSize port = pane->view()->viewport()->size();
            pane->resize(pane->size() + request.canvas - port);
        } else {
            pane->resize(1200, 900);
        }
        pane->setDocument(
            document, pane == &pruned ? tgraph::GraphSource::Kind::Pruned : tgraph::GraphSource::Kind::Full);
        if (request.view == QStringLiteral("computations"))
            pane->collapseAll();
        if (node >= 0 && pane->source()->contains(node)) {
            pane->showNeighbourhood(node, request.radius);
            pane->selectNode(node, false);
        }
    }
    if (request.view == QStringLiteral("split"))
        full.setRemovedOutside(&*document->pruned);
    QString failure;
    if (!waitForGraphLayouts(panes, &failure))
        return fail(request.input, QStringLiteral("layout failed: %1").arg(failure));

    if (canvas) {
        GraphPane* pane = panes.front();
        QWidget* port = pane->view()->viewport();
        result->image = port->grab().toImage();
        if (const ViewLayout* layout = pane->scene()->viewLayout())
            for (const tgraph::ViewNode& v : layout->view.nodes) {
                if (v.kind != tgraph::ViewNode::Kind::Node)
                    continue;
                ++result->nodesDrawn;
                if (GraphNodeItem* item = pane->scene()->itemForNode(v.node)) {
                    const QRectF box = pane->view()->mapFromScene(item->rect()).boundingRect();
                    if (box.intersects(QRectF(port->rect())))
                        result->nodeBoxes.emplace(v.node, box);
                }
            }
        if (!result->image.save(request.output, "PNG"))
            return fail(request.output, QStringLiteral("cannot write the PNG file"));
        return true;
    }
    QList<GraphExport::Panel> panels;
    for (GraphPane* pane : panes)
        panels.append({ pane->scene(), pane->titleText() });
    result->image = GraphExport::renderImage(panels, 1.0);
    // Node boxes in image pixels: panels side by side under a title strip (see GraphExport).
    double x = 0;
    for (GraphPane* pane : panes) {
        const QRectF scene = pane->scene()->sceneRect();
        if (const ViewLayout* layout = pane->scene()->viewLayout()) {
            for (const tgraph::ViewNode& v : layout->view.nodes) {
                if (v.kind != tgraph::ViewNode::Kind::Node)
                    continue;
                ++result->nodesDrawn;
                if (GraphNodeItem* item = pane->scene()->itemForNode(v.node))
                    result->nodeBoxes.emplace(
                        v.node, item->rect().translated(x - scene.left(), GraphExport::kTitleHeight - scene.top()));
            }
        }
        x += GraphExport::panelWidth({ pane->scene(), pane->titleText() }) + GraphExport::kGap;
    }
    QString writeError;
    const bool ok = suffix == QStringLiteral("svg") ? GraphExport::writeSvg(panels, request.output, &writeError)
                                                    : GraphExport::writePng(panels, request.output, &writeError);
    if (!ok) {
        *error = writeError;
        return false;
    }
    qCDebug(lcStudio) << "rendered" << result->nodesDrawn << "nodes of" << request.input << "to" << request.output;
    return true;
}

} // namespace tgraph::studio
