// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/runs/runcurvedata.h"

#include <QString>
#include <QStringList>

namespace tgraph::studio {

// How `renderRunCurves` draws: the training monitor's curves chart and its controls.
struct RunCurvesRenderOptions
{
    QString metric = QStringLiteral("train/loss"); // context/key: valid/tau, valid/opa, train/lr, ...
    double smoothing = 0.6; // TensorBoard's debiased EMA weight, 0..0.999
    widgets::CurveXAxis xAxis = widgets::CurveXAxis::Step;
    bool logY = false;
    bool ignoreOutliers = false;
    int width = 1000;
    int height = 600;
};

// A sweep of a project (id, id prefix or name) drawn offscreen into a PNG or SVG file, for
// `tgraph render --view parallel-coordinates|sweep --project P --sweep SWEEP`: the
// parallel-coordinates plot alone, or the whole Sweep view (docs/studio.md §2.8). False with
// `error` naming the file and the problem (no such project or sweep, a bad output name).
bool renderSweep(const QString& projectPath, const QString& sweep, const QString& view, const QString& outputPngOrSvg,
    int width, int height, QString* error);

// "step", "relative" or "wall" (as `--x` would take them); false for anything else.
bool parseCurveXAxis(const QString& name, widgets::CurveXAxis* axis);

// The training monitor's curves of project runs (ids, unique id prefixes or names; none: every
// run of the project, oldest first; a cross-validation run draws its folds) drawn offscreen into a
// PNG or SVG file, for `tgraph render --view curves`. False with `error` naming the file and the
// problem: the output is neither .png nor .svg, the project cannot be read or has no runs, a run
// is not in it, no run logged the metric (the error lists the ones they did log). Needs a
// QApplication (the offscreen platform does).
bool renderRunCurves(const QString& projectPath, const QStringList& runIdsOrNames, const QString& outputPngOrSvg,
    QString* error, const RunCurvesRenderOptions& options = {});

} // namespace tgraph::studio
