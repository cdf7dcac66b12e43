// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/common/jobtracker.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>

namespace tgraph::widgets {

// One user's series of background jobs in one lane of a JobTracker (a panel's inference runs, a
// graph pane's layouts, the project poller's reads). At most one job is current: start() cancels
// the one before, cancel() drops it, and only the current job's signals reach the user. Destroying
// the channel cancels its jobs and waits for them to return.
class JobChannel : public QObject
{
    Q_OBJECT
public:
    JobChannel(JobLane lane, const QString& name, QObject* parent = nullptr, JobTracker* tracker = nullptr);
    ~JobChannel() override;

    // Queues `work` in the channel's lane and returns its job id (ids increase across the whole
    // tracker). The previous job, if still current, is cancelled and its result will be dropped.
    quint64 start(JobTracker::Work work);
    // The typed form of start(): `compute` runs in the lane and returns a Result; `deliver` gets it
    // on the GUI thread, only while the job is still current (a stale result is dropped).
    template <class Result>
    quint64 run(std::function<Result(JobProgress&)> compute, std::function<void(Result)> deliver)
    {
        return start([compute = std::move(compute), deliver = std::move(deliver)](
                         JobProgress& progress) -> JobTracker::Continuation {
            auto result = std::make_shared<Result>(compute(progress));
            return [deliver, result] { deliver(std::move(*result)); };
        });
    }
    // Cancels the current job: emits cancelled() now; its result, if it still comes, is dropped.
    void cancel();

    bool isBusy() const { return m_current != 0; }
    quint64 currentJob() const { return m_current; } // 0 when idle
    JobLane lane() const { return m_lane; }
    QString name() const { return m_name; }
    JobTracker* tracker() const { return m_tracker; }

Q_SIGNALS:
    void started(quint64 job);
    // Polled by the tracker; emitted when the job's innermost step changed. `total` 0 = unknown.
    void progressChanged(quint64 job, const QString& label, quint64 done, quint64 total);
    void finished(quint64 job); // after the continuation ran
    void failed(quint64 job, const QString& message);
    void cancelled(quint64 job);

private:
    friend class JobTracker;
    QPointer<JobTracker> m_tracker;
    const JobLane m_lane;
    const QString m_name;
    quint64 m_current = 0; // kept by the tracker
};

} // namespace tgraph::widgets
