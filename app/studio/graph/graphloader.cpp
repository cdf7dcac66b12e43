// SPDX-License-Identifier: Apache-2.0
#include "app/studio/graph/graphloader.h"

#include "app/studio/common/jobprogress.h"
#include "app/studio/common/studiolog.h"

#include "core/util/error.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <new>

struct GraphLoader::Result
{
    enum class Status { Loaded, Failed, Cancelled };
    Status status = Status::Failed;
    std::vector<tgraph::GraphDocumentPtr> documents; // one per module (TuningData holds several)
    ProjectInfoPtr project; // project files
    QString error;
};

namespace {

// The one-line message for the error banner; it always names the file.
QString messageNamingFile(const QString& path, const QString& message)
{
    const QString name = QFileInfo(path).fileName();
    return message.contains(name) ? message : name + QStringLiteral(": ") + message;
}

} // namespace

GraphLoader::GraphLoader(QObject* parent)
    : QObject(parent)
    , m_pollTimer(new QTimer(this))
{
    // Two threads: a new load need not wait for a cancelled one to reach its next checkpoint.
    m_pool.setMaxThreadCount(2);
    m_pool.setObjectName(QStringLiteral("GraphLoader"));
    m_pollTimer->setInterval(100);
    connect(m_pollTimer, &QTimer::timeout, this, &GraphLoader::pollProgress);
}

GraphLoader::~GraphLoader()
{
    for (auto& [id, progress] : m_running)
        progress->cancel();
    m_pool.waitForDone();
}

void GraphLoader::enqueue(const QStringList& paths)
{
    for (const QString& path : paths) {
        const QString absolute = QFileInfo(path).absoluteFilePath();
        if ((isBusy() && absolute == m_currentPath) || m_queue.contains(absolute))
            continue;
        m_queue.append(absolute);
    }
    startNext();
}

void GraphLoader::cancelAll()
{
    m_queue.clear();
    if (!isBusy())
        return;
    const auto it = m_running.find(m_activeJob);
    if (it != m_running.end())
        it->second->cancel();
    qCDebug(lcStudio) << "cancelled job" << m_activeJob << m_currentPath;
    const QString path = m_currentPath;
    m_activeJob = 0; // its result, if it still comes, is dropped
    m_currentPath.clear();
    m_pollTimer->stop();
    Q_EMIT cancelled(path);
    Q_EMIT idle();
}

void GraphLoader::startNext()
{
    if (isBusy() || m_queue.isEmpty())
        return;

    const quint64 jobId = ++m_lastJobId;
    m_activeJob = jobId;
    m_currentPath = m_queue.takeFirst();
    auto progress = std::make_shared<JobProgress>();
    m_running[jobId] = progress;
    m_lastLabel.clear();
    m_lastDone = m_lastTotal = 0;
    m_elapsed.start();
    qCDebug(lcStudio) << "job" << jobId << "loads" << m_currentPath;

    auto* watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, jobId] {
        watcher->deleteLater();
        m_running.erase(jobId);
        finishJob(jobId, watcher->result());
    });
    const std::string path = m_currentPath.toStdString();
    watcher->setFuture(QtConcurrent::run(&m_pool, [path, progress]() -> Result {
        const QString qpath = QString::fromStdString(path);
        Result result;
        try {
            if (isProjectFile(path)) {
                result.project = readProjectInfo(path);
            } else {
                for (auto& document : tgraph::openGraphDocuments(path, progress.get()))
                    result.documents.push_back(std::move(document));
            }
            result.status = Result::Status::Loaded;
        } catch (const tgraph::Cancelled&) {
            result.status = Result::Status::Cancelled;
        } catch (const tgraph::InputError& e) {
            result.error = messageNamingFile(qpath, QString::fromStdString(e.what()));
        } catch (const std::bad_alloc&) {
            result.error = messageNamingFile(qpath, QStringLiteral("not enough memory to load the graph"));
        } catch (const std::exception& e) {
            result.error = messageNamingFile(qpath, QString::fromStdString(e.what()));
        } catch (...) {
            result.error = messageNamingFile(qpath, QStringLiteral("unknown error"));
        }
        return result;
    }));

    Q_EMIT jobStarted(m_currentPath, int(m_queue.size()));
    m_pollTimer->start();
}

void GraphLoader::finishJob(quint64 jobId, const Result& result)
{
    if (jobId != m_activeJob) {
        qCDebug(lcStudio) << "dropping the result of superseded job" << jobId;
        return;
    }
    const QString path = m_currentPath;
    const qint64 elapsedMs = m_elapsed.elapsed();
    m_activeJob = 0;
    m_currentPath.clear();
    m_pollTimer->stop();

    switch (result.status) {
    case Result::Status::Loaded:
        qCDebug(lcStudio) << "job" << jobId << "loaded" << path << "in" << elapsedMs << "ms";
        if (result.project)
            Q_EMIT projectLoaded(path, result.project, elapsedMs);
        for (const tgraph::GraphDocumentPtr& document : result.documents)
            Q_EMIT loaded(path, document, elapsedMs);
        break;
    case Result::Status::Failed:
        qCWarning(lcStudio).noquote() << result.error;
        Q_EMIT failed(path, result.error);
        break;
    case Result::Status::Cancelled:
        Q_EMIT cancelled(path);
        break;
    }

    // A slot above may already have started the next job (by enqueueing).
    if (isBusy())
        return;
    if (m_queue.isEmpty())
        Q_EMIT idle();
    else
        startNext();
}

void GraphLoader::pollProgress()
{
    const auto it = m_running.find(m_activeJob);
    if (it == m_running.end())
        return;
    const JobProgress::Snapshot s = it->second->snapshot();
    if (s.label == m_lastLabel && s.done == m_lastDone && s.total == m_lastTotal)
        return;
    m_lastLabel = s.label;
    m_lastDone = s.done;
    m_lastTotal = s.total;
    Q_EMIT progressChanged(s.label, s.done, s.total);
}
