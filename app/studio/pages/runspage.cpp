// SPDX-License-Identifier: Apache-2.0
#include "app/studio/pages/runspage.h"

#include "app/studio/runs/trainingmonitor.h"
#include "app/studio/session/studiosession.h"

#include "widgets/runs/runtablemodel.h"

#include <QFileInfo>
#include <QVBoxLayout>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

RunsPage::RunsPage(StudioSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_monitor(new TrainingMonitor(this))
{
    setObjectName(QStringLiteral("runsPage"));
    m_monitor->setObjectName(QStringLiteral("trainingMonitor"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_monitor);

    connect(m_session, &StudioSession::projectOpened, m_monitor, &TrainingMonitor::setProject);
    connect(m_monitor, &TrainingMonitor::statusMessage, m_session, &StudioSession::showMessage);
    connect(m_monitor, &TrainingMonitor::openWeightsRequested, this,
        [this](const QString& path) { m_session->offerModel({ path }); });
    connect(m_monitor, &TrainingMonitor::snapshotShown, this, &RunsPage::onSnapshot);
}

void RunsPage::onSnapshot()
{
    // A poll of the monitored project that shows other runs than the session holds: re-read the
    // projects at once, so the Graph page's list follows.
    const QString monitored = QFileInfo(m_monitor->project()).absoluteFilePath();
    for (const ProjectInfoPtr& p : m_session->projects()) {
        if (QFileInfo(QString::fromStdString(p->path)).absoluteFilePath() != monitored)
            continue;
        std::vector<std::pair<std::string, tgraph::RunStatus>> shown, listed;
        for (const RunRow& r : m_monitor->runsModel()->runs())
            shown.emplace_back(r.record.id, r.record.status);
        for (const tgraph::RunRecord& r : p->runs)
            if (r.parentRun.empty())
                listed.emplace_back(r.id, r.status);
        std::sort(shown.begin(), shown.end());
        std::sort(listed.begin(), listed.end());
        if (shown != listed)
            m_session->refreshProjects();
    }
}

} // namespace tgraph::studio
