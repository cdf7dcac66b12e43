// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/common/jobprogress.h"

#include <QFuture>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>

class QTimer;

namespace tgraph::widgets {

class JobChannel;

// The lanes background work runs in. Each lane has its own threads; a job waits in its lane until
// one is free, and its progress reads "Waiting for ..." meanwhile.
enum class JobLane {
    Model, // one thread: a LibTorch pass uses every core, so inference, explain, what-if and tune run one after another
    Layout, // one thread: Graphviz keeps global state (docs/architecture.md, "Background work")
    Io, // a few threads: opening files, reading project files
};

// All of the studio's background work goes through one tracker (the way Hotspot and heaptrack do
// it): it owns the lanes' threads, gives every job an id, runs it off the GUI thread, polls the
// running jobs' JobProgress on one timer, turns exceptions into failure messages and
// tgraph::Cancelled into cancellation, and runs a job's continuation on the GUI thread only while
// the job is current.
//
// Jobs are started through a JobChannel: one user's series of jobs in one lane (a panel's
// inference, a graph pane's layouts, the project poller). A channel has at most one current job;
// starting another cancels it, and the result of a job that is no longer current (superseded or
// cancelled) is dropped, so a slow old job can never overwrite a newer result. Channels of the same
// lane never cancel each other; they only share its threads.
class JobTracker : public QObject
{
    Q_OBJECT
public:
    // Runs on the GUI thread after the job, only while the job is still current.
    using Continuation = std::function<void()>;
    // Runs on a worker thread of the lane; returns its continuation (may be empty). Long loops
    // check `progress` (tgraph::ProgressScope), which throws tgraph::Cancelled once it is cancelled.
    using Work = std::function<Continuation(JobProgress& progress)>;

    explicit JobTracker(QObject* parent = nullptr);
    ~JobTracker() override; // cancels every job and waits for the lanes' threads

    // The application's tracker, created on first use and owned by the QCoreApplication.
    static JobTracker* instance();

    static constexpr int kProgressIntervalMs = 100;
    static int maxThreads(JobLane lane);
    // Runs on the worker thread after every job of `lane`, failed and cancelled ones too
    // (tgraph-studio's main() gives the model runtime's cached memory back after each model job).
    // Set once at start-up, before the lane's first job.
    static void setAfterEachJob(JobLane lane, std::function<void()> hook);

    // Cancels one job; if it is its channel's current job, the channel emits cancelled() now.
    void cancel(quint64 job);
    // Cancels every job of a lane (each channel's current one emits cancelled()).
    void cancelLane(JobLane lane);
    void cancelAll();

    // Whether `job` is its channel's current job (not finished, superseded or cancelled).
    bool isCurrent(quint64 job) const;
    // Jobs of `lane` not yet returned: queued or running, including superseded ones still unwinding.
    int pendingJobs(JobLane lane) const;

private:
    friend class JobChannel;
    struct State; // what the worker shares with the GUI thread
    struct Outcome;
    struct Job
    {
        JobLane lane = JobLane::Io;
        JobChannel* channel = nullptr; // null once the channel is gone
        QString name; // the channel's, for messages
        std::shared_ptr<State> state;
        QFuture<void> future;
        JobProgress::Snapshot reported; // what the channel last heard
    };

    quint64 start(JobChannel* channel, Work work);
    void attach(JobChannel* channel);
    void detach(JobChannel* channel); // cancels its jobs and waits for them to return
    void finish(quint64 job, const Outcome& outcome);
    void dropCurrent(JobChannel* channel);
    void updateTimer();
    void poll();
    QString waitingLabel(JobLane lane) const;
    QThreadPool& pool(JobLane lane) { return m_pools[size_t(lane)]; }

    std::array<QThreadPool, 3> m_pools;
    QTimer* m_progressTimer = nullptr;
    quint64 m_lastJob = 0;
    std::map<quint64, Job> m_jobs; // queued or running
    std::set<JobChannel*> m_channels;
};

} // namespace tgraph::widgets
