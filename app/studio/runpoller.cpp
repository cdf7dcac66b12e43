// SPDX-License-Identifier: Apache-2.0
#include "runpoller.h"

#include "core/project.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent>

#include <cmath>

RunPoller::RunPoller(QObject* parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
{
    m_pool.setMaxThreadCount(1);
    m_pool.setObjectName(QStringLiteral("RunPoller"));
    m_timer->setInterval(1000);
    connect(m_timer, &QTimer::timeout, this, &RunPoller::pollNow);
}

RunPoller::~RunPoller() { m_pool.waitForDone(); }

void RunPoller::setProject(const QString& path)
{
    m_project = path;
    m_runIds.clear();
    ++m_generation;
    pollNow();
}

void RunPoller::setSelection(const QStringList& runIds, const QString& metric)
{
    m_runIds = runIds;
    m_metric = metric;
    ++m_generation;
    pollNow();
}

void RunPoller::setInterval(int ms) { m_timer->setInterval(ms); }
void RunPoller::start() { m_timer->start(); }
void RunPoller::stop() { m_timer->stop(); }

RunSnapshot RunPoller::read(const QString& project, const QStringList& runIds, const QString& metric, int64_t maxPoints)
{
    RunSnapshot s;
    s.project = project;
    s.nowMs = tgraph::nowMs();
    if (!QFileInfo::exists(project))
        return s; // not created yet: the first `tgraph train --project` creates it
    try {
        const tgraph::Project p = tgraph::Project::open(project.toStdString(), tgraph::Project::Access::Read);
        std::map<std::string, std::map<std::string, double>> latest;
        std::map<std::string, int64_t> steps;
        for (const tgraph::LatestMetric& m : p.latestMetrics()) {
            latest[m.runId][m.context + "/" + m.key] = m.value;
            if (m.context == "train" && m.key == "loss")
                steps[m.runId] = m.step;
        }
        for (const tgraph::RunRecord& r : p.runs()) {
            if (!r.parentRun.empty())
                continue; // folds show inside their run
            RunRow row;
            row.record = r;
            row.params = p.params(r.id);
            const auto& values = latest[r.id];
            const auto value = [&values](const char* key) {
                const auto it = values.find(key);
                return it == values.end() ? std::nan("") : it->second;
            };
            row.loss = value("train/loss");
            row.tau = value("valid/tau");
            row.step = steps.count(r.id) ? steps[r.id] : 0;
            for (const tgraph::MetricPoint& point : p.metricHistory(r.id, "tau", "valid").points)
                if (std::isfinite(point.value) && (std::isnan(row.bestTau) || point.value > row.bestTau))
                    row.bestTau = point.value;
            row.stale = r.status == tgraph::RunStatus::Running && r.heartbeatMs
                && s.nowMs - r.heartbeatMs > tgraph::Project::kStaleHeartbeatMs;
            s.runs.push_back(std::move(row));
        }
        const QString context = metric.section(QLatin1Char('/'), 0, 0);
        const QString key = metric.section(QLatin1Char('/'), 1);
        for (const QString& id : runIds) {
            const auto run = p.findRun(id.toStdString());
            if (!run)
                continue;
            RunCurve c;
            c.run = QString::fromStdString(run->name);
            c.runId = run->id;
            c.startMs = run->startMs;
            c.series = p.metricHistory(run->id, key.toStdString(), context.toStdString(), maxPoints);
            c.series.key = key.toStdString();
            s.curves.push_back(std::move(c));
        }
    } catch (const std::exception& e) {
        s.error = QString::fromStdString(e.what());
        if (!s.error.contains(QFileInfo(project).fileName()))
            s.error = QFileInfo(project).fileName() + QStringLiteral(": ") + s.error;
    }
    return s;
}

void RunPoller::pollNow()
{
    if (m_project.isEmpty())
        return;
    if (m_busy) {
        m_again = true; // one more poll when the running one ends
        return;
    }
    m_busy = true;
    const quint64 generation = m_generation;
    auto* watcher = new QFutureWatcher<RunSnapshot>(this);
    connect(watcher, &QFutureWatcher<RunSnapshot>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        m_busy = false;
        if (generation == m_generation)
            Q_EMIT snapshot(std::make_shared<const RunSnapshot>(watcher->result()));
        if (m_again || generation != m_generation) {
            m_again = false;
            pollNow();
        }
    });
    watcher->setFuture(QtConcurrent::run(
        &m_pool, [project = m_project, runs = m_runIds, metric = m_metric] { return read(project, runs, metric); }));
}
