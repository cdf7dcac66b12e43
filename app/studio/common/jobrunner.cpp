// SPDX-License-Identifier: Apache-2.0
#include "app/studio/common/jobrunner.h"

#include "widgets/common/jobchannel.h"

#include <QScopeGuard>

namespace {

std::function<void()>& afterEachJob()
{
    static std::function<void()> hook;
    return hook;
}

} // namespace

JobRunner::JobRunner(const QString& name, QObject* parent)
    : QObject(parent)
    , m_channel(new JobChannel(JobLane::Model, name, this))
{
    connect(m_channel, &JobChannel::started, this, &JobRunner::started);
    connect(m_channel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64 done, quint64 total) {
            Q_EMIT progressChanged(label, done, total);
        });
    connect(m_channel, &JobChannel::finished, this, &JobRunner::finished);
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) { Q_EMIT failed(message); });
    connect(m_channel, &JobChannel::cancelled, this, &JobRunner::cancelled);
}

JobRunner::~JobRunner() = default; // m_channel cancels and waits

void JobRunner::setAfterEachJob(std::function<void()> hook) { afterEachJob() = std::move(hook); }

void JobRunner::start(Work work)
{
    m_channel->start([work = std::move(work)](JobProgress& progress) {
        // The tensors' memory kept for the job's next pass goes back to the system (the hook that
        // main() installs): a desktop application should not hold gigabytes while it waits for the
        // user. It runs on the job's thread after every job, failed or cancelled ones too.
        const auto release = qScopeGuard([] {
            if (const auto& hook = afterEachJob())
                hook();
        });
        return work(progress);
    });
}

void JobRunner::cancel() { m_channel->cancel(); }

bool JobRunner::isBusy() const { return m_channel->isBusy(); }
