// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "argparser.h"
#include "core/util/childprocess.h"
#include "core/util/error.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <unistd.h>

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

// Model commands run in tgraph-model (LibTorch) next to this executable: replace this process by
// it, so signals, exit codes and output are its own (and its pid stays the one the caller started).
int execModelCommand(const std::vector<std::string>& args) { return execSibling("tgraph-model", args); }

int execSibling(const std::string& executable, const std::vector<std::string>& args)
{
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = ".";
    if (n > 0) {
        self[n] = '\0';
        dir = self;
        dir.erase(dir.rfind('/'));
    }
    const std::string exe = dir + "/" + executable;
    // LibTorch's OpenMP threads spin-wait between parallel regions by default, which costs dearly
    // whenever another process wants the same cores. Measured with `tgraph train` on this 2-core VM
    // (steps/s, 2 threads): small graphs 2.26 -> 3.56, the demo collection 0.82 -> 0.95, with a busy
    // core 1.76 -> 2.40 with PASSIVE. It must be set before the library loads, hence here; a value
    // the user set wins.
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    ::setenv("GLIBC_TUNABLES", hugePageMallocTunables().c_str(), 1); // see core/util/childprocess.h
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>("tgraph"));
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    std::fprintf(stderr, "tgraph: internal error: cannot run %s: %s%s\n", exe.c_str(), std::strerror(errno),
        executable == "tgraph-studio" ? " (configure with -DTGRAPH_BUILD_GUI=ON)" : "");
    return 3;
}

int handleTopLevelHelp(std::vector<std::string>& args, void (*printHelp)())
{
    if (args.empty()) {
        printHelp();
        return ExitUsage;
    }
    const std::string first = args.front();
    if (first != "--help" && first != "-h" && first != "help")
        return -1;
    if (first == "help" && args.size() > 1) {
        args = { args[1], "--help" };
        return -1;
    }
    printHelp();
    return ExitOk;
}

int guarded(const std::string& command, int (*body)(const ArgParser&), const ArgParser& parser)
{
    return guarded(command, [&] { return body(parser); });
}

int guarded(const std::string& command, const std::function<int()>& body)
{
    try {
        return body();
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
