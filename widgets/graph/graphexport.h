// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QImage>
#include <QList>
#include <QString>

class QGraphicsScene;

namespace tgraph::widgets {

// Renders whole graph scenes (side by side, each under its title) to an image or an SVG file.
namespace GraphExport {

constexpr double kTitleHeight = 28; // the strip above each panel holding its title
constexpr double kGap = 24; // between panels

struct Panel
{
    QGraphicsScene* scene = nullptr;
    QString title;
};

// The width a panel takes: its scene, or its title when that is wider (scene points).
double panelWidth(const Panel& panel);
// At `scale` view pixels per scene point; the image is capped at `maxSide` pixels per side.
QImage renderImage(const QList<Panel>& panels, double scale = 1.0, int maxSide = 16000);
// Writes an SVG drawing of the panels; false with `error` set when the file cannot be written.
bool writeSvg(const QList<Panel>& panels, const QString& path, QString* error);
// Writes a PNG; false with `error` set when it cannot be written.
bool writePng(const QList<Panel>& panels, const QString& path, QString* error);

} // namespace GraphExport

} // namespace tgraph::widgets
