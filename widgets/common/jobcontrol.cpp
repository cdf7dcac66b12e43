// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/jobcontrol.h"

#include "widgets/common/errorbanner.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobprogress.h"

#include <QAbstractButton>
#include <QProgressBar>

namespace tgraph::widgets {

JobControl::JobControl(JobChannel* channel, QProgressBar* bar, ErrorBanner* banner, QObject* parent)
    : QObject(parent)
    , m_channel(channel)
    , m_bar(bar)
    , m_banner(banner)
{
    if (m_bar)
        m_bar->hide();
    connect(m_channel, &JobChannel::started, this, &JobControl::onStarted);
    connect(m_channel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64 done, quint64 total) {
            if (m_bar)
                showJobProgress(m_bar, label, done, total);
        });
    connect(m_channel, &JobChannel::finished, this, [this] { onStopped(Outcome::Finished); });
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        m_lastError = message;
        if (m_banner)
            m_banner->addMessage(message);
        onStopped(Outcome::Failed);
    });
    connect(m_channel, &JobChannel::cancelled, this, [this] {
        if (!m_cancelledMessage.isEmpty())
            Q_EMIT statusMessage(m_cancelledMessage);
        onStopped(Outcome::Cancelled);
    });
}

void JobControl::setCancelButton(QAbstractButton* button)
{
    if (m_cancel)
        disconnect(m_cancel, nullptr, this, nullptr);
    m_cancel = button;
    if (!m_cancel)
        return;
    m_cancel->setEnabled(isBusy());
    connect(m_cancel, &QAbstractButton::clicked, this, [this] { m_channel->cancel(); });
}

bool JobControl::isBusy() const { return m_channel->isBusy(); }

void JobControl::onStarted()
{
    if (m_banner && !m_lastError.isEmpty())
        m_banner->removeMessage(m_lastError); // the new job answers for itself
    m_lastError.clear();
    if (m_bar) {
        m_bar->setRange(0, 0);
        m_bar->show();
    }
    if (m_cancel)
        m_cancel->setEnabled(true);
    Q_EMIT busyChanged(true);
}

void JobControl::onStopped(Outcome outcome)
{
    m_lastOutcome = outcome;
    // A channel whose job stopped may already run the next one (a continuation that starts again).
    const bool busy = isBusy();
    if (m_bar && !busy)
        m_bar->hide();
    if (m_cancel)
        m_cancel->setEnabled(busy);
    Q_EMIT busyChanged(busy);
    Q_EMIT stopped();
}

} // namespace tgraph::widgets
