// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "argparser.h"
#include "core/error.h"

#include <cstdio>
#include <new>

namespace tgraph::cli {

int usageError(const std::string& command, const std::string& message)
{
    std::fprintf(stderr, "tgraph %s: %s (see 'tgraph %s --help')\n", command.c_str(), message.c_str(), command.c_str());
    return ExitUsage;
}

int parseOrExit(ArgParser& parser, const std::vector<std::string>& args)
{
    std::string error;
    if (!parser.parse(args, &error))
        return usageError(parser.command(), error);
    if (parser.helpRequested()) {
        std::fputs(parser.help().c_str(), stdout);
        return ExitOk;
    }
    return -1;
}

int guarded(const std::string& command, int (*body)(const ArgParser&), const ArgParser& parser)
{
    try {
        return body(parser);
    } catch (const InputError& e) {
        std::fprintf(stderr, "tgraph %s: error: %s\n", command.c_str(), e.what());
        return ExitBadInput;
    } catch (const Cancelled&) {
        std::fprintf(stderr, "tgraph %s: cancelled\n", command.c_str());
        return ExitCancelled;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "tgraph %s: error: out of memory\n", command.c_str());
        return ExitBadInput;
    }
}

} // namespace tgraph::cli
