// SPDX-License-Identifier: Apache-2.0
// `tgraph-model`: the `tgraph` commands that need LibTorch (training, prediction, evaluation,
// weights). `tgraph train ...` hands over to this executable, so `tgraph`'s other commands start
// without loading LibTorch (~0.6 s here). It can also be run directly.

#include "app/cli/commands.h"
#include "app/cli/terminalprogress.h"
#include "core/util/version.h"
#include "model/runtime/torchruntime.h"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

using namespace tgraph::cli;

namespace {

void printHelp()
{
    std::printf("Usage: tgraph <command> [options]   (or tgraph-model <command> [options])\n\n"
                "TGraph Studio model commands (LibTorch %s):\n\n",
        tgraph::model::torchVersion().c_str());
    for (const auto& c : modelCommands())
        std::printf("  %-10s %s\n", c.name, c.summary);
    std::printf("\nRun 'tgraph <command> --help' for the options of a command; 'tgraph --help' lists all commands.\n");
}

} // namespace

namespace tgraph::cli {
int runDiffWithModel(const std::vector<std::string>& args); // diffscorer.cpp
}

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (const int rc = handleTopLevelHelp(args, printHelp); rc >= 0)
        return rc;
    const std::string first = args.front();
    if (first == "--version") {
        std::printf("tgraph-model %s (LibTorch %s, %s)\n", tgraph::projectVersion().c_str(),
            tgraph::model::torchVersion().c_str(), tgraph::model::blasName().c_str());
        return ExitOk;
    }
    for (const auto& c : modelCommands()) {
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
    // `tgraph diff --weights` (not listed: `tgraph diff` is a core command that comes here only to
    // score both modules with the layout model, docs/diff.md §11).
    if (args.front() == "diff") {
        installInterruptHandler();
        try {
            return runDiffWithModel(std::vector<std::string>(args.begin() + 1, args.end()));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "tgraph diff: internal error: %s\n", e.what());
            return 3;
        }
    }
    std::fprintf(stderr, "tgraph: unknown command '%s' (see 'tgraph --help')\n", args.front().c_str());
    return ExitUsage;
}
