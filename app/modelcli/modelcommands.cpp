// SPDX-License-Identifier: Apache-2.0
// The command table of tgraph-model. Names and summaries must match modelCommandSummaries() in
// app/cli/commands.cpp, which `tgraph` uses to list and hand over these commands.
#include "app/cli/commands.h"

namespace tgraph::cli {

const std::vector<Command>& modelCommands()
{
    static const std::vector<Command> list = {};
    return list;
}

} // namespace tgraph::cli
