// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/project.h"

#include <QAbstractTableModel>
#include <QColor>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace tgraph::widgets {

// One run as the runs table shows it: the project's record plus what a poll read about it.
struct RunRow
{
    tgraph::RunRecord record;
    std::map<std::string, std::string> params;
    int64_t step = 0; // the furthest step the project records (RunRecord::lastStep; a CV run: its latest fold's)
    double loss = std::nan(""); // latest training loss
    double tau = std::nan(""); // latest validation mean tau
    double bestTau = std::nan(""); // best validation mean tau so far (over its folds for a CV run)
    int folds = 0; // cross-validation fold runs recorded under it
    bool stale = false; // RUNNING but its heartbeat is old: the process may be gone
};

// The runs of a project with W&B-style states, duration, key params and latest metrics, for a
// QSortFilterProxyModel: Qt::UserRole holds the sort key (numbers; no value sorts last),
// RunIdRole the run id on every column. Updates keep the rows of runs that stay (by id), so
// that selections and persistent indexes survive a poll.
class RunTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Name,
        Status,
        Kind,
        Started,
        Duration,
        Step,
        Loss,
        Tau,
        BestTau,
        LearningRate,
        Params,
        Experiment,
        Id,
        ColumnCount
    };
    static constexpr int RunIdRole = Qt::UserRole + 1;

    explicit RunTableModel(QObject* parent = nullptr);

    // `nowMs` ends the duration of running runs.
    void setRuns(std::vector<RunRow> runs, int64_t nowMs);
    const std::vector<RunRow>& runs() const { return m_runs; }
    int rowOfRun(const std::string& runId) const;
    const RunRow* run(const std::string& runId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // "running", "finished", "crashed", "running (no heartbeat)", ... and its colour.
    static QString statusText(const RunRow& run);
    static QColor statusColor(const RunRow& run);
    // The key parameters in a few words: "2000 steps · 64 configs · cross-attn on · seed 42".
    static QString paramSummary(const std::map<std::string, std::string>& params);
    // Milliseconds from start to end (to `nowMs` while running, to the last heartbeat when it
    // never ended), 0 when not started.
    static int64_t durationMs(const RunRow& run, int64_t nowMs);

private:
    QVariant sortKey(const RunRow& r, int column) const;
    QVariant display(const RunRow& r, int column) const;

    std::vector<RunRow> m_runs;
    int64_t m_nowMs = 0;
};

} // namespace tgraph::widgets
