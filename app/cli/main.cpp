// SPDX-License-Identifier: Apache-2.0
// `tgraph`: the command line of TGraph Studio.

#include "commands.h"
#include "core/dump/decompress.h"
#include "core/io/npz.h"
#include "core/store/sqlitedb.h"
#include "core/util/version.h"
#include "terminalprogress.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tgraph::cli;

namespace {

void printHelp()
{
    std::printf("Usage: tgraph <command> [options]\n\n"
                "TGraph Studio command line: TpuGraphs graphs, pruning and learned cost models.\n\n"
                "Commands:\n");
    for (const auto& c : commands())
        std::printf("  %-10s %s\n", c.name, c.summary);
    for (const auto& c : modelCommandSummaries())
        std::printf("  %-10s %s\n", c.name, c.summary);
    std::printf("\nGlobal options:\n"
                "  -h, --help     show this help\n"
                "  --version      show versions\n\n"
                "Run 'tgraph <command> --help' for the options of a command.\n"
                "Exit codes: 0 ok, 1 bad input (the message names file, place and problem), 2 usage error,\n"
                "3 internal error, 130 interrupted (Ctrl-C; partial outputs are removed).\n");
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (const int rc = handleTopLevelHelp(args, printHelp); rc >= 0)
        return rc;
    const std::string first = args.front();
    if (first == "--version") {
        std::printf("tgraph %s (zlib %s, liblzma %s, SQLite %s)\n", tgraph::projectVersion().c_str(),
            tgraph::zlibVersion().c_str(), tgraph::lzmaVersion().c_str(), tgraph::sqliteVersion().c_str());
        return ExitOk;
    }
    for (const auto& c : commands()) {
        if (args.front() == c.name) {
            installInterruptHandler();
            try {
                return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
            } catch (const std::exception& e) {
                std::fprintf(stderr, "tgraph %s: internal error: %s\n", c.name, e.what());
                return 3;
            }
        }
    }
    for (const auto& c : modelCommandSummaries())
        if (args.front() == c.name)
            return execModelCommand(args);
    std::fprintf(stderr, "tgraph: unknown command '%s' (see 'tgraph --help')\n", args.front().c_str());
    return ExitUsage;
}
