// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

class QWidget;

namespace tgraph::studio {

// `tgraph render --view scatter|tau-strip|attention|cross-attention|curves`: the inference panel's views
// drawn offscreen to PNG or SVG, for reports and tests. The results come from running the model
// (`weights` on `input`: a graph file, or for tau-strip a collection directory) or from an
// inference run stored in a project (`project` + `run`).
struct AnalysisRenderRequest
{
    QString view; // scatter, scatter-score, tau-strip, attention, cross-attention, curves, explain
    QString input; // graph file or collection directory
    QStringList weights;
    QString project;
    QString run; // curves: one or more runs, comma-separated
    QString sweep; // parallel-coordinates, sweep: the sweep (id, prefix or name)
    QString metric = QStringLiteral("train/loss"); // curves: context/key
    double smoothing = 0.6; // curves: debiased EMA weight
    QString xAxis = QStringLiteral("step"); // curves: step, relative or wall
    bool logY = false; // curves
    QString configA = QStringLiteral("fastest"); // explain: config id, fastest, slowest or default
    QString configB = QStringLiteral("default");
    QString output; // .png or .svg
    int width = 1000;
    int height = 800;
};

bool isAnalysisView(const QString& view);
// Writes the view; false with `error` naming the file and the problem. Needs a QApplication.
bool renderAnalysis(const AnalysisRenderRequest& request, QString* error);

// Writes `widget` (resized to width x height) as PNG or SVG.
bool writeWidgetImage(QWidget* widget, const QString& output, int width, int height, QString* error);

} // namespace tgraph::studio
