// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/dump/dumpindex.h"
#include "core/dump/dumpstage.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tgraph {

// A dump folder followed while a program may still be writing into it: rescan() lists it again and
// says what changed, and stage counts are parsed once and kept while their file stays the same.
// Not thread-safe: use one from one thread at a time (a background job can rescan and hand a copy
// of index() to the GUI).
class DumpFolder
{
public:
    explicit DumpFolder(std::string path);

    // Lists the folder and rebuilds the index; returns what changed since the previous scan (the
    // first one reports every entry as added). Counts of files that changed are forgotten.
    // InputError naming the folder when it cannot be listed (the previous index is kept).
    DumpChanges rescan();

    const std::string& path() const { return m_path; }
    const DumpIndex& index() const { return m_index; }
    const std::vector<DumpEntry>& listing() const { return m_listing; }

    // The counts of a stage of index(): parsed on the first call (InputError as openDumpStage),
    // then remembered while its file keeps its size, time and inode.
    DumpStageCounts counts(const DumpStage& stage);
    // The remembered counts, nullopt when not parsed yet.
    std::optional<DumpStageCounts> cachedCounts(const DumpStage& stage) const;

private:
    std::string m_path;
    std::vector<DumpEntry> m_listing;
    DumpIndex m_index;
    std::map<std::string, std::pair<DumpEntry, DumpStageCounts>> m_counts; // by file name
};

} // namespace tgraph
