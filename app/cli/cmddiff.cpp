// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "sharedoptions.h"
#include "terminalprogress.h"

#include "core/diff/diffreport.h"
#include "core/diff/hlodiff.h"
#include "core/diffcost/diffcost.h"
#include "core/diffcost/diffcostreport.h"
#include "core/hlo/hloinput.h"
#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "core/util/terminaltext.h"

#include <cstdio>
#include <filesystem>
#include <optional>

namespace tgraph::cli {

namespace {

constexpr int kDifferent = 10;

DiffModelScorer g_modelScorer = nullptr; // the body's "they differ" under --exit-code, mapped to 1 below

// FILE, or FILE#K when FILE#K is not itself a file and FILE is: K picks a module of the file.
struct ModuleSpec
{
    std::string path;
    std::string which; // module index (from 0) or name; empty = the file's only module
    std::string label; // as the user wrote it
};

ModuleSpec parseSpec(const std::string& arg, const std::string& option, const char* optionName)
{
    ModuleSpec spec { arg, option, arg };
    std::error_code ec;
    if (!std::filesystem::exists(arg, ec)) {
        const size_t hash = arg.rfind('#');
        if (hash != std::string::npos && hash > 0 && std::filesystem::exists(arg.substr(0, hash), ec)) {
            if (!option.empty())
                throw InputError(arg, "", std::string("names a module both after '#' and with ") + optionName);
            spec.path = arg.substr(0, hash);
            spec.which = arg.substr(hash + 1);
        }
    }
    if (!option.empty())
        spec.label = arg + "#" + option;
    return spec;
}

std::string moduleList(const HloInputFile& in)
{
    std::string out;
    for (size_t k = 0; k < in.modules.size() && k < 8; ++k)
        out += (k ? ", " : "") + std::to_string(k) + ": " + terminalText(in.modules[k].module.name);
    if (in.modules.size() > 8)
        out += ", ...";
    return out;
}

// Reads the file and keeps the module the spec names.
HloModule loadModule(const ModuleSpec& spec, const char* optionName)
{
    HloInputFile in = readHloInput(spec.path);
    if (in.modules.empty())
        throw InputError(spec.path, "", "holds no HLO module");
    size_t index = 0;
    const size_t count = in.modules.size();
    if (spec.which.empty()) {
        if (count > 1)
            throw InputError(spec.path, "",
                "holds " + std::to_string(count) + " modules (" + moduleList(in) + "): choose one with FILE#K or "
                    + optionName + " K");
    } else if (spec.which.find_first_not_of("0123456789") == std::string::npos && spec.which.size() < 10) {
        index = size_t(std::stoull(spec.which));
        if (index >= count)
            throw InputError(spec.path, "module " + spec.which,
                "out of range: the file holds " + std::to_string(count) + " module" + (count == 1 ? "" : "s") + " (0.."
                    + std::to_string(count - 1) + ")");
    } else {
        size_t found = count;
        for (size_t k = 0; k < count; ++k)
            if (in.modules[k].module.name == spec.which) {
                if (found != count)
                    throw InputError(spec.path, "module " + terminalText(spec.which),
                        "the name is not unique in the file: choose by index (" + moduleList(in) + ")");
                found = k;
            }
        if (found == count)
            throw InputError(
                spec.path, "module " + terminalText(spec.which), "no module of that name (" + moduleList(in) + ")");
        index = found;
    }
    if (!in.modules[index].hasModule)
        throw InputError(spec.path, "module " + std::to_string(index), "the record holds no HLO module");
    return std::move(in.modules[index].module);
}

int diff(const ArgParser& p)
{
    const ModuleSpec specA = parseSpec(p.positionals()[0], p.value("--module-a"), "--module-a");
    const ModuleSpec specB = parseSpec(p.positionals()[1], p.value("--module-b"), "--module-b");
    const HloModule a = loadModule(specA, "--module-a");
    const HloModule b = loadModule(specB, "--module-b");

    TerminalProgress progress;
    HloDiffOptions options;
    options.progress = &progress;
    options.stages.fill(false);
    for (const std::string& stage : p.get<std::vector<std::string>>("--match"))
        for (size_t s = 1; s < kHloMatchStageCount; ++s)
            if (stage == hloMatchStageName(HloMatchStage(s)))
                options.stages[s] = true;
    const HloDiff d = diffHloModules(a, b, options);

    HloDiffReport report { d, a, b, specA.label, specB.label, p.get<size_t>("--limit") };
    // --price: both sides priced by the simulator (docs/diff.md §8), after the diff.
    std::optional<HloDiffCost> cost;
    if (p.has("--price"))
        cost = priceHloDiff(d, a, b);
    // --weights: both sides at their own layouts scored by the layout model (docs/diff.md §11).
    std::optional<HloDiffModelScore> model;
    if (p.has("--weights")) {
        DiffModelRequest request { &a, &b, specA.label, specB.label, p.values("--weights"), p.has("--repad"),
            precisionOption(p) };
        model = g_modelScorer(request);
    }
    if (p.has("--html")) {
        const std::string out = p.value("--html");
        std::string page = formatHloDiffHtml(report);
        if (cost)
            page = insertHtmlSection(page, formatHloDiffCostHtml(report, *cost));
        if (model)
            page = insertHtmlSection(page, formatHloDiffModelHtml(*model));
        writeFileAtomically(out, page);
        if (!p.has("--json") && !p.has("--text"))
            std::printf("wrote %s: %s; matched %zu (changed %zu), removed %zu, added %zu%s\n",
                terminalText(out).c_str(), d.same() ? "the same" : "different", d.matched(), d.changed.size(),
                d.removed.size(), d.added.size(),
                (std::string(cost ? "; simulated cost " + formatCostDelta(cost->delta()) : "")
                    + (model ? "; model score " + formatModelScore(model->delta(), true) : ""))
                    .c_str());
    }
    if (p.has("--json")) {
        Json json = hloDiffJson(report);
        if (cost)
            json["price"] = hloDiffCostJson(report, *cost);
        if (model)
            json["model"] = hloDiffModelJson(*model);
        const std::string text = jsonText(json);
        std::fwrite(text.data(), 1, text.size(), stdout);
    } else if (p.has("--text") || !p.has("--html")) {
        std::string text = formatHloDiffText(report);
        if (cost)
            text += formatHloDiffCostText(report, *cost);
        if (model)
            text += formatHloDiffModelText(*model);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    if (std::fflush(stdout) != 0)
        throw InputError("<stdout>", "", "write failed");
    return p.has("--exit-code") && !d.same() ? kDifferent : ExitOk;
}

} // namespace

void setDiffModelScorer(DiffModelScorer scorer) { g_modelScorer = scorer; }

int runDiff(const std::vector<std::string>& args)
{
    std::vector<std::string> stages;
    for (size_t s = 1; s < kHloMatchStageCount; ++s)
        stages.emplace_back(hloMatchStageName(HloMatchStage(s)));
    std::string allStages;
    for (const std::string& s : stages)
        allStages += (allStages.empty() ? "" : ",") + s;
    ArgParser p("diff",
        "Compare two HLO modules (any two: files, per-pass dumps, before/after optimizations; HLO text\n"
        "or any protobuf `tgraph convert` reads). Instructions are matched by name, then op metadata,\n"
        "then exact subgraphs (bottom-up hashes), then top-down from matched users and bottom-up from\n"
        "matched operands; each pair is unchanged or changed (opcode, shape, layout, operands,\n"
        "attributes, fused-into, fused-out-of), the rest removed (only in A) or added (only in B).\n"
        "docs/diff.md explains the stages, the kinds, their limits and the JSON schema.",
        "A B [--text | --json] [--html FILE] [--price] [--weights W ... [--repad] [--precision P]] [--exit-code]\n"
        "       [--limit N] [--match LIST] [--module-a K] [--module-b K]");
    p.addPositional(
        "A", "the first module: a file, or FILE#K for module K (index from 0, or name) of a file with several");
    p.addPositional("B", "the second module, the same way");
    p.addOption("--text", "", "", "print a readable summary and the lists of changes (the default)");
    p.addOption("--json", "", "", "print the diff as JSON (docs/diff.md §4), every list complete");
    p.addOption("--html", "", "FILE",
        "write one self-contained HTML page (inline CSS and SVG, no script) for a bug report; written "
        "atomically");
    p.addOption("--price", "", "",
        "price both modules with the analytical simulator at their own layouts: per-instruction and "
        "per-computation cost deltas (matched B - A, added +B, removed -A) and the total, in every "
        "output; an estimate of a model, not a measurement (docs/diff.md §8, docs/simulator.md)");
    p.addOption("--weights", "", "W",
        "score both modules at their own layouts with this layout model (weights .npz, checkpoint, "
        "ensemble .npz or .json; repeatable for an ensemble): both scores and their difference in every output; "
        "the model's estimate, higher = slower, not a time (docs/diff.md §11)");
    p.addOption("--repad", "", "",
        "with --weights: -1-pad the fixed-length node features as the released weights need (docs/model.md §2.1)");
    addPrecisionOption(p);
    p.addOption("--exit-code", "", "",
        "exit 1 when the modules differ, 0 when they are the same, 2 on trouble (usage, bad input)");
    p.addOption("--limit", "", "N", "text and HTML: entries shown per list; 0 = all", "100", opt::size());
    p.addOption("--match", "", "LIST", "matching stages to run, comma-separated", allStages, opt::names(stages));
    p.addOption("--module-a", "", "K", "module of A when its file holds several (index from 0, or name)");
    p.addOption("--module-b", "", "K", "module of B when its file holds several (index from 0, or name)");
    p.addNote("Exit codes: 0 whether or not the modules differ, 1 bad input, 2 usage error, 130 interrupted.\n"
              "With --exit-code: 0 the same, 1 different, 2 trouble (usage error or bad input), 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 2)
        return usageError("diff", "expected two modules A and B, got " + std::to_string(p.positionals().size()));
    if (p.has("--text") && p.has("--json"))
        return usageError("diff", "--text and --json exclude each other");
    if (p.has("--repad") && !p.has("--weights"))
        return usageError("diff", "--repad needs --weights");
    if (p.has("--weights") && !g_modelScorer) {
        // The layout model runs in tgraph-model (LibTorch); it runs this command with the scorer set.
        std::vector<std::string> forward { "diff" };
        forward.insert(forward.end(), args.begin(), args.end());
        return execModelCommand(forward);
    }
    const int rc = guarded("diff", diff, p);
    if (rc == kDifferent)
        return 1;
    if (p.has("--exit-code") && rc == ExitBadInput)
        return ExitUsage;
    return rc;
}

} // namespace tgraph::cli
