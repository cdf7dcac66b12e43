// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/hloinput.h"

#include "core/util/error.h"
#include "core/io/filebytes.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hloverify.h"

#include <cstring>

namespace tgraph {

namespace {

bool looksLikeZip(std::string_view head)
{
    return head.size() >= 4 && (head.compare(0, 4, "PK\x03\x04") == 0 || head.compare(0, 4, "PK\x05\x06") == 0);
}

} // namespace

const char* inputKindName(InputKind kind)
{
    switch (kind) {
    case InputKind::Npz:
        return "npz";
    case InputKind::HloText:
        return "HLO text";
    case InputKind::HloProto:
        return "protobuf";
    }
    return "?";
}

InputKind detectInputKind(const std::string& path)
{
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    std::string head(64 * 1024, '\0');
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
    if (looksLikeZip(head))
        return InputKind::Npz;
    if (looksLikeHloText(head))
        return InputKind::HloText;
    if (looksLikeHloProto(std::as_bytes(std::span(head.data(), head.size()))))
        return InputKind::HloProto;
    if (head.empty())
        throw InputError(path, "", "empty file");
    throw InputError(path, "",
        "not a TpuGraphs .npz, an HLO text module (starts with 'HloModule', or without that line with "
        "'ENTRY' or a computation 'NAME {') or a supported protobuf "
        "(xla.HloModuleProto, xla.HloProto, xla.HloSnapshot, tpu_graphs.ModuleTuningData, tpu_graphs.TuningData)");
}

HloInputFile readHloInput(const std::string& path, const HloTextOptions& options)
{
    HloInputFile in;
    in.path = path;
    const FileBytes file = FileBytes::read(path);
    const std::string_view bytes = file.view();
    in.fileBytes = bytes.size();
    if (looksLikeHloText(bytes)) {
        in.format = HloSourceFormat::Text;
        for (HloModule& module : parseHloTextModules(bytes, path, options)) { // verified by the parser
            ModuleTuningData d;
            d.hasModule = true;
            d.module = std::move(module);
            in.modules.push_back(std::move(d));
        }
        return in;
    }
    if (looksLikeZip(bytes))
        throw InputError(path, "", "is an .npz archive, not an HLO module");
    HloProtoFile proto = readHloProto(std::as_bytes(std::span(bytes.data(), bytes.size())), path);
    in.format = proto.format;
    in.modules = std::move(proto.modules);
    for (const ModuleTuningData& d : in.modules)
        if (d.hasModule)
            verifyHloModule(d.module, path);
    return in;
}

FeaturizedModule featurizeModule(
    const ModuleTuningData& data, const std::string& file, const GraphKind* collection, const FeaturizeOptions& options)
{
    FeaturizedModule out;
    out.kind = collection ? *collection : collectionOf(data);
    if (out.kind == GraphKind::Tile)
        out.tile = featurizeTile(data, file, options, &out.runs);
    else
        out.layout = featurizeLayout(data, file, options, &out.runs);
    return out;
}

} // namespace tgraph
