// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/runs/runcurvedata.h"
#include "widgets/runs/runtablemodel.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <vector>

class QTimer;

namespace tgraph::widgets {
class JobChannel;
}

namespace tgraph::studio {

// What one poll of a project read: its runs with their latest metrics, the curves of the
// selected runs for one metric, and the tail of one run's log.
struct RunSnapshot
{
    QString project;
    std::vector<widgets::RunRow> runs; // top-level runs, newest first (cross-validation folds count in their run)
    // Per selected run its history of the metric; a cross-validation run adds one per fold.
    std::vector<widgets::RunCurve> curves;
    QStringList missingRuns; // selected runs the project does not have
    QStringList metricKeys; // "context/key" of every metric the selected runs logged
    QString logRunId;
    QString logText; // the end of that run's train.log
    QString error; // the project could not be read (banner text, names the file)
    int64_t nowMs = 0;
};

// Polls a project file in the io lane of the studio's JobTracker with its own read-only connection
// (the training processes write through WAL, so a reader never sees "database is locked" and never
// blocks them). A new request (another project, selection, metric or log run) is read at once and
// the result of the poll started for the older one is dropped; the timer's polls wait for the
// running one.
class RunPoller : public QObject
{
    Q_OBJECT
public:
    explicit RunPoller(QObject* parent = nullptr);
    ~RunPoller() override;

    void setProject(const QString& path);
    void setSelection(const QStringList& runIds, const QString& metric); // metric "context/key"
    void setLogRun(const QString& runId); // empty: no log
    void setInterval(int ms);
    void pollNow(); // and then every interval while started
    void start();
    void stop();
    bool isStarted() const;
    QString project() const { return m_project; }
    QString metric() const { return m_metric; }

    // One snapshot, synchronously (the poll's work; also for headless rendering). `runIds` are
    // ids, id prefixes or names; curves are downsampled to about `maxPoints` points.
    static RunSnapshot read(const QString& project, const QStringList& runIds, const QString& metric,
        int64_t maxPoints = 2000, const QString& logRunId = {});
    static constexpr qint64 kLogTailBytes = 64 * 1024;

Q_SIGNALS:
    void snapshot(const std::shared_ptr<const RunSnapshot>& snapshot);

private:
    void changed();
    void startPoll();

    widgets::JobChannel* m_channel = nullptr;
    QTimer* m_timer = nullptr;
    QString m_project;
    QStringList m_runIds;
    QString m_metric = QStringLiteral("train/loss");
    QString m_logRun;
    bool m_again = false; // poll once more when the running poll ends
};

} // namespace tgraph::studio
