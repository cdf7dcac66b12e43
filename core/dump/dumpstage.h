// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading the stages of an indexed dump folder, on demand (docs/formats.md §17.3).

#include "core/dump/dumpindex.h"
#include "core/hlo/hlomodule.h"

#include <cstdint>
#include <string>

namespace tgraph {

// A file of the index as bytes, decompressed (.gz with zlib, .xz with liblzma) to at most the
// memory budget (core/util/memorybudget.h). The file is opened inside the index's folder only: a
// regular file without following a link (one that became a link since the listing is refused),
// a link only when it still leads to a regular file inside the folder. InputError naming the path
// (escaped for a terminal) when it cannot be read, is no longer a regular file, leads out of the
// folder, or its compressed data are damaged.
std::string readDumpFile(const DumpIndex& index, size_t file);

// The HLO module of a stage: its first HLO file (text before protobuf, DumpStage::hloFiles),
// parsed with core/hlo's text or protobuf reader (decided from the content) and verified.
// InputError naming the file when the stage has no HLO file or its content does not parse.
HloModule openDumpStage(const DumpIndex& index, const DumpStage& stage);

// Sizes of a module at one stage.
struct DumpStageCounts
{
    int64_t instructions = 0; // in every computation, fused ones included
    int64_t computations = 0;
    int64_t fusions = 0; // fusion instructions
};
DumpStageCounts countHloModule(const HloModule& module);
// openDumpStage + countHloModule.
DumpStageCounts countDumpStage(const DumpIndex& index, const DumpStage& stage);

} // namespace tgraph
