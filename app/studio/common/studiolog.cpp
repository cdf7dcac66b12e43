// SPDX-License-Identifier: Apache-2.0
#include "app/studio/common/studiolog.h"

namespace tgraph::studio {

Q_LOGGING_CATEGORY(lcStudio, "tgraph.studio", QtWarningMsg)

} // namespace tgraph::studio
