// SPDX-License-Identifier: Apache-2.0
#include "inferencerunner.h"

#include "jobprogress.h"
#include "studiolog.h"

#include "core/error.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent>

namespace {

struct JobResult
{
    std::shared_ptr<const InferenceOutcome> outcome;
    bool cancelled = false;
    QString error;
};

} // namespace

InferenceRunner::InferenceRunner(QObject* parent)
    : QObject(parent)
    , m_pollTimer(new QTimer(this))
{
    // One thread: LibTorch already uses every core inside a forward pass.
    m_pool.setMaxThreadCount(1);
    m_pool.setObjectName(QStringLiteral("Inference"));
    m_pollTimer->setInterval(100);
    connect(m_pollTimer, &QTimer::timeout, this, &InferenceRunner::poll);
}

InferenceRunner::~InferenceRunner()
{
    for (auto& [id, progress] : m_running)
        progress->cancel();
    m_pool.waitForDone();
}

void InferenceRunner::cancel()
{
    if (!isBusy())
        return;
    if (const auto it = m_running.find(m_activeJob); it != m_running.end())
        it->second->cancel();
    qCDebug(lcStudio) << "inference job" << m_activeJob << "cancelled";
    m_activeJob = 0;
    m_pollTimer->stop();
    Q_EMIT cancelled();
}

void InferenceRunner::start(InferenceRequest request)
{
    if (isBusy()) {
        if (const auto it = m_running.find(m_activeJob); it != m_running.end())
            it->second->cancel();
    }
    const quint64 jobId = ++m_lastJobId;
    m_activeJob = jobId;
    auto progress = std::make_shared<JobProgress>();
    m_running[jobId] = progress;
    auto* watcher = new QFutureWatcher<JobResult>(this);
    connect(watcher, &QFutureWatcher<JobResult>::finished, this, [this, watcher, jobId] {
        watcher->deleteLater();
        m_running.erase(jobId);
        const JobResult result = watcher->result();
        if (jobId != m_activeJob) {
            qCDebug(lcStudio) << "dropping the result of superseded inference job" << jobId;
            return;
        }
        m_activeJob = 0;
        m_pollTimer->stop();
        if (result.cancelled)
            Q_EMIT cancelled();
        else if (!result.error.isEmpty())
            Q_EMIT failed(result.error);
        else
            Q_EMIT finished(result.outcome);
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, [request = std::move(request), progress]() -> JobResult {
        JobResult r;
        try {
            r.outcome = std::make_shared<const InferenceOutcome>(runInference(request, progress.get()));
        } catch (const tgraph::Cancelled&) {
            r.cancelled = true;
        } catch (const std::bad_alloc&) {
            r.error = QStringLiteral("not enough memory for inference; lower the configs per pass");
        } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
        } catch (...) {
            r.error = QStringLiteral("unknown error during inference");
        }
        return r;
    }));
    m_pollTimer->start();
    Q_EMIT started();
}

void InferenceRunner::poll()
{
    const auto it = m_running.find(m_activeJob);
    if (it == m_running.end())
        return;
    const JobProgress::Snapshot s = it->second->snapshot();
    Q_EMIT progressChanged(s.label, s.done, s.total);
}
