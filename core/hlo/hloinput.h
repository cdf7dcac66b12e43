// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/featurizer.h"
#include "core/hlo/hlomodule.h"
#include "core/hlo/hlotext.h"

#include <string>
#include <vector>

namespace tgraph {

// What a file holds, decided from its content (not its name).
enum class InputKind { Npz, HloText, HloProto };
const char* inputKindName(InputKind kind);
// InputError naming the file when it is none of them.
InputKind detectInputKind(const std::string& path);

// An HLO text file (one module, or several separated by `// -----` lines) or any of the protobuf
// containers, as modules with their tuning runs. Every module is verified (core/hlo/hloverify.h).
struct HloInputFile
{
    std::string path;
    uint64_t fileBytes = 0;
    HloSourceFormat format = HloSourceFormat::Text;
    std::vector<ModuleTuningData> modules;
};
HloInputFile readHloInput(const std::string& path, const HloTextOptions& options = {});

// One featurized module: the graph of its collection (layout or tile) and how runs were used.
struct FeaturizedModule
{
    GraphKind kind = GraphKind::Layout;
    LayoutGraph layout;
    TileGraph tile;
    RunSelection runs;
};
// `collection` nullptr = decide from the runs (op configs -> tile, else layout).
FeaturizedModule featurizeModule(const ModuleTuningData& data, const std::string& file, const GraphKind* collection,
    const FeaturizeOptions& options = {});

} // namespace tgraph
