// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLoggingCategory>

namespace tgraph::studio {

// The studio's one logging category; enable with QT_LOGGING_RULES="tgraph.studio.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcStudio)

} // namespace tgraph::studio
