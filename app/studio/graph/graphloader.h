// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/common/projectinfo.h"

#include "core/view/graphdocument.h"

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <map>
#include <memory>

class JobProgress;
class QTimer;

// Loads graph files into GraphDocuments (graph, module, pruned graph, hierarchy, summary) off the
// GUI thread, one at a time, in the order asked.
// Every job gets a new id; a result whose id is no longer the active one (the job was cancelled
// or superseded) is dropped, so a late worker can never add a tab the user already gave up on.
class GraphLoader : public QObject
{
    Q_OBJECT
public:
    explicit GraphLoader(QObject* parent = nullptr);
    // Cancels running work and waits for the worker threads to return.
    ~GraphLoader() override;

    // Queues files (made absolute); paths already queued or loading are skipped.
    void enqueue(const QStringList& paths);
    // Cancels the running job and forgets the queue.
    void cancelAll();

    bool isBusy() const { return m_activeJob != 0; }
    QString currentPath() const { return m_currentPath; }
    QStringList queuedPaths() const { return m_queue; }
    // The id of the running job, 0 when idle. Ids increase monotonically.
    quint64 activeJobId() const { return m_activeJob; }

Q_SIGNALS:
    void jobStarted(const QString& path, int queued);
    // `total` 0 means the amount of work is unknown.
    void progressChanged(const QString& label, quint64 done, quint64 total);
    // One per document: a tuning record with several modules gives several.
    void loaded(const QString& path, const tgraph::GraphDocumentPtr& document, qint64 elapsedMs);
    // A project file (.tgproj): its experiments and runs.
    void projectLoaded(const QString& path, const ProjectInfoPtr& project, qint64 elapsedMs);
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);
    // Emitted when the last queued job has finished, failed or was cancelled.
    void idle();

private:
    struct Result;
    void startNext();
    void finishJob(quint64 jobId, const Result& result);
    void pollProgress();

    QThreadPool m_pool;
    QTimer* m_pollTimer = nullptr;
    QStringList m_queue;
    QString m_currentPath;
    QElapsedTimer m_elapsed;
    quint64 m_lastJobId = 0;
    quint64 m_activeJob = 0;
    std::map<quint64, std::shared_ptr<JobProgress>> m_running; // includes cancelled jobs still unwinding
    QString m_lastLabel;
    quint64 m_lastDone = 0;
    quint64 m_lastTotal = 0;
};
