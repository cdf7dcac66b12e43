// SPDX-License-Identifier: Apache-2.0
#pragma once

// The prepared graphs of a lazily loaded collection (docs/model.md §2.4): at most `capacity` held,
// least recently used dropped first. A graph not held is read from its file again and prepared
// as at loading (pruned, de-duplicated, configurations base-7 compressed), then checked against
// what loading recorded. Thread-safe. Torch-free.

#include "core/train/trainingset.h"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

namespace tgraph {

class GraphCache
{
public:
    GraphCache(size_t capacity, TrainingDataOptions options);

    // `stub` with all its arrays. InputError naming the file when it no longer prepares to the same
    // configurations, runtimes and nodes as when it was loaded.
    std::shared_ptr<const TrainingGraph> acquire(const TrainingGraph& stub);

    size_t capacity() const { return m_capacity; }
    int64_t reads() const; // files read since construction (hits do not count)

private:
    struct Entry
    {
        std::string path;
        std::shared_ptr<const TrainingGraph> graph;
    };
    size_t m_capacity;
    TrainingDataOptions m_options;
    mutable std::mutex m_mutex;
    std::list<Entry> m_entries; // most recently used first
    int64_t m_reads = 0;
};

} // namespace tgraph
