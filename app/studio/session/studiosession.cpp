// SPDX-License-Identifier: Apache-2.0
#include "app/studio/session/studiosession.h"

#include "widgets/common/jobchannel.h"

#include <QFileInfo>
#include <QTimer>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

QString absolutePath(const std::string& path) { return QFileInfo(QString::fromStdString(path)).absoluteFilePath(); }

bool sameRuns(const ProjectInfo& a, const ProjectInfo& b)
{
    return std::equal(a.runs.begin(), a.runs.end(), b.runs.begin(), b.runs.end(),
        [](const tgraph::RunRecord& x, const tgraph::RunRecord& y) {
            return x.id == y.id && x.name == y.name && x.status == y.status && x.parentRun == y.parentRun;
        });
}

} // namespace

StudioSession::StudioSession(QObject* parent)
    : QObject(parent)
    , m_projectPoll(new JobChannel(JobLane::Io, QStringLiteral("Projects"), this))
    , m_projectTimer(new QTimer(this))
{
    m_projectTimer->setInterval(kProjectPollMs);
    connect(m_projectTimer, &QTimer::timeout, this, &StudioSession::refreshProjects);
    m_projectTimer->start();
}

StudioSession::~StudioSession() = default;

void StudioSession::setDocuments(std::vector<tgraph::GraphDocumentPtr> documents, tgraph::GraphDocumentPtr current)
{
    const bool listChanged = documents != m_documents;
    const bool currentChanged = current != m_current;
    m_documents = std::move(documents);
    m_current = std::move(current);
    // Overlays of graphs no longer open go with them.
    for (auto it = m_overlays.begin(); it != m_overlays.end();)
        it = findDocument(it->first) ? std::next(it) : m_overlays.erase(it);
    if (listChanged)
        Q_EMIT documentsChanged();
    if (currentChanged)
        Q_EMIT currentDocumentChanged(m_current);
}

tgraph::GraphDocumentPtr StudioSession::findDocument(const QString& path) const
{
    for (const tgraph::GraphDocumentPtr& document : m_documents)
        if (QString::fromStdString(document->path) == path)
            return document;
    return nullptr;
}

void StudioSession::addProject(const ProjectInfoPtr& project)
{
    const QString absolute = absolutePath(project->path);
    std::erase_if(m_projects, [&absolute](const ProjectInfoPtr& p) { return absolutePath(p->path) == absolute; });
    m_projects.push_back(project);
    Q_EMIT projectsChanged();
    Q_EMIT projectOpened(QString::fromStdString(project->path));
}

void StudioSession::refreshProjects()
{
    if (m_projects.empty() || m_projectPoll->isBusy())
        return;
    std::vector<std::string> paths;
    for (const ProjectInfoPtr& p : m_projects)
        paths.push_back(p->path);
    m_projectPoll->start([this, paths](JobProgress&) -> JobTracker::Continuation {
        std::vector<ProjectInfoPtr> infos;
        for (const std::string& path : paths) {
            try {
                infos.push_back(readProjectInfo(path));
            } catch (const std::exception&) {
                // gone or being replaced: the lists keep what they showed
            }
        }
        return [this, infos] { updateProjects(infos); };
    });
}

bool StudioSession::updateProjects(const std::vector<ProjectInfoPtr>& fresh)
{
    bool changed = false;
    for (const ProjectInfoPtr& info : fresh)
        for (ProjectInfoPtr& shown : m_projects)
            if (shown->path == info->path && !sameRuns(*shown, *info)) {
                shown = info;
                changed = true;
            }
    if (changed)
        Q_EMIT projectsChanged();
    return changed;
}

QStringList StudioSession::projectPaths() const
{
    QStringList paths;
    for (const ProjectInfoPtr& p : m_projects)
        paths << QString::fromStdString(p->path);
    return paths;
}

void StudioSession::setSharedModel(const QStringList& files)
{
    if (files == m_sharedModel)
        return;
    m_sharedModel = files;
    Q_EMIT sharedModelChanged(files);
}

void StudioSession::offerModel(const QStringList& files)
{
    setSharedModel(files);
    Q_EMIT modelOffered(files);
}

void StudioSession::setOverlay(const QString& path, const NodeOverlay& overlay)
{
    if (overlay.isEmpty())
        m_overlays.erase(path);
    else
        m_overlays[path] = overlay;
    Q_EMIT overlayChanged(path);
}

const NodeOverlay* StudioSession::overlay(const QString& path) const
{
    const auto it = m_overlays.find(path);
    return it == m_overlays.end() ? nullptr : &it->second;
}

void StudioSession::requestOpen(const QStringList& paths) { Q_EMIT openRequested(paths); }

void StudioSession::requestNode(const QString& graphPath, qint64 node) { Q_EMIT nodeRequested(graphPath, node); }

void StudioSession::selectConfig(const QString& graphPath, qint64 config) { Q_EMIT configSelected(graphPath, config); }

void StudioSession::requestPage(Page page) { Q_EMIT pageRequested(page); }

void StudioSession::requestDiff(const QString& pathA, const QString& pathB)
{
    m_stagePair = {};
    Q_EMIT diffRequested(pathA, pathB);
}

void StudioSession::requestStageDiff(const StagePair& pair)
{
    if (!pair.isValid())
        return;
    m_stagePair = pair;
    Q_EMIT diffRequested(pair.pathA(), pair.pathB());
}

void StudioSession::requestTimelineStage(const QString& stagePath) { Q_EMIT timelineStageRequested(stagePath); }

void StudioSession::requestAnalysis(AnalysisView view) { Q_EMIT analysisRequested(view); }

void StudioSession::showMessage(const QString& text) { Q_EMIT statusMessage(text); }

void StudioSession::setDumpStages(const QStringList& paths) { m_dumpStages = QSet<QString>(paths.begin(), paths.end()); }

void StudioSession::requestHistory(const QString& stagePath, const QString& instruction)
{
    Q_EMIT historyRequested(stagePath, instruction);
}

} // namespace tgraph::studio
