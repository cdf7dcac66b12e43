// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/layoutrunner.h"

#include "widgets/graph/graphviewlog.h"

#include "core/util/error.h"
#include "core/util/progress.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>

class LayoutRunner::Sink final : public tgraph::ProgressSink
{
public:
    void begin(std::string_view, uint64_t) override { }
    void update(uint64_t) override { }
    bool isCancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled { false };
};

namespace {

struct Outcome
{
    ViewLayoutPtr layout;
    QString error;
    bool cancelled = false;
};

} // namespace

LayoutRunner::LayoutRunner(QObject* parent)
    : QObject(parent)
{
    // Graphviz keeps global state: one layout at a time, in this thread.
    m_pool.setMaxThreadCount(1);
    m_pool.setObjectName(QStringLiteral("GraphLayout"));
}

LayoutRunner::~LayoutRunner()
{
    for (auto& [id, sink] : m_running)
        sink->cancel();
    m_pool.waitForDone();
}

quint64 LayoutRunner::request(tgraph::ViewGraph view, tgraph::LayoutInput input)
{
    cancel();
    const quint64 id = ++m_last;
    m_current = id;
    auto sink = std::make_shared<Sink>();
    m_running[id] = sink;
    tgraph::LayoutOptions options = m_options;
    options.progress = sink.get();
    qCDebug(lcGraphView) << "layout request" << id << "for" << input.nodes.size() << "nodes";

    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, id] {
        watcher->deleteLater();
        m_running.erase(id);
        const Outcome outcome = watcher->result();
        if (id != m_current) {
            qCDebug(lcGraphView) << "dropping stale layout" << id;
            return;
        }
        m_current = 0;
        if (outcome.layout)
            Q_EMIT finished(id, outcome.layout);
        else if (!outcome.cancelled)
            Q_EMIT failed(id, outcome.error);
    });
    watcher->setFuture(QtConcurrent::run(
        &m_pool, [view = std::move(view), input = std::move(input), options, sink]() mutable -> Outcome {
            Outcome outcome;
            if (sink->isCancelled()) { // superseded while queued
                outcome.cancelled = true;
                return outcome;
            }
            try {
                auto result = std::make_shared<ViewLayout>();
                result->layout = tgraph::layoutGraph(input, options);
                result->view = std::move(view);
                result->input = std::move(input);
                outcome.layout = std::move(result);
            } catch (const tgraph::Cancelled&) {
                outcome.cancelled = true;
            } catch (const std::exception& e) {
                outcome.error = QString::fromStdString(e.what());
            }
            return outcome;
        }));
    return id;
}

void LayoutRunner::cancel()
{
    if (const auto it = m_running.find(m_current); it != m_running.end())
        it->second->cancel();
    m_current = 0;
}
