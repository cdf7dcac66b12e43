// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphexport.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <algorithm>

namespace tgraph::widgets {

namespace {

using GraphExport::kGap;
using GraphExport::kTitleHeight;

QSizeF canvasSize(const QList<GraphExport::Panel>& panels)
{
    double width = 0;
    double height = 0;
    for (const GraphExport::Panel& p : panels) {
        const QRectF r = p.scene->sceneRect();
        width += GraphExport::panelWidth(p) + (width > 0 ? kGap : 0);
        height = std::max(height, r.height());
    }
    return { std::max(width, 1.0), height + kTitleHeight };
}

// Draws the panels in scene points onto `painter`.
void paintPanels(QPainter& painter, const QList<GraphExport::Panel>& panels)
{
    double x = 0;
    QFont font = painter.font();
    font.setPointSizeF(12);
    font.setBold(true);
    for (const GraphExport::Panel& p : panels) {
        const QRectF r = p.scene->sceneRect();
        painter.setFont(font);
        painter.setPen(Qt::black);
        const double width = GraphExport::panelWidth(p);
        painter.drawText(QRectF(x + 4, 0, width - 8, kTitleHeight), Qt::AlignLeft | Qt::AlignVCenter, p.title);
        p.scene->render(&painter, QRectF(x, kTitleHeight, r.width(), r.height()), r);
        x += width + kGap;
    }
}

QString cannotWrite(const QString& path, const QString& why)
{
    return QCoreApplication::translate("GraphExport", "%1: cannot write: %2").arg(QFileInfo(path).fileName(), why);
}

} // namespace

namespace GraphExport {

double panelWidth(const Panel& panel)
{
    // About 9 points per character of the 12 pt bold title.
    return std::max(panel.scene->sceneRect().width(), 9.0 * double(panel.title.size()) + 8);
}

QImage renderImage(const QList<Panel>& panels, double scale, int maxSide)
{
    if (panels.isEmpty())
        return {};
    const QSizeF size = canvasSize(panels);
    scale = std::min(scale, double(maxSide) / std::max(size.width(), size.height()));
    QImage image(QSize(int(size.width() * scale + 0.5), int(size.height() * scale + 0.5)).expandedTo(QSize(1, 1)),
        QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    painter.scale(scale, scale);
    paintPanels(painter, panels);
    return image;
}

bool writeSvg(const QList<Panel>& panels, const QString& path, QString* error)
{
    if (panels.isEmpty()) {
        *error = cannotWrite(path, QCoreApplication::translate("GraphExport", "there is no drawing to export"));
        return false;
    }
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    const QSizeF size = canvasSize(panels);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size.toSize());
    generator.setViewBox(QRectF(QPointF(0, 0), size));
    generator.setTitle(panels.front().title);
    generator.setDescription(QStringLiteral("TGraph Studio graph view"));
    {
        QPainter painter(&generator);
        paintPanels(painter, panels);
    }
    // Written through QSaveFile: a failed export leaves no half-written file behind.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(buffer.data()) != buffer.size() || !file.commit()) {
        *error = cannotWrite(path, file.errorString());
        return false;
    }
    return true;
}

bool writePng(const QList<Panel>& panels, const QString& path, QString* error)
{
    const QImage image = renderImage(panels, 1.0);
    if (image.isNull()) {
        *error = cannotWrite(path, QCoreApplication::translate("GraphExport", "there is no drawing to export"));
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
        *error = cannotWrite(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace GraphExport

} // namespace tgraph::widgets
