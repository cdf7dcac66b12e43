// SPDX-License-Identifier: Apache-2.0
#include "app/studio/runs/runpoller.h"

#include "widgets/common/jobchannel.h"

#include "core/store/project.h"
#include "core/util/error.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

using tgraph::LatestMetric;
using tgraph::Project;
using tgraph::RunRecord;

double bestTauOf(const Project& p, const std::string& runId)
{
    double best = std::nan("");
    for (const tgraph::MetricPoint& point : p.metricHistory(runId, "tau", "valid").points)
        if (std::isfinite(point.value) && !(point.value <= best))
            best = point.value;
    return best;
}

// The end of a run's train.log, from the first whole line; why it is not read when the run's
// folder leads out of the project (Project::runDir), so the log pane shows the reason.
QString logTail(const Project& p, const std::string& runId)
{
    std::string dir;
    try {
        dir = p.runDir(runId);
    } catch (const tgraph::InputError& e) {
        return QString::fromStdString(e.what()) + QLatin1Char('\n');
    }
    QFile f(QDir(QString::fromStdString(dir)).filePath(QStringLiteral("train.log")));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = f.size();
    const bool cut = size > RunPoller::kLogTailBytes;
    if (cut)
        f.seek(size - RunPoller::kLogTailBytes);
    QByteArray bytes = f.readAll();
    if (cut)
        bytes.remove(0, bytes.indexOf('\n') + 1);
    return QString::fromUtf8(bytes);
}

} // namespace

RunPoller::RunPoller(QObject* parent)
    : QObject(parent)
    , m_channel(new JobChannel(JobLane::Io, QStringLiteral("Project poll"), this))
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(1000);
    connect(m_timer, &QTimer::timeout, this, &RunPoller::pollNow);
    const auto ended = [this] {
        if (std::exchange(m_again, false))
            pollNow();
    };
    connect(m_channel, &JobChannel::finished, this, ended);
    connect(m_channel, &JobChannel::failed, this, ended);
}

RunPoller::~RunPoller() = default; // m_channel cancels and waits

void RunPoller::changed()
{
    // The running poll read for the old request: its result is dropped.
    m_again = false;
    if (m_project.isEmpty())
        m_channel->cancel();
    else
        startPoll();
}

void RunPoller::setProject(const QString& path)
{
    m_project = path;
    m_runIds.clear();
    m_logRun.clear();
    changed();
}

void RunPoller::setSelection(const QStringList& runIds, const QString& metric)
{
    if (runIds == m_runIds && metric == m_metric)
        return;
    m_runIds = runIds;
    m_metric = metric;
    changed();
}

void RunPoller::setLogRun(const QString& runId)
{
    if (runId == m_logRun)
        return;
    m_logRun = runId;
    changed();
}

void RunPoller::setInterval(int ms) { m_timer->setInterval(ms); }
void RunPoller::start() { m_timer->start(); }
void RunPoller::stop() { m_timer->stop(); }
bool RunPoller::isStarted() const { return m_timer->isActive(); }

