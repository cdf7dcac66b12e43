// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/project.h"

#include <QAbstractTableModel>

#include <cmath>
#include <map>
#include <string>

#include <vector>

// One run as the runs table shows it: the project record plus what the poller read about it.
struct RunRow
{
    tgraph::RunRecord record;
    std::map<std::string, std::string> params;
    int64_t step = 0; // latest logged training step
    double loss = std::nan(""); // latest training loss
    double tau = std::nan(""); // latest validation mean tau
    double bestTau = std::nan(""); // best validation mean tau so far
    bool stale = false; // RUNNING with an old heartbeat (the process may be gone)
};

// The runs of a project (newest first), W&B-style states, for a QSortFilterProxyModel.
// Qt::UserRole: numbers for sorting; Qt::UserRole + 1 on any column: the run id.
class RunTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Name,
        Status,
        Experiment,
        Started,
        Duration,
        Step,
        Loss,
        Tau,
        BestTau,
        LearningRate,
        Id,
        ColumnCount
    };
    static constexpr int RunIdRole = Qt::UserRole + 1;

    explicit RunTableModel(QObject* parent = nullptr);

    // Replaces the rows, keeping row identity by run id so that views keep their selection.
    void setRuns(std::vector<RunRow> runs, int64_t nowMs);
    const std::vector<RunRow>& runs() const { return m_runs; }
    int rowOfRun(const std::string& runId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // "running", "finished", ... with a colour per state, as W&B shows them.
    static QString statusText(const RunRow& run);
    static QColor statusColor(const RunRow& run);

private:
    std::vector<RunRow> m_runs;
    int64_t m_nowMs = 0;
};
