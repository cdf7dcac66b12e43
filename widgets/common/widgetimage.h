// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

class QWidget;

namespace tgraph::widgets {

// Saves what a widget shows as SVG (by the path's suffix) or PNG, through QSaveFile: the file
// appears whole or not at all (docs/formats.md, "Writing files").
namespace WidgetImage {

bool save(QWidget* widget, const QString& path, const QString& title, QString* error);

} // namespace WidgetImage

} // namespace tgraph::widgets
