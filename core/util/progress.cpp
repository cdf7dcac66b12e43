// SPDX-License-Identifier: Apache-2.0
#include "core/util/progress.h"

#include "core/util/error.h"

namespace tgraph {

void ProgressSink::checkpoint(uint64_t done)
{
    update(done);
    if (isCancelled())
        throw Cancelled();
}

ProgressScope::ProgressScope(ProgressSink* sink, std::string_view label, uint64_t total)
    : m_sink(sink)
{
    if (m_sink)
        m_sink->begin(label, total);
}

ProgressScope::~ProgressScope()
{
    if (m_sink)
        m_sink->end();
}

void ProgressScope::advanceTo(uint64_t done)
{
    m_done = done;
    if (m_sink)
        m_sink->checkpoint(done);
}

} // namespace tgraph
