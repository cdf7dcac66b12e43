// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/util/progress.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

class QProgressBar;

namespace tgraph::widgets {

// The ProgressSink of one background job (see JobTracker). The worker thread reports into it; the
// GUI thread polls snapshot() on a timer (no signal per update) and asks the job to stop with cancel().
class JobProgress final : public tgraph::ProgressSink
{
public:
    struct Snapshot
    {
        QString label;
        uint64_t done = 0;
        uint64_t total = 0; // 0 = unknown

        bool operator==(const Snapshot&) const = default;
    };

    explicit JobProgress(quint64 job = 0)
        : m_job(job)
    { }
    // The id JobTracker gave the job.
    quint64 job() const { return m_job; }

    void begin(std::string_view label, uint64_t total) override;
    void update(uint64_t done) override;
    void end() override;
    bool isCancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }

    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    // The innermost running step (the last finished one once all have ended).
    Snapshot snapshot() const;

private:
    struct Step
    {
        std::string label;
        uint64_t done = 0;
        uint64_t total = 0;
    };

    const quint64 m_job;
    std::atomic<bool> m_cancelled { false };
    mutable std::mutex m_mutex;
    std::vector<Step> m_steps; // nested ProgressScopes, outermost first
    Step m_last;
};

// Shows a job's progress on a bar: "label 12/40", or busy (no total) when the total is unknown.
void showJobProgress(QProgressBar* bar, const QString& label, quint64 done, quint64 total);

} // namespace tgraph::widgets
