// SPDX-License-Identifier: Apache-2.0
#pragma once

// An `--xla_dump_to` folder indexed from its file names alone (no file is opened): its modules,
// each with its HLO stages in pass order and its other artifacts, and the files that are no XLA
// dump files (docs/formats.md §17).

#include "core/dump/dumpname.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tgraph {

// One entry of the folder as a listing sees it (lstat, and for a link where it leads).
struct DumpEntry
{
    enum class Type : uint8_t {
        File, // a regular file
        LinkInside, // a symbolic link to a regular file inside the folder (read through the link)
        LinkOutside, // a symbolic link leading out of the folder: never followed
        LinkBroken, // a symbolic link to nothing, or in a loop
        Folder, // a subfolder (or a link to one inside the folder): not searched
        Special, // a FIFO, socket or device: never opened
    };
    std::string name; // as the folder holds it: any bytes but '/' and NUL
    Type type = Type::File;
    uint64_t size = 0; // of the file (for a link: of its target)
    int64_t mtimeNs = 0; // modification time, ns since the epoch
    uint64_t inode = 0; // of the file, to tell a replaced file from a grown one

    bool operator==(const DumpEntry&) const = default;
};
const char* dumpEntryTypeName(DumpEntry::Type type);

// Lists `folder` (one readdir, one lstat per entry, a realpath per link), sorted by name.
// InputError naming the folder when it is missing, not a folder or unreadable.
std::vector<DumpEntry> listDumpFolder(const std::string& folder);

// A file of the folder that is named like an XLA dump file.
struct DumpFile
{
    DumpEntry entry;
    DumpFileName name;
};

// A stage of a module: the HLO module at one point of its compilation.
struct DumpStage
{
    DumpStageKind kind = DumpStageKind::BeforeOptimizations;
    std::string stage; // as the file names write it ("before_optimizations", "0012.fusion.after_a.before_b")
    int64_t index = -1; // the dump counter of Pass and DuringPass stages, else -1
    std::string backend; // after_optimizations stages: "sm_7.0_gpu", "cpu", ... ("" when none)
    std::string pipeline;
    std::string pass;
    std::string nextPass;
    std::string step;
    // The files holding the module at this stage (HLO text, HLO protobufs, compressed or not), the
    // one to read first: text, then a protobuf, uncompressed before gzip before xz. May be empty
    // when only renderings were dumped.
    std::vector<size_t> hloFiles; // indices into DumpIndex::files
    // Buffer assignment, memory usage report, dot / html / url renderings, FDO profile.
    std::vector<size_t> attachments;

    // The file to read (hloFiles.front()), or the first attachment; SIZE_MAX when neither.
    size_t mainFile() const;
};

// One module: the files of one module id and name (and timestamp prefix, when the folder has them).
struct DumpModule
{
    int64_t id = -1;
    std::string name; // "" when every file left it out
    std::optional<uint64_t> timestamp;
    std::string changelist;
    // The backend as the file names tell it: the prefix of after_optimizations ("sm_7.0_gpu",
    // "cpu", "gfx90a_gpu"; several joined by ','), else "tpu" for the TPU compiler's
    // after_optimizations_{before,after}_buffer_assignment, else "gpu" when there is PTX, else "".
    std::string backend;
    std::vector<DumpStage> stages; // in pass order (docs/formats.md §17.2)
    std::vector<size_t> artifacts; // other files of the module, by name
};

// Why an entry is not part of any module.
struct DumpOther
{
    DumpEntry entry;
    std::string why; // "not named like an XLA dump file", "link out of the folder (not followed)", ...
};

struct DumpIndex
{
    std::string folder;
    std::vector<DumpFile> files; // every dump file, by name
    std::vector<DumpModule> modules; // by id, then name, then timestamp
    std::vector<DumpOther> others; // by name

    size_t stageCount() const;
    size_t entryCount() const { return files.size() + others.size(); }
    // The stage's file path: folder + '/' + name.
    std::string path(size_t file) const;
};

// The index of a listing (pure: no file system access), so that a caller polling the folder can
// list it on its own schedule. Grouping (docs/formats.md §17.2): files go to the module of their
// (id, name, timestamp); a file without a timestamp joins the one timestamped module of its id and
// name; a file without a name (XLA leaves it out of names longer than 255 bytes) joins the one
// module of its id that has a name; artifacts whose name was guessed are re-split with the names
// the module's other files give.
DumpIndex buildDumpIndex(std::string folder, std::vector<DumpEntry> entries);

// listDumpFolder + buildDumpIndex.
DumpIndex indexDumpFolder(const std::string& folder);

// What changed between two listings (both sorted by name, as listDumpFolder returns them).
struct DumpChanges
{
    std::vector<std::string> added;
    std::vector<std::string> removed;
    std::vector<std::string> changed; // size, time, type or inode differ (a file still being written)
    bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};
DumpChanges diffDumpListings(const std::vector<DumpEntry>& before, const std::vector<DumpEntry>& after);

} // namespace tgraph
