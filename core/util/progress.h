// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string_view>

namespace tgraph {

// Receives progress of long operations (file loads, pruning, benchmarks). Implementations: the
// CLI's TTY progress bar, the GUI's status-bar job. Long loops call checkpoint(), which throws
// tgraph::Cancelled when isCancelled() turns true.
class ProgressSink
{
public:
    virtual ~ProgressSink() = default;
    virtual void begin(std::string_view label, uint64_t total) = 0;
    virtual void update(uint64_t done) = 0;
    virtual void end() { }
    virtual bool isCancelled() const { return false; }

    void checkpoint(uint64_t done);
};

// Scoped helper: begin() on construction, end() on destruction; all calls are no-ops for nullptr.
class ProgressScope
{
public:
    ProgressScope(ProgressSink* sink, std::string_view label, uint64_t total);
    ~ProgressScope();
    ProgressScope(const ProgressScope&) = delete;
    ProgressScope& operator=(const ProgressScope&) = delete;

    // Reports `done` units and throws tgraph::Cancelled if the sink asks to stop.
    void advanceTo(uint64_t done);
    void advanceBy(uint64_t delta) { advanceTo(m_done + delta); }
    uint64_t done() const { return m_done; }

private:
    ProgressSink* m_sink;
    uint64_t m_done = 0;
};

} // namespace tgraph
