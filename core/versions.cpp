// SPDX-License-Identifier: Apache-2.0
#include "versions.h"

#include <graphviz/gvc.h>
#include <sqlite3.h>
#include <zlib.h>

#ifndef TGRAPH_VERSION
#define TGRAPH_VERSION "unknown"
#endif

namespace tgraph {

std::string projectVersion() { return TGRAPH_VERSION; }

std::string sqliteVersion() { return sqlite3_libversion(); }

std::string graphvizVersion()
{
    GVC_t* gvc = gvContext();
    std::string version = gvc ? gvcVersion(gvc) : "unavailable";
    if (gvc)
        gvFreeContext(gvc);
    return version;
}

std::string zlibVersion() { return ::zlibVersion(); }

} // namespace tgraph
