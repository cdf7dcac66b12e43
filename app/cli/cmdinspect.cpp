// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/dump/dumpindex.h"
#include "core/inspect/summary.h"
#include "core/util/error.h"
#include "core/util/terminaltext.h"

#include <cstdio>
#include <sys/stat.h>

namespace tgraph::cli {

namespace {

bool isFolder(const std::string& path)
{
    struct stat st
    { };
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A folder is no graph file; an XLA dump folder is listed by `tgraph dump list`.
InputError folderError(const std::string& folder)
{
    const std::string shown = terminalText(folder);
    const DumpIndex index = indexDumpFolder(folder);
    if (index.modules.empty())
        return InputError(shown, "", "a folder, not a graph file (and no XLA dump files in it)");
    return InputError(shown, "",
        "an XLA dump folder (" + std::to_string(index.modules.size())
            + (index.modules.size() == 1 ? " module, " : " modules, ") + std::to_string(index.stageCount())
            + (index.stageCount() == 1 ? " HLO stage" : " HLO stages") + "): list it with 'tgraph dump list " + shown
            + "', give one of its stage files to inspect it");
}

int inspect(const ArgParser& p)
{
    TerminalProgress progress;
    const bool json = p.has("--json");
    const auto& files = p.positionals();
    int rc = ExitOk;
    std::vector<GraphSummary> summaries;
    for (const auto& file : files) {
        try {
            if (isFolder(file))
                throw folderError(file);
            for (GraphSummary& s : summarizeFile(file, &progress))
                summaries.push_back(std::move(s));
        } catch (const InputError& e) {
            std::fprintf(stderr, "tgraph inspect: error: %s\n", e.what());
            rc = ExitBadInput;
        }
    }
    // Several files, or a file with several modules (a TuningData), print a JSON array.
    const bool array = files.size() > 1 || summaries.size() > 1;
    if (json && array)
        std::fputs("[\n", stdout);
    for (size_t k = 0; k < summaries.size(); ++k) {
        if (json) {
            std::string text = formatSummaryJson(summaries[k]);
            if (array) {
                text.pop_back(); // the array adds separators
                if (k)
                    std::fputs(",\n", stdout);
            }
            std::fputs(text.c_str(), stdout);
        } else {
            if (k)
                std::fputs("\n", stdout);
            std::fputs(formatSummaryText(summaries[k]).c_str(), stdout);
        }
    }
    if (json && array)
        std::fputs("\n]\n", stdout);
    return rc;
}
} // namespace

int runInspect(const std::vector<std::string>& args)
{
    ArgParser p("inspect",
        "Summarize graph files: kind (layout/tile), nodes, edges, configurable nodes, configurations,\n"
        "runtime range, duplicate configs, opcode histogram, node splits. HLO text and protobuf modules\n"
        "(tuning records too) also show computations, instructions per opcode and tuning runs.",
        "FILE... [--json]");
    p.addPositional("FILE", "a TpuGraphs .npz, an HLO text module, or an HLO / tuning-record protobuf");
    p.addOption("--json", "", "", "print JSON (an array when several files or modules are given)");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().empty())
        return usageError("inspect", "no input file");
    return guarded("inspect", inspect, p);
}

} // namespace tgraph::cli
