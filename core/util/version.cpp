// SPDX-License-Identifier: Apache-2.0
#include "core/util/version.h"

#ifndef TGRAPH_VERSION
#define TGRAPH_VERSION "unknown"
#endif

namespace tgraph {

std::string projectVersion() { return TGRAPH_VERSION; }

} // namespace tgraph
