// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/jobtracker.h"

#include "widgets/common/jobchannel.h"

#include "core/util/error.h"

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QPointer>
#include <QScopeGuard>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <new>
#include <vector>

namespace tgraph::widgets {

Q_LOGGING_CATEGORY(lcJobs, "tgraph.jobs", QtWarningMsg)

struct JobTracker::State
{
    explicit State(quint64 job)
        : progress(job)
    { }
    JobProgress progress;
    std::atomic<bool> running { false }; // the work has begun on a worker thread
};

struct JobTracker::Outcome
{
    Continuation apply;
    QString error;
    bool cancelled = false;
};

namespace {

const char* laneName(JobLane lane)
{
    switch (lane) {
    case JobLane::Model:
        return "model";
    case JobLane::Layout:
        return "layout";
    case JobLane::Io:
        return "io";
    }
    return "?";
}

} // namespace

JobTracker::JobTracker(QObject* parent)
    : QObject(parent)
    , m_progressTimer(new QTimer(this))
{
    for (const JobLane lane : { JobLane::Model, JobLane::Layout, JobLane::Io }) {
        pool(lane).setMaxThreadCount(maxThreads(lane));
        pool(lane).setObjectName(QStringLiteral("jobs-%1").arg(QLatin1String(laneName(lane))));
    }
    m_progressTimer->setInterval(kProgressIntervalMs);
    connect(m_progressTimer, &QTimer::timeout, this, &JobTracker::poll);
}

JobTracker::~JobTracker()
{
    for (auto& [id, job] : m_jobs)
        job.state->progress.cancel();
    for (JobChannel* channel : m_channels)
        channel->m_current = 0;
    for (QThreadPool& pool : m_pools)
        pool.waitForDone();
}

JobTracker* JobTracker::instance()
{
    static QPointer<JobTracker> s_instance;
    if (!s_instance)
        s_instance = new JobTracker(QCoreApplication::instance());
    return s_instance;
}

int JobTracker::maxThreads(JobLane lane)
{
    switch (lane) {
    case JobLane::Model:
    case JobLane::Layout:
        return 1;
    case JobLane::Io:
        // A new file load need not wait for a cancelled one to reach its next checkpoint, nor for
        // a poll of the project file.
        return 4;
    }
    return 1;
}

void JobTracker::attach(JobChannel* channel) { m_channels.insert(channel); }

void JobTracker::detach(JobChannel* channel)
{
    m_channels.erase(channel);
    std::vector<QFuture<void>> running;
    for (auto& [id, job] : m_jobs)
        if (job.channel == channel) {
            job.state->progress.cancel();
            job.channel = nullptr;
            running.push_back(job.future);
        }
    channel->m_current = 0;
    // A job that has not begun yet returns at once (it may run here, on the GUI thread, to do so).
    for (QFuture<void>& future : running)
        future.waitForFinished();
    updateTimer();
}

namespace {
std::array<std::function<void()>, 3>& afterEachJob()
{
    static std::array<std::function<void()>, 3> hooks;
    return hooks;
}
} // namespace

void JobTracker::setAfterEachJob(JobLane lane, std::function<void()> hook) { afterEachJob()[size_t(lane)] = std::move(hook); }

quint64 JobTracker::start(JobChannel* channel, Work work)
{
    if (channel->m_current)
        if (const auto it = m_jobs.find(channel->m_current); it != m_jobs.end())
            it->second.state->progress.cancel(); // superseded: its result will be dropped
    const quint64 id = ++m_lastJob;
    channel->m_current = id;

    Job& job = m_jobs[id];
    job.lane = channel->lane();
    job.channel = channel;
    job.name = channel->name();
    job.state = std::make_shared<State>(id);
    qCDebug(lcJobs) << "job" << id << job.name << "queued in the" << laneName(job.lane) << "lane";

    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, id] {
        watcher->deleteLater();
        finish(id, watcher->result());
    });
    QFuture<Outcome> future = QtConcurrent::run(
        &pool(job.lane),
        [work = std::move(work), state = job.state, name = job.name.toLower(), lane = job.lane]() -> Outcome {
            const auto after = qScopeGuard([lane] {
                if (const auto& hook = afterEachJob()[size_t(lane)])
                    hook();
            });
            Outcome outcome;
            if (state->progress.isCancelled()) { // superseded or cancelled while queued
                outcome.cancelled = true;
                return outcome;
            }
            state->running.store(true);
            try {
                outcome.apply = work(state->progress);
            } catch (const tgraph::Cancelled&) {
                outcome.cancelled = true;
            } catch (const std::bad_alloc&) {
                outcome.error = QStringLiteral("not enough memory for the %1 job").arg(name);
            } catch (const std::exception& e) {
                outcome.error = QString::fromStdString(e.what());
            } catch (...) {
                outcome.error = QStringLiteral("unknown error in the %1 job").arg(name);
            }
            return outcome;
        });
    job.future = future;
    watcher->setFuture(future);
    updateTimer();
    Q_EMIT channel->started(id);
    return id;
}

