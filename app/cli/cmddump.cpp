// SPDX-License-Identifier: Apache-2.0
// `tgraph dump list`: an XLA dump folder (--xla_dump_to) as modules and their stages in pass order
// (docs/formats.md §17).

#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/dump/dumpindex.h"
#include "core/dump/dumpstage.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/progress.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace tgraph::cli {

namespace {

// A name for JSON: as it is when it is UTF-8, else escaped as on a terminal (\xNN).
std::string jsonName(const std::string& name) { return isValidUtf8(name) ? name : terminalText(name); }

struct StageResult
{
    std::optional<DumpStageCounts> counts;
    std::string error;
};

std::string stageLabel(const DumpStage& s)
{
    switch (s.kind) {
    case DumpStageKind::Pass:
        return s.pipeline + ": " + s.pass + " -> " + s.nextPass;
    case DumpStageKind::DuringPass:
        return s.pass + ": " + s.step;
    default:
        return s.stage;
    }
}

// The counter as XLA writes it (4 digits at least), "-" for stages without one.
std::string indexText(const DumpStage& s)
{
    if (s.index < 0)
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%04lld", static_cast<long long>(s.index));
    return text;
}

// The extra files of a stage after its main one: "+ hlo-proto, buffer-assignment".
std::string extrasText(const DumpIndex& index, const DumpStage& s)
{
    std::vector<std::string> kinds;
    const size_t main = s.mainFile();
    auto add = [&](size_t k) {
        if (k == main)
            return;
        const DumpFileName& n = index.files[k].name;
        std::string kind = dumpFileKindName(n.kind);
        if (n.compression != DumpCompression::None)
            kind += std::string(" (") + dumpCompressionName(n.compression) + ")";
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
            kinds.push_back(kind);
    };
    for (size_t k : s.hloFiles)
        add(k);
    for (size_t k : s.attachments)
        add(k);
    std::string out;
    for (const std::string& k : kinds)
        out += (out.empty() ? "  + " : ", ") + k;
    return out;
}

std::string moduleTitle(const DumpModule& m)
{
    char id[32];
    std::snprintf(id, sizeof id, "%04lld", static_cast<long long>(m.id));
    std::string t = std::string("module ") + id + "  " + (m.name.empty() ? "(no name)" : terminalText(m.name));
    if (!m.backend.empty())
        t += "  [" + terminalText(m.backend) + "]";
    if (m.timestamp)
        t += "  timestamp " + std::to_string(*m.timestamp);
    if (!m.changelist.empty())
        t += "  cl " + m.changelist;
    t += ": " + std::to_string(m.stages.size()) + (m.stages.size() == 1 ? " stage" : " stages");
    if (!m.artifacts.empty())
        t += ", " + std::to_string(m.artifacts.size()) + (m.artifacts.size() == 1 ? " other file" : " other files");
    return t;
}

std::string padRight(std::string s, size_t width)
{
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}
std::string padLeft(std::string s, size_t width)
{
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

void printText(const DumpIndex& index, const std::vector<std::vector<StageResult>>* counts)
{
    const std::string folder = terminalText(index.folder);
    if (index.modules.empty()) {
        std::printf("%s: no XLA dump files among %zu entr%s\n", folder.c_str(), index.entryCount(),
            index.entryCount() == 1 ? "y" : "ies");
    } else {
        std::printf("%s: XLA dump folder: %zu module%s, %zu stage%s, %zu dump file%s, %zu other entr%s\n",
            folder.c_str(), index.modules.size(), index.modules.size() == 1 ? "" : "s", index.stageCount(),
            index.stageCount() == 1 ? "" : "s", index.files.size(), index.files.size() == 1 ? "" : "s",
            index.others.size(), index.others.size() == 1 ? "y" : "ies");
    }
    for (size_t mi = 0; mi < index.modules.size(); ++mi) {
        const DumpModule& m = index.modules[mi];
        std::printf("\n%s\n", moduleTitle(m).c_str());
        size_t labelWidth = 5;
        size_t indexWidth = 5;
        for (const DumpStage& s : m.stages) {
            labelWidth = std::max(labelWidth, terminalText(stageLabel(s)).size());
            indexWidth = std::max(indexWidth, indexText(s).size());
        }
        std::string header = "  " + padLeft("index", indexWidth) + "  " + padRight("stage", labelWidth);
        if (counts)
            header += "  instructions  computations  fusions";
        std::printf("%s  file\n", header.c_str());
        for (size_t si = 0; si < m.stages.size(); ++si) {
            const DumpStage& s = m.stages[si];
            std::string line
                = "  " + padLeft(indexText(s), indexWidth) + "  " + padRight(terminalText(stageLabel(s)), labelWidth);
            if (counts) {
                const StageResult& r = (*counts)[mi][si];
                if (r.counts)
                    line += "  " + padLeft(std::to_string(r.counts->instructions), 12) + "  "
                        + padLeft(std::to_string(r.counts->computations), 12) + "  "
                        + padLeft(std::to_string(r.counts->fusions), 7);
                else
                    line += "  " + padLeft(r.error.empty() ? "-" : "error", 12) + "  " + padLeft("", 12) + "  "
                        + padLeft("", 7);
            }
            const size_t main = s.mainFile();
            line += "  " + (main == SIZE_MAX ? std::string("-") : terminalText(index.files[main].entry.name));
            line += extrasText(index, s);
            std::printf("%s\n", line.c_str());
        }
        if (!m.artifacts.empty()) {
            size_t kindWidth = 0;
            for (size_t k : m.artifacts)
                kindWidth = std::max(kindWidth, std::string(dumpFileKindName(index.files[k].name.kind)).size());
            std::printf("  other files:\n");
            for (size_t k : m.artifacts)
                std::printf("    %s  %s\n", padRight(dumpFileKindName(index.files[k].name.kind), kindWidth).c_str(),
                    terminalText(index.files[k].entry.name).c_str());
        }
    }
    if (!index.others.empty()) {
        std::printf("\nnot XLA dump files (%zu):\n", index.others.size());
        for (const DumpOther& o : index.others)
            std::printf("  %s  (%s)\n", terminalText(o.entry.name).c_str(), o.why.c_str());
    }
}

Json fileJson(const DumpIndex& index, size_t k)
{
    const DumpFile& f = index.files[k];
    Json j = Json::object();
    j["kind"] = dumpFileKindName(f.name.kind);
    j["file"] = jsonName(f.entry.name);
    if (f.name.compression != DumpCompression::None)
        j["compression"] = dumpCompressionName(f.name.compression);
    if (f.entry.type == DumpEntry::Type::LinkInside)
        j["link"] = true;
    return j;
}

Json indexJson(const DumpIndex& index, const std::vector<std::vector<StageResult>>* counts)
{
    Json root = Json::object();
    root["folder"] = jsonName(index.folder);
    root["summary"] = Json { { "modules", index.modules.size() }, { "stages", index.stageCount() },
        { "files", index.files.size() }, { "others", index.others.size() } };
    Json modules = Json::array();
    for (size_t mi = 0; mi < index.modules.size(); ++mi) {
        const DumpModule& m = index.modules[mi];
        Json jm = Json::object();
        jm["id"] = m.id;
        jm["name"] = jsonName(m.name);
        jm["backend"] = jsonName(m.backend);
        jm["timestamp"] = m.timestamp ? Json(*m.timestamp) : Json(nullptr);
        jm["changelist"] = m.changelist.empty() ? Json(nullptr) : Json(m.changelist);
        Json stages = Json::array();
        for (size_t si = 0; si < m.stages.size(); ++si) {
            const DumpStage& s = m.stages[si];
            Json js = Json::object();
            js["index"] = s.index < 0 ? Json(nullptr) : Json(s.index);
            js["kind"] = dumpStageKindName(s.kind);
            js["stage"] = jsonName(s.stage);
            js["pipeline"] = jsonName(s.pipeline);
            js["pass"] = jsonName(s.pass);
            js["next"] = jsonName(s.nextPass);
            js["step"] = jsonName(s.step);
            js["backend"] = jsonName(s.backend);
            const size_t main = s.mainFile();
            js["file"] = main == SIZE_MAX ? Json(nullptr) : Json(jsonName(index.files[main].entry.name));
            Json files = Json::array();
            for (size_t k : s.hloFiles)
                files.push_back(fileJson(index, k));
            js["files"] = std::move(files);
            Json attachments = Json::array();
            for (size_t k : s.attachments)
                attachments.push_back(fileJson(index, k));
            js["attachments"] = std::move(attachments);
            if (counts) {
                const StageResult& r = (*counts)[mi][si];
                if (r.counts)
                    js["counts"] = Json { { "instructions", r.counts->instructions },
                        { "computations", r.counts->computations }, { "fusions", r.counts->fusions } };
                else
                    js["counts"] = nullptr;
                if (!r.error.empty())
                    js["error"] = r.error;
            }
            stages.push_back(std::move(js));
        }
        jm["stages"] = std::move(stages);
        Json artifacts = Json::array();
        for (size_t k : m.artifacts)
            artifacts.push_back(fileJson(index, k));
        jm["artifacts"] = std::move(artifacts);
        modules.push_back(std::move(jm));
    }
    root["modules"] = std::move(modules);
    Json others = Json::array();
    for (const DumpOther& o : index.others)
        others.push_back(
            Json { { "file", jsonName(o.entry.name) }, { "type", dumpEntryTypeName(o.entry.type) }, { "why", o.why } });
    root["others"] = std::move(others);
    return root;
}

int list(const ArgParser& p)
{
    const DumpIndex index = indexDumpFolder(p.positionals().front());
    std::vector<std::vector<StageResult>> counts;
    int rc = ExitOk;
    if (p.has("--counts")) {
        TerminalProgress progress;
        ProgressScope scope(&progress, "Parsing stages", index.stageCount());
        for (const DumpModule& m : index.modules) {
            auto& row = counts.emplace_back(m.stages.size());
            for (size_t si = 0; si < m.stages.size(); ++si) {
                const DumpStage& s = m.stages[si];
                if (!s.hloFiles.empty()) {
                    try {
                        row[si].counts = countDumpStage(index, s);
                    } catch (const InputError& e) {
                        row[si].error = e.what();
                        std::fprintf(stderr, "tgraph dump list: error: %s\n", e.what());
                        rc = ExitBadInput;
                    }
                }
                scope.advanceBy(1);
            }
        }
    }
    const auto* shown = p.has("--counts") ? &counts : nullptr;
    if (p.has("--json"))
        std::printf("%s\n", jsonText(indexJson(index, shown)).c_str());
    else
        printText(index, shown);
    return rc;
}

int runList(const std::vector<std::string>& args)
{
    ArgParser p("dump list",
        "List an XLA dump folder (XLA_FLAGS=--xla_dump_to=DIR, with --xla_dump_hlo_pass_re=.* for every pass):\n"
        "every module (id, name, backend) with its HLO stages in pass order (before_optimizations, the\n"
        "per-pass dumps by their counter, after_optimizations) and its other files (LLVM IR, PTX, MLIR,\n"
        "thunk schedule, options). The folder is indexed from its file names alone; no file is opened\n"
        "unless --counts asks for the stages' sizes (docs/formats.md §17).",
        "DIR [--json] [--counts]");
    p.addPositional("DIR", "the folder XLA dumped into");
    p.addOption("--json", "", "", "print JSON: modules[].{id, name, backend, stages[].{index, pipeline, pass, file}}");
    p.addOption("--counts", "", "",
        "parse every stage (HLO text or .hlo.pb, .gz, .xz) for its instruction, "
        "computation and fusion counts");
    p.addNote("Files not named like XLA dump files are listed apart, never an error; links out of DIR are not "
              "followed and subfolders not searched. Names are shown escaped (\\n, \\xNN).");
    p.addNote("Exit codes: 0 listed, 1 DIR missing or not a folder or (with --counts) a stage that does not "
              "parse (named on stderr, the listing still printed), 2 usage error, 130 interrupted.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError("dump list", "expected exactly one DIR");
    return guarded("dump list", list, p);
}

} // namespace

int runDump(const std::vector<std::string>& args)
{
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::printf("Usage: tgraph dump list DIR [--json] [--counts]\n"
                    "\n"
                    "XLA dump folders (XLA_FLAGS=--xla_dump_to=DIR): what XLA wrote, module by module and pass\n"
                    "by pass (docs/formats.md §17).\n"
                    "\n"
                    "Actions:\n"
                    "  list                      every module with its HLO stages in pass order and its other files\n"
                    "\n"
                    "Run 'tgraph dump list --help' for its options.\n");
        return args.empty() ? ExitUsage : ExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "list")
        return runList(rest);
    return usageError("dump", "unknown action '" + terminalText(args[0]) + "' (list)");
}

} // namespace tgraph::cli
