// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/common/projectinfo.h"

#include "core/view/graphdocument.h"

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>

namespace tgraph::widgets {
class JobChannel;
}

namespace tgraph::studio {

// Loads graph files into GraphDocuments (graph, module, pruned graph, hierarchy, summary) off the
// GUI thread, one at a time, in the order asked: a channel of the io lane of the studio's
// JobTracker. Every job gets a new id; a result whose job is no longer the active one (it was
// cancelled or superseded) is dropped, so a late worker can never add a tab the user already gave up on.
class GraphLoader : public QObject
{
    Q_OBJECT
public:
    explicit GraphLoader(QObject* parent = nullptr);
    // Cancels running work and waits for it to return.
    ~GraphLoader() override;

    // Queues files (made absolute); paths already queued or loading are skipped.
    void enqueue(const QStringList& paths);
    // Cancels the running job and forgets the queue.
    void cancelAll();

    bool isBusy() const;
    QString currentPath() const { return m_currentPath; }
    QStringList queuedPaths() const { return m_queue; }
    // The id of the running job, 0 when idle. Ids increase monotonically.
    quint64 activeJobId() const;

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
    void startNext();
    // After a job: the next file, or idle() when none is left.
    void goOn();

    widgets::JobChannel* m_channel = nullptr;
    QStringList m_queue;
    QString m_currentPath;
    QElapsedTimer m_elapsed;
};

} // namespace tgraph::studio
