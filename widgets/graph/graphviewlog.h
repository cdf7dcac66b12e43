// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLoggingCategory>

namespace tgraph::widgets {

// The graph views' logging category; enable with QT_LOGGING_RULES="tgraph.graphview.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcGraphView)

} // namespace tgraph::widgets
