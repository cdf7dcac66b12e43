// SPDX-License-Identifier: Apache-2.0
#include "app/studio/dump/dumpfollower.h"

#include "app/studio/common/studiolog.h"

#include "widgets/common/jobchannel.h"

#include "core/dump/dumpfolder.h"
#include "core/dump/dumpname.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

namespace tgraph::studio {

using namespace tgraph::widgets;

bool looksLikeDumpFolder(const QString& folder)
{
    // Names alone, no stat: a folder of thousands of files is decided in a few milliseconds.
    QDir dir(folder);
    if (!dir.exists())
        return false;
    const QStringList names = dir.entryList(QDir::Files | QDir::System | QDir::Hidden, QDir::NoSort);
    for (const QString& name : names) {
        const QByteArray bytes = QFile::encodeName(name);
        if (tgraph::parseDumpFileName(std::string_view(bytes.constData(), size_t(bytes.size()))))
            return true;
    }
    return false;
}

DumpFollower::DumpFollower(QObject* parent)
    : QObject(parent)
    , m_channel(new JobChannel(JobLane::Io, tr("List dump folder"), this))
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(kPollMs);
    connect(m_timer, &QTimer::timeout, this, &DumpFollower::rescan);
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        if (m_failing)
            return;
        m_failing = true;
        qCWarning(lcStudio).noquote() << message;
        Q_EMIT failed(message);
    });
}

DumpFollower::~DumpFollower() = default; // m_channel cancels and waits

bool DumpFollower::isScanning() const { return m_channel->isBusy(); }

void DumpFollower::setPollInterval(int ms) { m_timer->setInterval(ms); }

int DumpFollower::pollInterval() const { return m_timer->interval(); }

void DumpFollower::open(const QString& folder)
{
    m_path = QFileInfo(folder).absoluteFilePath();
    m_folder = std::make_shared<tgraph::DumpFolder>(QFile::encodeName(m_path).toStdString());
    m_index.reset();
    m_failing = false;
    m_channel->cancel(); // a listing of the folder before is dropped
    rescan();
    m_timer->start();
}

void DumpFollower::close()
{
    m_timer->stop();
    m_channel->cancel();
    m_folder.reset();
    m_index.reset();
    m_path.clear();
}

void DumpFollower::rescan()
{
    // One listing at a time: DumpFolder is used from one thread at a time.
    if (!m_folder || m_channel->isBusy())
        return;
    const bool first = !m_index;
    m_channel->start([this, folder = m_folder, first](JobProgress&) -> JobTracker::Continuation {
        const tgraph::DumpChanges changes = folder->rescan();
        if (changes.empty() && !first)
            return [this] { m_failing = false; };
        auto index = std::make_shared<const tgraph::DumpIndex>(folder->index());
        return [this, index, first] {
            m_failing = false;
            m_index = index;
            Q_EMIT indexChanged(index, first);
        };
    });
}

} // namespace tgraph::studio
