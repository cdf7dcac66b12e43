// SPDX-License-Identifier: Apache-2.0
#include "app/studio/common/studiolog.h"

Q_LOGGING_CATEGORY(lcStudio, "tgraph.studio", QtWarningMsg)
