// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/diffcost/diffmodelscore.h"
#include "core/util/precision.h"

#include <functional>
#include <string>
#include <vector>

namespace tgraph {
struct HloModule;
}

namespace tgraph::cli {

// Exit codes of every `tgraph` command.
enum ExitCode : int {
    ExitOk = 0,
    ExitBadInput = 1, // unreadable or invalid input file, failed write
    ExitUsage = 2, // unknown command or option, missing argument
    ExitCancelled = 130,
};

class ArgParser;

struct Command
{
    const char* name;
    const char* summary;
    int (*run)(const std::vector<std::string>& args);
};

// Commands of `tgraph` itself (core only, start in milliseconds).
const std::vector<Command>& commands();
// Names and summaries (run == nullptr) of the commands that `tgraph` hands to the `tgraph-model`
// executable next to it (LibTorch), and the runnable table inside tgraph-model.
const std::vector<Command>& modelCommandSummaries();
const std::vector<Command>& modelCommands();

// Shared plumbing: parse `args` with `parser`; prints help (returns ExitOk) or a usage error
// (returns ExitUsage). Returns -1 when the command should go on.
int parseOrExit(ArgParser& parser, const std::vector<std::string>& args);
int usageError(const std::string& command, const std::string& message);
// No arguments, `--help`, `-h` or `help [COMMAND]` before a command: prints the overview (via
// `printHelp`) and returns the exit code, or turns `help COMMAND` into `COMMAND --help` and
// returns -1 (go on), as for any other command line.
int handleTopLevelHelp(std::vector<std::string>& args, void (*printHelp)());
// Runs `body`, mapping tgraph::InputError to ExitBadInput, Cancelled to ExitCancelled and
// std::bad_alloc to ExitBadInput with one line on stderr each.
int guarded(const std::string& command, int (*body)(const ArgParser&), const ArgParser& parser);
// The same for a body that needs more than the parsed options.
int guarded(const std::string& command, const std::function<int()>& body);

// Replaces this process by the tgraph-model executable beside it, running `args` (a model command
// and its arguments); returns (3, with a message) only when that fails.
int execModelCommand(const std::vector<std::string>& args);
// The same for any executable beside this one (argv[0] stays "tgraph").
int execSibling(const std::string& executable, const std::vector<std::string>& args);

int runCompare(const std::vector<std::string>& args);
int runDiff(const std::vector<std::string>& args);
// `tgraph diff --weights`: tgraph-model sets the scorer of both sides before it runs runDiff
// (docs/diff.md §11); without one (`tgraph` itself), runDiff hands the command to tgraph-model.
struct DiffModelRequest
{
    const HloModule* a = nullptr;
    const HloModule* b = nullptr;
    std::string labelA, labelB; // the files as named on the command line
    std::vector<std::string> weights;
    bool repad = false;
    Precision precision = Precision::Auto; // --precision: the model's products (docs/model.md §10.12)
};
using DiffModelScorer = HloDiffModelScore (*)(const DiffModelRequest& request);
void setDiffModelScorer(DiffModelScorer scorer);
int runData(const std::vector<std::string>& args);
int runDump(const std::vector<std::string>& args);
int runConvert(const std::vector<std::string>& args);
int runGenHlo(const std::vector<std::string>& args);
int runInspect(const std::vector<std::string>& args);
int runPrune(const std::vector<std::string>& args);
int runRender(const std::vector<std::string>& args);
int runRuns(const std::vector<std::string>& args);
int runSimulate(const std::vector<std::string>& args);
int runSweep(const std::vector<std::string>& args);
int runSynth(const std::vector<std::string>& args);

} // namespace tgraph::cli
