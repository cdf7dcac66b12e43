// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/jobchannel.h"

namespace tgraph::widgets {

JobChannel::JobChannel(JobLane lane, const QString& name, QObject* parent, JobTracker* tracker)
    : QObject(parent)
    , m_tracker(tracker ? tracker : JobTracker::instance())
    , m_lane(lane)
    , m_name(name)
{
    m_tracker->attach(this);
}

JobChannel::~JobChannel()
{
    if (m_tracker)
        m_tracker->detach(this);
}

quint64 JobChannel::start(JobTracker::Work work)
{
    // After the tracker is gone (application shut down) nothing runs any more.
    return m_tracker ? m_tracker->start(this, std::move(work)) : 0;
}

void JobChannel::cancel()
{
    if (m_tracker && m_current)
        m_tracker->cancel(m_current);
}

} // namespace tgraph::widgets
