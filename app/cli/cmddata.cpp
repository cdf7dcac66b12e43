// SPDX-License-Identifier: Apache-2.0
// `tgraph data fetch|verify`: the public TpuGraphs dataset fetched into its own tree, and a tree
// checked (docs/formats.md §16).

#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/data/collections.h"
#include "core/data/fetch.h"
#include "core/data/treecheck.h"
#include "core/util/format.h"

#include <cstdio>

namespace tgraph::cli {

namespace {

std::vector<std::string> collectionChoices()
{
    std::vector<std::string> names = tpuCollectionIds();
    names.push_back("all");
    return names;
}

int fetch(const ArgParser& p)
{
    FetchOptions options;
    for (const auto& id : p.get<std::vector<std::string>>("--collections"))
        if (id == "all") {
            options.collections.clear();
            break;
        } else {
            options.collections.push_back(id);
        }
    options.splits = p.get<std::vector<std::string>>("--splits");
    options.mirror = p.value("--mirror");
    options.output = p.value("--output");
    options.keepArchives = p.has("--keep-archives");
    options.attempts = int(p.get<int64_t>("--attempts"));
    TerminalProgress progress;
    int fetched = 0, present = 0;
    uint64_t transferred = 0;
    fetchTpuGraphs(options, &progress, [&](const FetchItem& item) {
        if (item.present) {
            ++present;
            std::printf("%-20s %-5s present (%s)\n", item.collection.c_str(), item.split.c_str(), item.folder.c_str());
        } else {
            ++fetched;
            transferred += item.transferred;
            std::string how = item.requests == 0 ? "read from the mirror folder"
                                                 : "downloaded " + formatBytes(item.transferred)
                    + (item.resumedFrom ? ", resumed at " + formatBytes(item.resumedFrom) : std::string())
                    + (item.requests > 1 ? ", " + std::to_string(item.requests) + " requests" : std::string());
            std::printf("%-20s %-5s fetched %s (%s, %s): %d graph%s checked into %s\n", item.collection.c_str(),
                item.split.c_str(), item.archive.c_str(), formatBytes(item.archiveBytes).c_str(), how.c_str(),
                item.files, item.files == 1 ? "" : "s", item.folder.c_str());
        }
        std::fflush(stdout);
    });
    if (fetched == 0)
        std::printf("nothing to fetch: all %d archive%s already present in %s\n", present, present == 1 ? "" : "s",
            options.output.c_str());
    else
        std::printf("fetched %d archive%s (%s transferred), %d already present, into %s\n", fetched,
            fetched == 1 ? "" : "s", formatBytes(transferred).c_str(), present, options.output.c_str());
    return ExitOk;
}

int runFetch(const std::vector<std::string>& args)
{
    ArgParser p("data fetch",
        "Get the public TpuGraphs archives (npz_tile_xla_{train,valid,test}.tar,\n"
        "npz_layout_{xla,nlp}_{default,random}_{train,valid,test}.tar) and extract them into DIR/npz/...\n"
        "as the dataset lays them out. Downloads resume (HTTP Range) after a broken transfer or Ctrl-C;\n"
        "each archive is extracted into a temporary folder, every npz is checked against the TpuGraphs\n"
        "schema, and the split folder appears only when all of it is there; a second call fetches nothing.",
        "[--collections LIST|all] [--splits LIST] [--mirror URL|FOLDER] [--keep-archives] -o DIR");
    p.addOption("--output", "-o", "DIR", "the dataset tree's root (created if needed)");
    p.addOption("--collections", "", "LIST",
        "comma-separated collections, named as the competition does: tile:xla, layout:xla:default, "
        "layout:xla:random, layout:nlp:default, layout:nlp:random; or all",
        "all", opt::names(collectionChoices()));
    p.addOption(
        "--splits", "", "LIST", "comma-separated splits", "train,valid,test", opt::names({ "train", "valid", "test" }));
    p.addOption("--mirror", "", "URL|FOLDER",
        "where the archives are: a URL, or a local folder holding the .tar files (read in place)", kTpuGraphsBaseUrl);
    p.addOption("--keep-archives", "", "", "keep the downloaded .tar files in DIR/.tgraph-download/");
    p.addOption("--attempts", "", "N", "requests per archive when a transfer breaks off (each resumes)", "4",
        opt::integer(1, 100));
    p.addNote("Archive members with absolute paths, '..', links or devices are refused (docs/formats.md §16.3).");
    p.addNote("Exit codes: 0 ok, 1 failed download or refused archive (named), 2 usage error, 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (!p.positionals().empty())
        return usageError("data fetch", "unexpected argument '" + p.positionals().front() + "'");
    if (p.value("--output").empty())
        return usageError("data fetch", "missing -o DIR");
    return guarded("data fetch", fetch, p);
}

int verify(const ArgParser& p)
{
    TerminalProgress progress;
    const TreeCheck check = checkDatasetTree(p.positionals().front(), &progress);
    if (p.has("--json")) {
        std::printf("%s\n", treeCheckJson(check).c_str());
    } else {
        std::printf("%s", treeCheckTable(check).c_str());
        const size_t shown = size_t(p.get<int64_t>("--problems"));
        for (const auto& c : check.collections) {
            size_t n = 0;
            for (const auto& problem : c.problems) {
                if (n++ == shown) {
                    std::printf(
                        "%s: ... %zu more problems (--problems N, --json)\n", c.id.c_str(), c.problems.size() - shown);
                    break;
                }
                std::printf("%s: %s: %s: %s\n", c.id.c_str(),
                    problem.severity == TreeProblem::Severity::Error ? "error" : "warning", problem.file.c_str(),
                    problem.problem.c_str());
            }
        }
        std::printf("%d error%s, %d warning%s\n", check.errors(), check.errors() == 1 ? "" : "s", check.warnings(),
            check.warnings() == 1 ? "" : "s");
    }
    return check.errors() > 0 ? ExitBadInput : ExitOk;
}

int runVerify(const std::vector<std::string>& args)
{
    ArgParser p("data verify",
        "Check a TpuGraphs tree (DIR/npz/..., as data fetch makes it), one collection folder of it, or a\n"
        "folder with train/valid/test splits (tgraph synth --collection): every graph loaded and validated,\n"
        "dtypes against the published ones, duplicate configurations (a warning), runtimes that cannot be\n"
        "right (all equal, or 0 outside the test split). One summary row per collection.",
        "DIR [--json] [--problems N]");
    p.addPositional("DIR", "the tree or collection folder");
    p.addOption("--json", "", "", "print the summary and every problem as JSON");
    p.addOption("--problems", "", "N", "problems listed per collection", "20", opt::integer(0));
    p.addNote("Exit codes: 0 no error (warnings allowed), 1 errors found or DIR unreadable, 2 usage error.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError("data verify", "expected exactly one DIR");
    return guarded("data verify", verify, p);
}

} // namespace

int runData(const std::vector<std::string>& args)
{
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::printf(
            "Usage: tgraph data fetch [--collections LIST|all] [--splits LIST] [--mirror URL|FOLDER] -o DIR\n"
            "       tgraph data verify DIR [--json] [--problems N]\n"
            "\n"
            "The public TpuGraphs dataset: fetch its archives into a checked tree, and check a tree\n"
            "(docs/formats.md §16).\n"
            "\n"
            "Actions:\n"
            "  fetch                     get the archives into DIR/npz/... (resumable, checked, idempotent)\n"
            "  verify                    check a collection tree: schema, dtypes, duplicates, runtimes\n"
            "\n"
            "Run 'tgraph data fetch --help' or 'tgraph data verify --help' for their options.\n");
        return args.empty() ? ExitUsage : ExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "fetch")
        return runFetch(rest);
    if (args[0] == "verify")
        return runVerify(rest);
    return usageError("data", "unknown action '" + args[0] + "' (fetch or verify)");
}

} // namespace tgraph::cli
