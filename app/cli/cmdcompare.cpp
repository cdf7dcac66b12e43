// SPDX-License-Identifier: Apache-2.0
// `tgraph compare --project P [--runs A B C]`: training runs side by side (core/store/runcomparison.h);
// without runs named, every run of the project.
#include "argparser.h"
#include "commands.h"

#include "core/store/project.h"
#include "core/store/runcomparison.h"
#include "core/util/atomicfile.h"
#include "core/util/error.h"

#include <cstdio>

namespace tgraph::cli {

namespace {

int compare(const ArgParser& p)
{
    std::vector<std::string> keys;
    if (p.has("--runs"))
        keys.push_back(p.value("--runs"));
    for (const std::string& key : p.positionals())
        keys.push_back(key);
    const Project project = Project::open(p.value("--project"), Project::Access::Read);
    if (keys.empty()) {
        // All runs of the project, oldest first; the fold runs of a cross-validation run are left out.
        const std::vector<RunRecord> runs = project.runs();
        for (auto it = runs.rbegin(); it != runs.rend(); ++it)
            if (it->parentRun.empty())
                keys.push_back(it->id);
        if (keys.empty())
            throw InputError(project.path(), "", "the project has no runs to compare");
    }
    const RunComparison comparison = compareRuns(project, keys);
    const std::string report = p.has("--json") ? comparisonJson(comparison) : comparisonText(comparison);
    if (p.has("--output"))
        writeFileAtomically(p.value("--output"), report);
    else
        std::fputs(report.c_str(), stdout);
    return ExitOk;
}

} // namespace

int runCompare(const std::vector<std::string>& args)
{
    ArgParser p("compare",
        "Training runs of a project side by side: per run the model, loss, data kind, validation graphs, mean\n"
        "Kendall tau, OPA, top-1 and top-5 slowdown and APE (tile) at the run's best evaluation (else its\n"
        "latest), parameter count, training time per step (median), inference time per 128 configs (in\n"
        "validation) and peak memory; then each graph's tau per run, and for every pair of runs on how many\n"
        "graphs each ranks better. Runs are named by id, unique id prefix (4+ digits) or unique name;\n"
        "without --runs, every run of the project is compared, oldest first (fold runs left out).",
        "--project P.tgproj [--runs RUN [RUN...]] [--json] [-o FILE]");
    p.addPositional("RUN...", "more runs after --runs");
    p.addOption("--project", "-p", "P", "the project file");
    p.addOption("--runs", "", "RUN", "the first run to compare (more follow as arguments; default: all runs)");
    p.addOption("--json", "", "", "write JSON instead of tables");
    p.addOption("--output", "-o", "FILE", "write the report to FILE instead of standard output");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.value("--project").empty())
        return usageError("compare", "missing --project P.tgproj");
    return guarded("compare", compare, p);
}

} // namespace tgraph::cli