void JobTracker::finish(quint64 id, const Outcome& outcome)
{
    const auto it = m_jobs.find(id);
    if (it == m_jobs.end())
        return;
    const QPointer<JobChannel> channel = it->second.channel;
    const QString name = it->second.name;
    m_jobs.erase(it);
    if (!channel || channel->m_current != id) {
        qCDebug(lcJobs) << "dropping the result of superseded job" << id << name;
        updateTimer();
        return;
    }
    channel->m_current = 0;
    updateTimer();
    if (outcome.cancelled) {
        qCDebug(lcJobs) << "job" << id << name << "cancelled itself";
        Q_EMIT channel->cancelled(id);
    } else if (!outcome.error.isEmpty()) {
        qCDebug(lcJobs).noquote() << "job" << id << name << "failed:" << outcome.error;
        Q_EMIT channel->failed(id, outcome.error);
    } else {
        qCDebug(lcJobs) << "job" << id << name << "finished";
        if (outcome.apply)
            outcome.apply();
        if (channel) // the continuation may have deleted its owner
            Q_EMIT channel->finished(id);
    }
}

void JobTracker::cancel(quint64 id)
{
    const auto it = m_jobs.find(id);
    if (it == m_jobs.end())
        return;
    it->second.state->progress.cancel();
    JobChannel* channel = it->second.channel;
    if (!channel || channel->m_current != id)
        return;
    qCDebug(lcJobs) << "job" << id << it->second.name << "cancelled";
    channel->m_current = 0; // its result, if it still comes, is dropped
    updateTimer();
    Q_EMIT channel->cancelled(id);
}

void JobTracker::cancelLane(JobLane lane)
{
    std::vector<quint64> ids;
    for (const auto& [id, job] : m_jobs)
        if (job.lane == lane)
            ids.push_back(id);
    for (const quint64 id : ids)
        cancel(id);
}

void JobTracker::cancelAll()
{
    for (const JobLane lane : { JobLane::Model, JobLane::Layout, JobLane::Io })
        cancelLane(lane);
}

bool JobTracker::isCurrent(quint64 id) const
{
    const auto it = m_jobs.find(id);
    return it != m_jobs.end() && it->second.channel && it->second.channel->m_current == id;
}

int JobTracker::pendingJobs(JobLane lane) const
{
    int count = 0;
    for (const auto& [id, job] : m_jobs)
        count += job.lane == lane;
    return count;
}

void JobTracker::updateTimer()
{
    bool anyCurrent = false;
    for (const auto& [id, job] : m_jobs)
        anyCurrent = anyCurrent || (job.channel && job.channel->m_current == id);
    if (!anyCurrent)
        m_progressTimer->stop();
    else if (!m_progressTimer->isActive())
        m_progressTimer->start();
}

QString JobTracker::waitingLabel(JobLane lane) const
{
    QStringList running;
    for (const auto& [id, job] : m_jobs)
        if (job.lane == lane && job.state->running.load() && !running.contains(job.name))
            running << job.name;
    return running.isEmpty() ? tr("Waiting") : tr("Waiting for %1").arg(running.join(QStringLiteral(", ")));
}

void JobTracker::poll()
{
    // Collected first: a receiver may start or cancel jobs.
    struct Report
    {
        QPointer<JobChannel> channel;
        quint64 job;
        JobProgress::Snapshot snapshot;
    };
    std::vector<Report> reports;
    for (auto& [id, job] : m_jobs) {
        if (!job.channel || job.channel->m_current != id)
            continue;
        JobProgress::Snapshot s = job.state->running.load() ? job.state->progress.snapshot()
                                                            : JobProgress::Snapshot { waitingLabel(job.lane), 0, 0 };
        if (s == job.reported)
            continue;
        job.reported = s;
        reports.push_back({ job.channel, id, std::move(s) });
    }
    for (const Report& r : reports)
        if (r.channel && r.channel->m_current == r.job)
            Q_EMIT r.channel->progressChanged(r.job, r.snapshot.label, r.snapshot.done, r.snapshot.total);
}

} // namespace tgraph::widgets
