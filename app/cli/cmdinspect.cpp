// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/error.h"
#include "core/summary.h"

#include <cstdio>

namespace tgraph::cli {

namespace {
int inspect(const ArgParser& p)
{
    TerminalProgress progress;
    const bool json = p.has("--json");
    const auto& files = p.positionals();
    int rc = ExitOk;
    bool first = true;
    if (json && files.size() > 1)
        std::fputs("[\n", stdout);
    for (const auto& file : files) {
        try {
            const GraphSummary s = summarizeGraphFile(file, &progress);
            if (json) {
                if (!first && files.size() > 1)
                    std::fputs(",\n", stdout);
                std::string text = formatSummaryJson(s);
                if (files.size() > 1)
                    text.pop_back(); // the array adds separators
                std::fputs(text.c_str(), stdout);
            } else {
                if (!first)
                    std::fputs("\n", stdout);
                std::fputs(formatSummaryText(s).c_str(), stdout);
            }
            first = false;
        } catch (const InputError& e) {
            std::fprintf(stderr, "tgraph inspect: error: %s\n", e.what());
            rc = ExitBadInput;
        }
    }
    if (json && files.size() > 1)
        std::fputs("\n]\n", stdout);
    return rc;
}
} // namespace

int runInspect(const std::vector<std::string>& args)
{
    ArgParser p("inspect",
        "Summarize TpuGraphs graph files: kind (layout/tile), nodes, edges, configurable nodes,\n"
        "configurations, runtime range, duplicate configs, opcode histogram, node splits.",
        "FILE.npz... [--json]");
    p.addPositional("FILE.npz", "a layout or tile graph (np.savez or np.savez_compressed archive)");
    p.addOption("--json", "", "", "print JSON (an array when several files are given)");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().empty())
        return usageError("inspect", "no input file");
    return guarded("inspect", inspect, p);
}

} // namespace tgraph::cli
