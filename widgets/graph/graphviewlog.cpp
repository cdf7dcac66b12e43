// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphviewlog.h"

namespace tgraph::widgets {

Q_LOGGING_CATEGORY(lcGraphView, "tgraph.graphview", QtWarningMsg)

} // namespace tgraph::widgets
