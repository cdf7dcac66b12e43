// SPDX-License-Identifier: Apache-2.0
#include "app/studio/render/monitorrender.h"

#include "app/studio/runs/runpoller.h"

#include "widgets/common/widgetimage.h"
#include "widgets/runs/parallelcoordinatesview.h"
#include "widgets/runs/runcurvesview.h"
#include "widgets/runs/sweepview.h"

#include "core/util/error.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>
#include <memory>

namespace tgraph::studio {

using namespace tgraph::widgets;

bool parseCurveXAxis(const QString& name, CurveXAxis* axis)
{
    if (name == QStringLiteral("step"))
        *axis = CurveXAxis::Step;
    else if (name == QStringLiteral("relative"))
        *axis = CurveXAxis::RelativeTime;
    else if (name == QStringLiteral("wall"))
        *axis = CurveXAxis::WallTime;
    else
        return false;
    return true;
}

bool renderSweep(const QString& projectPath, const QString& sweep, const QString& view, const QString& outputPngOrSvg,
    int width, int height, QString* error)
{
    const QString suffix = QFileInfo(outputPngOrSvg).suffix().toLower();
    if (suffix != QStringLiteral("png") && suffix != QStringLiteral("svg")) {
        *error = outputPngOrSvg + QStringLiteral(": the output must end in .png or .svg");
        return false;
    }
    if (!QFileInfo(projectPath).isFile()) {
        *error = projectPath + QStringLiteral(": no such project file");
        return false;
    }
    SweepViewData data;
    try {
        data = readSweepView(projectPath, sweep, QStringLiteral("valid/tau"));
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
    std::unique_ptr<QWidget> widget;
    if (view == QStringLiteral("parallel-coordinates")) {
        auto* plot = new ParallelCoordinatesView;
        plot->setSweep(data.summary);
        widget.reset(plot);
    } else {
        auto* whole = new SweepView;
        whole->setData(data);
        widget.reset(whole);
    }
    widget->resize(std::max(300, width), std::max(200, height));
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    widget->show();
    for (int i = 0; i < 4; ++i)
        QCoreApplication::processEvents();
    return WidgetImage::save(widget.get(), outputPngOrSvg, QStringLiteral("TGraph Studio: sweep"), error);
}

bool renderRunCurves(const QString& projectPath, const QStringList& runIdsOrNames, const QString& outputPngOrSvg,
    QString* error, const RunCurvesRenderOptions& options)
{
    const auto fail = [error](const QString& message) {
        *error = message;
        return false;
    };
    const QString suffix = QFileInfo(outputPngOrSvg).suffix().toLower();
    if (suffix != QStringLiteral("png") && suffix != QStringLiteral("svg"))
        return fail(outputPngOrSvg + QStringLiteral(": the output must end in .png or .svg"));
    if (!QFileInfo(projectPath).isFile())
        return fail(projectPath + QStringLiteral(": no such project file"));
    if (!options.metric.contains(QLatin1Char('/')))
        return fail(
            QStringLiteral("metric '%1': give it as context/key, e.g. train/loss or valid/tau").arg(options.metric));

    QStringList runs = runIdsOrNames;
    if (runs.isEmpty()) {
        // Every run of the project (the table's runs: folds are drawn with their run), oldest first.
        const RunSnapshot all = RunPoller::read(projectPath, {}, options.metric);
        if (!all.error.isEmpty())
            return fail(all.error);
        for (auto it = all.runs.rbegin(); it != all.runs.rend(); ++it)
            runs << QString::fromStdString(it->record.id);
        if (runs.isEmpty())
            return fail(projectPath + QStringLiteral(": the project has no runs to draw"));
    }
    const RunSnapshot snapshot = RunPoller::read(projectPath, runs, options.metric);
    if (!snapshot.error.isEmpty())
        return fail(snapshot.error);
    if (!snapshot.missingRuns.isEmpty())
        return fail(projectPath
            + QStringLiteral(": no run '%1' (not the id, a unique id prefix or the name of a run)")
                  .arg(snapshot.missingRuns.join(QStringLiteral("', '"))));
    const bool any = std::any_of(
        snapshot.curves.begin(), snapshot.curves.end(), [](const RunCurve& c) { return !c.series.points.empty(); });
    if (!any)
        return fail(projectPath
            + QStringLiteral(": the runs logged no %1 (they logged: %2)")
                  .arg(options.metric,
                      snapshot.metricKeys.isEmpty() ? QStringLiteral("nothing yet")
                                                    : snapshot.metricKeys.join(QStringLiteral(", "))));

    RunCurvesView view;
    view.setSmoothing(options.smoothing);
    view.setXAxis(options.xAxis);
    view.setLogY(options.logY);
    view.setIgnoreOutliers(options.ignoreOutliers);
    view.setCurves(snapshot.curves);
    view.resize(std::max(200, options.width), std::max(150, options.height));
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.show();
    // Lay the chart out at its size, fit the legend's names to the room it leaves (queued after
    // the layout, LegendNames) and lay it out again with them.
    for (int pass = 0; pass < 3; ++pass)
        QCoreApplication::processEvents();
    return WidgetImage::save(&view, outputPngOrSvg, QStringLiteral("TGraph Studio: training curves"), error);
}

} // namespace tgraph::studio