RunSnapshot RunPoller::read(const QString& project, const QStringList& runIds, const QString& metric, int64_t maxPoints,
    const QString& logRunId)
{
    RunSnapshot s;
    s.project = project;
    s.nowMs = tgraph::nowMs();
    s.logRunId = logRunId;
    if (!QFileInfo::exists(project)) {
        s.missingRuns = runIds; // not created yet: the first `tgraph train --project` creates it
        return s;
    }
    try {
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        const std::vector<RunRecord> all = p.runs();
        // A run of this host whose process is gone reads as CRASHED already; record it in the file
        // too (opening for writing runs markCrashedRuns, docs/store.md §5). A project the studio
        // cannot write keeps its rows; the runs still read as CRASHED.
        if (std::any_of(all.begin(), all.end(), [](const RunRecord& r) { return r.crashNotRecorded; })
            && QFileInfo(project).isWritable() && QFileInfo(QFileInfo(project).absolutePath()).isWritable()) {
            try {
                Project::open(project.toStdString(), Project::Access::Write);
            } catch (const std::exception&) {
                // busy or read-only after all: the next writer records it
            }
        }
        std::map<std::string, std::vector<const RunRecord*>> folds; // oldest first
        for (auto it = all.rbegin(); it != all.rend(); ++it)
            if (!it->parentRun.empty())
                folds[it->parentRun].push_back(&*it);
        std::map<std::string, std::map<std::string, LatestMetric>> latest;
        for (LatestMetric& m : p.latestMetrics())
            latest[m.runId][m.context + "/" + m.key] = m;
        const auto latestOf = [&latest](const std::string& runId, const char* key) -> const LatestMetric* {
            const auto run = latest.find(runId);
            if (run == latest.end())
                return nullptr;
            const auto it = run->second.find(key);
            return it == run->second.end() ? nullptr : &it->second;
        };

        for (const RunRecord& r : all) {
            if (!r.parentRun.empty())
                continue;
            RunRow row;
            row.record = r;
            row.params = p.params(r.id);
            const LatestMetric* loss = latestOf(r.id, "train/loss");
            const LatestMetric* tau = latestOf(r.id, "valid/tau");
            row.bestTau = bestTauOf(p, r.id);
            // The step the project records (metrics of any series, checkpoints), not only the last
            // loss point: a run stopped between two logging intervals has its checkpoint's step.
            row.step = r.lastStep;
            // A cross-validation run logs through its folds: show the fold written last.
            if (const auto f = folds.find(r.id); f != folds.end()) {
                row.folds = int(f->second.size());
                bool stepOfFold = false;
                for (const RunRecord* fold : f->second) {
                    const LatestMetric* foldLoss = latestOf(fold->id, "train/loss");
                    if (foldLoss && (!loss || foldLoss->wallMs >= loss->wallMs)) {
                        loss = foldLoss;
                        row.step = fold->lastStep;
                        stepOfFold = true;
                    } else if (!stepOfFold) {
                        row.step = std::max(row.step, fold->lastStep); // folds without a loss yet
                    }
                    const LatestMetric* foldTau = latestOf(fold->id, "valid/tau");
                    if (foldTau && (!tau || foldTau->wallMs >= tau->wallMs))
                        tau = foldTau;
                    const double foldBest = bestTauOf(p, fold->id);
                    if (std::isfinite(foldBest) && !(foldBest <= row.bestTau))
                        row.bestTau = foldBest;
                }
            }
            if (loss)
                row.loss = loss->value;
            if (tau)
                row.tau = tau->value;
            row.stale = r.status == tgraph::RunStatus::Running && r.heartbeatMs
                && s.nowMs - r.heartbeatMs > Project::kStaleHeartbeatMs;
            s.runs.push_back(std::move(row));
        }

        const std::string context = metric.section(QLatin1Char('/'), 0, 0).toStdString();
        const std::string key = metric.section(QLatin1Char('/'), 1).toStdString();
        std::set<QString> keys;
        const auto curveOf = [&](const RunRecord& r, const QString& label) {
            RunCurve c;
            c.label = label;
            c.runId = r.id;
            c.startMs = r.startMs;
            c.series = p.metricHistory(r.id, key, context, maxPoints);
            for (const std::string& k : p.metricKeys(r.id))
                keys.insert(QString::fromStdString(k));
            return c;
        };
        for (const QString& id : runIds) {
            const auto run = p.findRun(id.toStdString());
            if (!run) {
                s.missingRuns << id;
                continue;
            }
            const QString name = QString::fromStdString(run->name);
            RunCurve own = curveOf(*run, name);
            const auto f = folds.find(run->id);
            if (f == folds.end() || !own.series.points.empty())
                s.curves.push_back(std::move(own));
            if (f != folds.end())
                for (const RunRecord* fold : f->second)
                    s.curves.push_back(
                        curveOf(*fold, name + QStringLiteral(" / ") + QString::fromStdString(fold->name)));
        }
        s.metricKeys = QStringList(keys.begin(), keys.end());
        if (!logRunId.isEmpty())
            if (const auto run = p.findRun(logRunId.toStdString()))
                s.logText = logTail(p, run->id);
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
    if (m_channel->isBusy()) {
        m_again = true; // once more when the running poll ends
        return;
    }
    startPoll();
}

void RunPoller::startPoll()
{
    m_channel->start([this, project = m_project, runs = m_runIds, metric = m_metric, logRun = m_logRun](
                         JobProgress&) -> JobTracker::Continuation {
        auto s = std::make_shared<const RunSnapshot>(read(project, runs, metric, 2000, logRun));
        return [this, s] { Q_EMIT snapshot(s); };
    });
}

} // namespace tgraph::studio
