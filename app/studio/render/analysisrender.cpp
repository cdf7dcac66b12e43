// SPDX-License-Identifier: Apache-2.0
#include "app/studio/render/analysisrender.h"

#include "app/studio/analysis/explainpanel.h"
#include "app/studio/render/headlessrender.h"
#include "app/studio/analysis/inferencepanel.h"
#include "app/studio/render/monitorrender.h"

#include "core/view/graphdocument.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/widgetimage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphview.h"
#include "widgets/analysis/heatmapview.h"
#include "widgets/graph/nodeoverlay.h"
#include "widgets/analysis/rankscatterview.h"
#include "widgets/analysis/taustripview.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QTabWidget>
#include <QVBoxLayout>

namespace tgraph::studio {

using namespace tgraph::widgets;

bool isAnalysisView(const QString& view)
{
    static const QStringList views { QStringLiteral("scatter"), QStringLiteral("scatter-score"),
        QStringLiteral("tau-strip"), QStringLiteral("attention"), QStringLiteral("cross-attention"),
        QStringLiteral("curves"), QStringLiteral("explain"), QStringLiteral("node-attention"),
        QStringLiteral("parallel-coordinates"), QStringLiteral("sweep") };
    return views.contains(view);
}

bool writeWidgetImage(QWidget* widget, const QString& output, int width, int height, QString* error)
{
    widget->resize(width, height);
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    widget->show();
    QCoreApplication::processEvents();
    widget->resize(width, height);
    for (int i = 0; i < 4; ++i) // layouts that settle over a few queued passes (square plot areas)
        QCoreApplication::processEvents();
    return WidgetImage::save(widget, output, QStringLiteral("TGraph Studio"), error);
}

bool renderAnalysis(const AnalysisRenderRequest& request, QString* error)
{
    const auto fail = [&](const QString& message) {
        *error = message;
        return false;
    };
    const QString suffix = QFileInfo(request.output).suffix().toLower();
    if (suffix != QStringLiteral("png") && suffix != QStringLiteral("svg"))
        return fail(request.output + QStringLiteral(": the output must end in .png or .svg"));
    if (!isAnalysisView(request.view))
        return fail(QStringLiteral("unknown view '%1'").arg(request.view));

    if (request.view == QStringLiteral("parallel-coordinates") || request.view == QStringLiteral("sweep")) {
        if (request.project.isEmpty() || request.sweep.isEmpty())
            return fail(QStringLiteral("--view %1 needs --project P --sweep SWEEP").arg(request.view));
        return renderSweep(request.project, request.sweep, request.view, request.output,
            request.view == QStringLiteral("sweep") ? std::max(request.width, 1366) : request.width,
            request.view == QStringLiteral("sweep") ? std::max(request.height, 768) : std::min(request.height, 500),
            error);
    }
    if (request.view == QStringLiteral("curves")) {
        if (request.project.isEmpty())
            return fail(QStringLiteral("--view curves needs --project P [--run RUN[,RUN...]]"));
        RunCurvesRenderOptions options;
        options.metric = request.metric;
        options.smoothing = request.smoothing;
        options.logY = request.logY;
        if (!parseCurveXAxis(request.xAxis, &options.xAxis))
            return fail(QStringLiteral("--x must be step, relative or wall, not '%1'").arg(request.xAxis));
        options.width = request.width;
        options.height = request.height;
        // No run named: every run of the project (renderRunCurves).
        return renderRunCurves(
            request.project, request.run.split(QLatin1Char(','), Qt::SkipEmptyParts), request.output, error, options);
    }
    if (request.view == QStringLiteral("explain")) {
        if (request.weights.isEmpty() || request.input.isEmpty())
            return fail(QStringLiteral("--view explain needs a layout graph FILE and --weights W"));
        ExplainPanel panel;
        ExplainRequest context;
        context.file = request.input.toStdString();
        for (const QString& w : request.weights)
            context.weights.push_back(w.toStdString());
        panel.setContext(std::move(context));
        panel.setConfigs(request.configA, request.configB);
        QEventLoop loop;
        QObject::connect(&panel, &ExplainPanel::finished, &loop, &QEventLoop::quit);
        panel.run();
        if (panel.isRunning())
            loop.exec();
        if (!panel.outcome())
            return fail(panel.banner()->text().isEmpty() ? QStringLiteral("the explanation did not finish")
                                                         : panel.banner()->text());
        QString failure;
        if (!waitForGraphLayouts({ panel.graphPane() }, &failure))
            return fail(request.input + QStringLiteral(": layout failed: ") + failure);
        // The whole model graph in its pane, at the size written.
        const int width = std::max(request.width, 1500);
        const int height = std::max(request.height, 900);
        panel.resize(width, height);
        panel.setAttribute(Qt::WA_DontShowOnScreen);
        panel.show();
        QCoreApplication::processEvents();
        panel.graphPane()->view()->fitToView();
        return writeWidgetImage(&panel, request.output, width, height, error);
    }
    InferencePanel panel;
    tgraph::GraphDocumentPtr document; // the single graph scored (node-attention draws it)
    if (request.view == QStringLiteral("node-attention")
        && (request.input.isEmpty() || QFileInfo(request.input).isDir()))
        return fail(QStringLiteral("--view node-attention needs one graph FILE and --weights W"));
    if (!request.project.isEmpty() && !request.run.isEmpty()) {
        if (!panel.openStoredRun(request.project, request.run))
            return fail(panel.banner()->text());
    } else {
        if (request.weights.isEmpty())
            return fail(QStringLiteral("--view %1 needs --weights W (or --project P --run R)").arg(request.view));
        if (request.input.isEmpty())
            return fail(QStringLiteral("--view %1 needs a graph file or a collection directory").arg(request.view));
        if (QFileInfo(request.input).isDir()) {
            panel.setDocuments({}, nullptr);
            panel.setCollection(request.input);
        } else {
            try {
                auto docs = tgraph::openGraphDocuments(request.input.toStdString());
                if (docs.empty())
                    return fail(request.input + QStringLiteral(": holds no graph"));
                document = std::move(docs.front());
                panel.setDocuments({ document }, document);
                if (document->configCount() < 2 && document->module)
                    panel.setConfigSet(ConfigSetKind::Generate, 200);
            } catch (const std::exception& e) {
                return fail(QString::fromStdString(e.what()));
            }
        }
        panel.setModelFiles(request.weights);
        QEventLoop loop;
        QObject::connect(&panel, &InferencePanel::finished, &loop, &QEventLoop::quit);
        panel.run();
        if (panel.isRunning())
            loop.exec();
        if (!panel.outcome())
            return fail(
                panel.banner()->text().isEmpty() ? QStringLiteral("inference did not finish") : panel.banner()->text());
    }
    if (request.view == QStringLiteral("node-attention")) {
        // The model's graph (pruned) coloured by each node's channel gate, mean over layers,
        // channels and configs, with its colour bar.
        panel.setAttentionMode(1);
        panel.setNodeOverlay(1);
        const NodeOverlay overlay = panel.nodeOverlay();
        if (overlay.isEmpty())
            return fail(request.input
                + QStringLiteral(": no per-node attention to draw (a model of the zoo other than TGraph, ")
                + QStringLiteral(
                    "which alone has attention, too many configs x nodes, or not a layout or tile graph)"));
        QWidget page;
        auto* layout = new QVBoxLayout(&page);
        auto* pane = new GraphPane;
        auto* bar = new OverlayColorBar;
        layout->addWidget(pane, 1);
        layout->addWidget(bar);
        const bool pruned = document->kind == tgraph::GraphKind::Layout && document->pruned;
        pane->setDocument(document, pruned ? tgraph::GraphSource::Kind::Pruned : tgraph::GraphSource::Kind::Full);
        pane->setOverlay(&overlay);
        bar->setOverlay(overlay);
        QString failure;
        if (!waitForGraphLayouts({ pane }, &failure))
            return fail(request.input + QStringLiteral(": layout failed: ") + failure);
        const int width = std::max(request.width, 1200);
        const int height = std::max(request.height, 900);
        page.resize(width, height);
        page.setAttribute(Qt::WA_DontShowOnScreen);
        page.show();
        QCoreApplication::processEvents();
        pane->view()->fitToView();
        return writeWidgetImage(&page, request.output, width, height, error);
    }
    QWidget* widget = nullptr;
    if (request.view == QStringLiteral("scatter") || request.view == QStringLiteral("scatter-score")) {
        panel.scatter()->tabs()->setCurrentIndex(request.view == QStringLiteral("scatter") ? 0 : 1);
        widget = panel.scatter();
    } else if (request.view == QStringLiteral("tau-strip")) {
        widget = panel.tauStrip();
    } else {
        widget = request.view == QStringLiteral("attention") ? panel.channelHeatmap() : panel.crossHeatmap();
        if (static_cast<HeatmapView*>(widget)->data().rows() == 0)
            return fail((request.input.isEmpty() ? request.project : request.input)
                + QStringLiteral(": no attention maps to draw (") + static_cast<HeatmapView*>(widget)->data().title
                + QStringLiteral("; only TGraph models have them)"));
    }
    widget->setParent(nullptr);
    const bool ok = writeWidgetImage(widget, request.output, request.width, request.height, error);
    delete widget;
    return ok;
}

} // namespace tgraph::studio
