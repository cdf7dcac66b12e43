// SPDX-License-Identifier: Apache-2.0
#include "app/studio/common/jobrunner.h"

#include "app/studio/common/jobprogress.h"
#include "app/studio/common/studiolog.h"

#include "core/util/error.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent>

namespace {

struct JobResult
{
    std::function<void()> apply;
    bool cancelled = false;
    QString error;
};

std::function<void()>& afterEachJob()
{
    static std::function<void()> hook;
    return hook;
}

} // namespace

JobRunner::JobRunner(const QString& name, QObject* parent)
    : QObject(parent)
    , m_name(name)
    , m_pollTimer(new QTimer(this))
{
    m_pool.setMaxThreadCount(1);
    m_pool.setObjectName(name);
    m_pollTimer->setInterval(100);
    connect(m_pollTimer, &QTimer::timeout, this, &JobRunner::poll);
}

JobRunner::~JobRunner()
{
    for (auto& [id, progress] : m_running)
        progress->cancel();
    m_pool.waitForDone();
}

void JobRunner::cancel()
{
    if (!isBusy())
        return;
    if (const auto it = m_running.find(m_activeJob); it != m_running.end())
        it->second->cancel();
    qCDebug(lcStudio) << m_name << "job" << m_activeJob << "cancelled";
    m_activeJob = 0;
    m_pollTimer->stop();
    Q_EMIT cancelled();
}

void JobRunner::setAfterEachJob(std::function<void()> hook) { afterEachJob() = std::move(hook); }

void JobRunner::start(Work work)
{
    if (isBusy())
        if (const auto it = m_running.find(m_activeJob); it != m_running.end())
            it->second->cancel();
    const quint64 jobId = ++m_lastJobId;
    m_activeJob = jobId;
    auto progress = std::make_shared<JobProgress>();
    m_running[jobId] = progress;
    auto* watcher = new QFutureWatcher<JobResult>(this);
    connect(watcher, &QFutureWatcher<JobResult>::finished, this, [this, watcher, jobId] {
        watcher->deleteLater();
        m_running.erase(jobId);
        JobResult result = watcher->result();
        if (jobId != m_activeJob) {
            qCDebug(lcStudio) << "dropping the result of superseded" << m_name << "job" << jobId;
            return;
        }
        m_activeJob = 0;
        m_pollTimer->stop();
        if (result.cancelled) {
            Q_EMIT cancelled();
        } else if (!result.error.isEmpty()) {
            Q_EMIT failed(result.error);
        } else {
            if (result.apply)
                result.apply();
            Q_EMIT finished();
        }
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, [work = std::move(work), progress, name = m_name]() -> JobResult {
        JobResult r;
        try {
            r.apply = work(*progress);
        } catch (const tgraph::Cancelled&) {
            r.cancelled = true;
        } catch (const std::bad_alloc&) {
            r.error = QStringLiteral("not enough memory for the %1 job").arg(name.toLower());
        } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
        } catch (...) {
            r.error = QStringLiteral("unknown error in the %1 job").arg(name.toLower());
        }
        // The tensors' memory kept for the job's next pass goes back to the system (the hook): a desktop
        // application should not hold gigabytes while it waits for the user.
        if (const auto& hook = afterEachJob())
            hook();
        return r;
    }));
    m_pollTimer->start();
    Q_EMIT started();
}

void JobRunner::poll()
{
    const auto it = m_running.find(m_activeJob);
    if (it == m_running.end())
        return;
    const JobProgress::Snapshot s = it->second->snapshot();
    Q_EMIT progressChanged(s.label, s.done, s.total);
}
