// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/layoutrunner.h"

#include "widgets/graph/graphviewlog.h"

#include "widgets/common/jobchannel.h"

namespace tgraph::widgets {

LayoutRunner::LayoutRunner(QObject* parent)
    : QObject(parent)
    , m_channel(new JobChannel(JobLane::Layout, QStringLiteral("Layout"), this))
{
    connect(m_channel, &JobChannel::failed, this, &LayoutRunner::failed);
}

LayoutRunner::~LayoutRunner() = default; // m_channel cancels and waits

quint64 LayoutRunner::request(tgraph::ViewGraph view, tgraph::LayoutInput input)
{
    qCDebug(lcGraphView) << "layout request for" << input.nodes.size() << "nodes";
    // Starting cancels the previous request (its `dot` is killed) and drops its result.
    return m_channel->start([this, view = std::move(view), input = std::move(input), options = m_options](
                                JobProgress& progress) mutable -> JobTracker::Continuation {
        options.progress = &progress;
        auto result = std::make_shared<ViewLayout>();
        result->layout = tgraph::layoutGraph(input, options);
        result->view = std::move(view);
        result->input = std::move(input);
        return [this, id = progress.job(), result = ViewLayoutPtr(std::move(result))] { Q_EMIT finished(id, result); };
    });
}

void LayoutRunner::cancel() { m_channel->cancel(); }

bool LayoutRunner::isBusy() const { return m_channel->isBusy(); }

quint64 LayoutRunner::currentRequest() const { return m_channel->currentJob(); }

} // namespace tgraph::widgets
