// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/widgetimage.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace tgraph::widgets {

namespace WidgetImage {

bool save(QWidget* widget, const QString& path, const QString& title, QString* error)
{
    const bool svg = QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0;
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (svg) {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(widget->size());
        generator.setViewBox(QRect(QPoint(0, 0), widget->size()));
        generator.setTitle(title);
        QPainter painter;
        if (!painter.begin(&generator)) {
            *error = path + QStringLiteral(": cannot draw the SVG image");
            return false;
        }
        widget->render(&painter);
        painter.end();
    } else if (!widget->grab().save(&buffer, "PNG")) {
        *error = path + QStringLiteral(": cannot encode the PNG image");
        return false;
    }
    if (bytes.isEmpty()) {
        *error = path + QStringLiteral(": the image is empty");
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = path + QStringLiteral(": cannot write: ") + file.errorString();
        return false;
    }
    return true;
}

} // namespace WidgetImage

} // namespace tgraph::widgets
