// SPDX-License-Identifier: Apache-2.0
#include "core/train/graphcache.h"

#include "core/util/error.h"

#include <algorithm>

namespace tgraph {

GraphCache::GraphCache(size_t capacity, TrainingDataOptions options)
    : m_capacity(std::max<size_t>(1, capacity))
    , m_options(std::move(options))
{
    m_options.progress = nullptr;
    m_options.residentGraphs = 0;
}

int64_t GraphCache::reads() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_reads;
}

std::shared_ptr<const TrainingGraph> GraphCache::acquire(const TrainingGraph& stub)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (it->path == stub.path) {
            m_entries.splice(m_entries.begin(), m_entries, it);
            return m_entries.front().graph;
        }
    }
    // Make room first, so at most `capacity` prepared graphs are held by the cache at any time.
    while (m_entries.size() >= m_capacity)
        m_entries.pop_back();
    PreparedGraph prepared = prepareTrainingGraph({ stub.path, stub.split, true }, m_options);
    ++m_reads;
    TrainingGraph& g = prepared.graph;
    const auto changed = [&stub](const std::string& what) {
        return InputError(stub.path, "", "changed since it was loaded (" + what + "); load the data again");
    };
    if (!prepared.why.empty())
        throw changed(prepared.why);
    if (g.kind != stub.kind || g.configCount() != stub.configCount() || g.nodeCount() != stub.nodeCount())
        throw changed("its configurations or nodes differ");
    const NdArray<int64_t>& before = stub.runtimes();
    const NdArray<int64_t>& now = g.runtimes();
    if (!std::equal(before.data(), before.data() + before.size(), now.data()))
        throw changed("config_runtime differs");
    g.nodeStats = stub.nodeStats;
    auto graph = std::make_shared<const TrainingGraph>(std::move(g));
    m_entries.push_front({ stub.path, graph });
    return graph;
}

} // namespace tgraph
