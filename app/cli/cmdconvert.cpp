// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "terminalprogress.h"

#include "core/util/error.h"
#include "core/util/format.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloinput.h"

#include <cstdio>
#include <filesystem>
#include <set>

namespace tgraph::cli {

namespace {

namespace fs = std::filesystem;

std::string fileNameFor(const HloModule& m, size_t index, std::set<std::string>& used)
{
    std::string base;
    for (char c : m.name)
        base += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
    if (base.empty())
        base = "module";
    std::string name = base + ".npz";
    if (!used.insert(name).second) {
        name = base + "-" + std::to_string(index) + ".npz";
        used.insert(name);
    }
    return name;
}

int convert(const ArgParser& p)
{
    const std::string in = p.positionals().front();
    const std::string out = p.value("--output");
    FeaturizeOptions options;
    options.repad = p.has("--repad");
    options.sortEdges = !p.has("--insertion-order");
    GraphKind forced = GraphKind::Layout;
    const bool force = p.value("--collection") != "auto";
    if (force)
        forced = p.value("--collection") == "tile" ? GraphKind::Tile : GraphKind::Layout;

    if (detectInputKind(in) == InputKind::Npz)
        throw InputError(in, "", "is already a TpuGraphs .npz (convert reads HLO text or protobuf modules)");
    HloTextOptions lean;
    lean.keepAttributes = false;
    const HloInputFile input = readHloInput(in, lean);
    if (input.modules.empty())
        throw InputError(in, "", "holds no modules");

    const bool toDirectory = input.modules.size() > 1 || out.ends_with('/') || fs::is_directory(out);
    if (toDirectory && !fs::is_directory(out)) {
        std::error_code ec;
        fs::create_directories(out, ec);
        if (ec)
            throw InputError(out, "", "cannot create the output directory: " + ec.message());
    }
    std::vector<std::string> written; // removed again if a later module fails: no partial output
    try {
        std::set<std::string> used;
        TerminalProgress progress;
        for (size_t k = 0; k < input.modules.size(); ++k) {
            const ModuleTuningData& data = input.modules[k];
            const FeaturizedModule f = featurizeModule(data, in, force ? &forced : nullptr, options);
            const std::string target = toDirectory ? (fs::path(out) / fileNameFor(data.module, k, used)).string() : out;
            GraphWriteOptions write;
            write.compressed = !p.has("--stored");
            write.progress = &progress;
            if (f.kind == GraphKind::Layout)
                saveLayoutGraph(f.layout, target, write);
            else
                saveTileGraph(f.tile, target, write);
            written.push_back(target);
            const int64_t nodes = f.kind == GraphKind::Layout ? f.layout.nodeCount() : f.tile.nodeCount();
            const int64_t edges = f.kind == GraphKind::Layout ? f.layout.edgeCount() : f.tile.edgeCount();
            const int64_t configs = f.kind == GraphKind::Layout ? f.layout.configCount() : f.tile.configCount();
            std::printf("wrote %s: %s graph of module %s (%s), %lld nodes, %lld edges", target.c_str(),
                graphKindName(f.kind), std::string(data.module.name).c_str(), hloSourceFormatName(input.format),
                (long long)nodes, (long long)edges);
            if (f.kind == GraphKind::Layout)
                std::printf(", %lld configurable", (long long)f.layout.configurableCount());
            std::printf(", %lld configs", (long long)configs);
            if (!data.runs.empty())
                std::printf(" (runs: %lld, kept %lld, errors %lld%s)", (long long)f.runs.total, (long long)f.runs.kept,
                    (long long)f.runs.errors,
                    f.runs.defaultRun >= 0 ? (", default " + formatDuration(f.runs.defaultRuntime)).c_str()
                                           : ", no default run");
            std::printf("\n");
            for (const auto& w : data.module.warnings)
                std::fprintf(stderr, "tgraph convert: warning: %s: %s\n", in.c_str(), w.c_str());
        }
    } catch (...) {
        for (const auto& f : written)
            std::remove(f.c_str());
        throw;
    }
    return ExitOk;
}

} // namespace

int runConvert(const std::vector<std::string>& args)
{
    ArgParser p("convert",
        "Featurize an XLA HLO module into a TpuGraphs graph exactly as the TpuGraphs featurizer does\n"
        "(docs/formats.md): HLO text (.hlo/.txt dumps), xla.HloModuleProto, xla.HloProto,\n"
        "xla.HloSnapshot, tpu_graphs.ModuleTuningData and tpu_graphs.TuningData, detected from the content.\n"
        "Layout tuning runs become node_config_feat/config_runtime; tile runs a tile graph; a module\n"
        "without runs becomes a layout graph without configurations.",
        "IN -o OUT.npz [--collection auto|layout|tile] [--repad] [--insertion-order] [--stored]");
    p.addPositional("IN", "HLO text or protobuf file");
    p.addOption("--output", "-o", "OUT",
        "output .npz; a directory (ends with '/' or exists) gets one <module>.npz per module, as needed "
        "for a TuningData with several modules");
    p.addOption("--collection", "", "KIND", "layout, tile, or auto: tile when the runs carry tile sizes", "auto",
        opt::oneOf({ "auto", "layout", "tile" }));
    p.addOption("--repad", "", "",
        "pad no-aggregate features with -1 instead of 0 (node_feat columns 31-36, 95-98, 101-104, 134-139), "
        "as the data behind the released TGraph weights");
    p.addOption("--sort-edges", "", "", "edge_index rows sorted by (u, v), as the published dataset (the default)");
    p.addOption("--insertion-order", "", "", "edge_index rows in the extractor's insertion order instead");
    p.addOption("--stored", "", "", "write members uncompressed (np.savez) instead of deflated");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError("convert", p.positionals().empty() ? "no input file" : "exactly one input file expected");
    if (p.value("--output").empty())
        return usageError("convert", "missing -o OUT.npz");
    if (p.has("--sort-edges") && p.has("--insertion-order"))
        return usageError("convert", "--sort-edges and --insertion-order exclude each other");
    return guarded("convert", convert, p);
}

} // namespace tgraph::cli
