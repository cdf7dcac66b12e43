// SPDX-License-Identifier: Apache-2.0
#include "core/dump/dumpfolder.h"

#include <utility>

namespace tgraph {

DumpFolder::DumpFolder(std::string path)
    : m_path(std::move(path))
{
    m_index.folder = m_path;
}

DumpChanges DumpFolder::rescan()
{
    std::vector<DumpEntry> listing = listDumpFolder(m_path);
    DumpChanges changes = diffDumpListings(m_listing, listing);
    for (const std::string& name : changes.changed)
        m_counts.erase(name);
    for (const std::string& name : changes.removed)
        m_counts.erase(name);
    m_index = buildDumpIndex(m_path, listing);
    m_listing = std::move(listing);
    return changes;
}

std::optional<DumpStageCounts> DumpFolder::cachedCounts(const DumpStage& stage) const
{
    if (stage.hloFiles.empty())
        return std::nullopt;
    const DumpEntry& entry = m_index.files.at(stage.hloFiles.front()).entry;
    const auto it = m_counts.find(entry.name);
    if (it == m_counts.end() || !(it->second.first == entry))
        return std::nullopt;
    return it->second.second;
}

DumpStageCounts DumpFolder::counts(const DumpStage& stage)
{
    if (const auto known = cachedCounts(stage))
        return *known;
    const DumpStageCounts c = countDumpStage(m_index, stage);
    const DumpEntry& entry = m_index.files.at(stage.hloFiles.front()).entry;
    m_counts[entry.name] = { entry, c };
    return c;
}

} // namespace tgraph
