// SPDX-License-Identifier: Apache-2.0
#include "widgets/diff/diffresult.h"

#include "core/dump/dumpindex.h"
#include "core/dump/dumpname.h"
#include "core/dump/dumpstage.h"
#include "core/hlo/hloinput.h"
#include "core/inspect/summary.h"
#include "core/util/error.h"
#include "core/util/progress.h"
#include "core/util/terminaltext.h"

#include <filesystem>

namespace tgraph::widgets {

namespace {

tgraph::DumpCompression compressionOf(const std::string& name)
{
    if (name.ends_with(".gz"))
        return tgraph::DumpCompression::Gzip;
    if (name.ends_with(".xz"))
        return tgraph::DumpCompression::Xz;
    return tgraph::DumpCompression::None;
}

// A compressed stage file through core/dump: its folder's listing gives the entry (a regular file,
// or a link that stays inside the folder), the stage reader decompresses and parses it.
tgraph::GraphDocumentPtr openCompressedSide(const std::string& path, tgraph::ProgressSink* progress)
{
    namespace fs = std::filesystem;
    const fs::path p = fs::absolute(fs::path(path)).lexically_normal();
    const std::string folder = p.parent_path().string();
    const std::string name = p.filename().string();
    tgraph::DumpIndex index;
    index.folder = folder;
    for (tgraph::DumpEntry& entry : tgraph::listDumpFolder(folder))
        if (entry.name == name) {
            if (entry.type != tgraph::DumpEntry::Type::File && entry.type != tgraph::DumpEntry::Type::LinkInside)
                throw tgraph::InputError(
                    tgraph::terminalText(path), "", std::string("not read: ") + tgraph::dumpEntryTypeName(entry.type));
            tgraph::DumpFile file;
            file.entry = std::move(entry);
            if (auto parsed = tgraph::parseDumpFileName(name))
                file.name = std::move(*parsed);
            file.name.compression = compressionOf(name);
            index.files.push_back(std::move(file));
            break;
        }
    if (index.files.empty())
        throw tgraph::InputError(tgraph::terminalText(path), "", "no such file");
    tgraph::DumpStage stage;
    stage.stage = name;
    stage.hloFiles = { 0 };
    tgraph::ModuleTuningData data;
    {
        tgraph::ProgressScope scope(progress, "reading " + path, 0);
        data.module = tgraph::openDumpStage(index, stage);
        data.hasModule = true;
    }
    tgraph::ProgressScope scope(progress, "featurizing", 1);
    tgraph::FeaturizedModule f = tgraph::featurizeModule(data, path, nullptr);
    auto doc = std::make_shared<tgraph::GraphDocument>();
    doc->path = path;
    doc->title = name;
    doc->kind = f.kind;
    doc->summary = f.kind == tgraph::GraphKind::Layout ? tgraph::summarize(f.layout) : tgraph::summarize(f.tile);
    doc->summary.path = path;
    doc->summary.fileBytes = index.files[0].entry.size;
    tgraph::HloInputFile in;
    in.path = path;
    in.fileBytes = index.files[0].entry.size;
    in.format = data.module.format;
    in.modules.push_back(std::move(data));
    doc->summary.module = tgraph::summarizeModule(in, 0, f.runs);
    doc->layout = std::move(f.layout);
    doc->tile = std::move(f.tile);
    doc->module = std::make_shared<tgraph::HloModule>(std::move(in.modules[0].module));
    scope.advanceTo(1);
    tgraph::finishGraphDocument(*doc, progress);
    return doc;
}

} // namespace

tgraph::GraphDocumentPtr openDiffSide(const std::string& path, tgraph::ProgressSink* progress)
{
    if (compressionOf(path) != tgraph::DumpCompression::None)
        return openCompressedSide(path, progress);
    if (tgraph::detectInputKind(path) == tgraph::InputKind::Npz)
        throw tgraph::InputError(
            tgraph::terminalText(path), "", "a TpuGraphs .npz graph, not an HLO module: nothing to diff");
    std::vector<std::shared_ptr<tgraph::GraphDocument>> documents = tgraph::openGraphDocuments(path, progress);
    if (documents.empty())
        throw tgraph::InputError(tgraph::terminalText(path), "", "holds no HLO module");
    if (documents.size() > 1)
        throw tgraph::InputError(tgraph::terminalText(path), "",
            "holds " + std::to_string(documents.size())
                + " modules: diff one of them with `tgraph diff FILE#K` or open it on the Graph page");
    if (!documents.front()->module)
        throw tgraph::InputError(tgraph::terminalText(path), "", "the record holds no HLO module");
    return documents.front();
}

DiffResultPtr computeDiff(tgraph::GraphDocumentPtr a, tgraph::GraphDocumentPtr b, tgraph::ProgressSink* progress)
{
    auto result = std::make_shared<DiffResult>();
    result->a = std::move(a);
    result->b = std::move(b);
    tgraph::HloDiffOptions options;
    options.progress = progress;
    result->diff = tgraph::diffHloModules(result->moduleA(), result->moduleB(), options);
    {
        tgraph::ProgressScope scope(progress, "pricing both modules (simulator)", 0);
        result->cost = tgraph::priceHloDiff(result->diff, result->moduleA(), result->moduleB());
    }
    return result;
}

DiffResultPtr computeDiff(const std::string& pathA, const std::string& pathB, tgraph::ProgressSink* progress)
{
    tgraph::GraphDocumentPtr a = openDiffSide(pathA, progress);
    tgraph::GraphDocumentPtr b = openDiffSide(pathB, progress);
    return computeDiff(std::move(a), std::move(b), progress);
}

} // namespace tgraph::widgets
