// SPDX-License-Identifier: Apache-2.0
#include "app/studio/graph/graphloader.h"

#include "app/studio/common/studiolog.h"

#include "widgets/common/jobchannel.h"

#include <QFileInfo>

#include <new>
#include <stdexcept>
#include <utility>

namespace tgraph::studio {

using namespace tgraph::widgets;

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
    , m_channel(new JobChannel(JobLane::Io, QStringLiteral("Load"), this))
{
    connect(m_channel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64 done, quint64 total) {
            Q_EMIT progressChanged(label, done, total);
        });
    // The continuation has emitted loaded() or projectLoaded() by now.
    connect(m_channel, &JobChannel::finished, this, &GraphLoader::goOn);
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        const QString path = std::exchange(m_currentPath, {});
        const QString text = messageNamingFile(path, message);
        qCWarning(lcStudio).noquote() << text;
        Q_EMIT failed(path, text);
        goOn();
    });
    connect(m_channel, &JobChannel::cancelled, this, [this] {
        Q_EMIT cancelled(std::exchange(m_currentPath, {}));
        goOn();
    });
}

GraphLoader::~GraphLoader() = default; // m_channel cancels and waits

bool GraphLoader::isBusy() const { return m_channel->isBusy(); }

quint64 GraphLoader::activeJobId() const { return m_channel->currentJob(); }

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
    m_channel->cancel(); // emits cancelled() and then idle() through the handler above
}

void GraphLoader::goOn()
{
    // A slot of the signals above may already have started the next job (by enqueueing).
    if (isBusy())
        return;
    if (m_queue.isEmpty())
        Q_EMIT idle();
    else
        startNext();
}

void GraphLoader::startNext()
{
    if (isBusy() || m_queue.isEmpty())
        return;
    m_currentPath = m_queue.takeFirst();
    m_elapsed.start();
    const quint64 job = m_channel->start(
        [this, path = m_currentPath.toStdString()](JobProgress& progress) -> JobTracker::Continuation {
            ProjectInfoPtr project;
            // One per module (a TuningData or a text file split by `// -----` lines holds several).
            std::vector<tgraph::GraphDocumentPtr> documents;
            try {
                if (isProjectFile(path))
                    project = readProjectInfo(path);
                else
                    for (auto& document : tgraph::openGraphDocuments(path, &progress))
                        documents.push_back(std::move(document));
            } catch (const std::bad_alloc&) {
                throw std::runtime_error("not enough memory to load the graph");
            }
            return [this, project, documents = std::move(documents)] {
                const QString path = std::exchange(m_currentPath, {});
                const qint64 elapsedMs = m_elapsed.elapsed();
                qCDebug(lcStudio) << "loaded" << path << "in" << elapsedMs << "ms";
                if (project)
                    Q_EMIT projectLoaded(path, project, elapsedMs);
                for (const tgraph::GraphDocumentPtr& document : documents)
                    Q_EMIT loaded(path, document, elapsedMs);
            };
        });
    qCDebug(lcStudio) << "job" << job << "loads" << m_currentPath;
    Q_EMIT jobStarted(m_currentPath, int(m_queue.size()));
}

} // namespace tgraph::studio
