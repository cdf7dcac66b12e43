// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

namespace tgraph::cli {

const std::vector<Command>& modelCommandSummaries()
{
    // Run by the tgraph-model executable (the commands that need LibTorch, which costs ~0.6 s to
    // load): `tgraph` lists them and hands them over. Keep in step with app/modelcli/modelcommands.cpp
    // (tst_cli compares both help texts).
    static const std::vector<Command> list = {};
    return list;
}

} // namespace tgraph::cli
