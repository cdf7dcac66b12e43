// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "runpoller.h"

#include <QWidget>

#include <memory>

class ErrorBanner;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSortFilterProxyModel;
class QTableView;
class RunCurvesView;
class RunTableModel;

namespace tgraph::app {
class TrainingProcess;
}

// "How is my training run doing?": the runs of a project (W&B-style states, duration, latest
// metrics, best validation τ; sortable, filterable, multi-select), live curves of the selected
// runs with TensorBoard smoothing, the output of a run started here, and the actions New run,
// Stop (graceful, then kill), Resume, Delete, Open weights and Compare. The project is polled on
// a background thread; runs started by `tgraph train --project` elsewhere show up too.
class TrainingMonitor : public QWidget
{
    Q_OBJECT
public:
    explicit TrainingMonitor(QWidget* parent = nullptr);
    ~TrainingMonitor() override;

    void setProject(const QString& path);
    QString project() const { return m_poller->project(); }
    // Starts `tgraph train ARGS --project P` as a child process (the New-run dialog's Start).
    bool startRun(const QStringList& trainArguments);
    void stopSelected(int graceMs = 30000);
    bool resumeSelected();
    bool deleteSelected();
    void selectRuns(const QStringList& runIds);
    void setMetric(const QString& contextKey); // "train/loss", "valid/tau", ...
    void setConfirmations(bool on) { m_confirm = on; } // off in tests
    void pollNow() { m_poller->pollNow(); }
    // The params that differ between two runs, "key: a | b" lines.
    static QStringList paramDifferences(
        const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b);

    RunTableModel* runsModel() const { return m_model; }
    RunCurvesView* curves() const { return m_curves; }
    ErrorBanner* banner() const { return m_banner; }
    QPlainTextEdit* logPane() const { return m_log; }
    tgraph::app::TrainingProcess* process() const { return m_process; }
    QStringList selectedRunIds() const;

Q_SIGNALS:
    void openWeightsRequested(const QString& path);
    void statusMessage(const QString& message);
    void snapshotShown(); // after each poll result (tests wait for it)

private:
    void onSnapshot(const std::shared_ptr<const RunSnapshot>& snapshot);
    void updateSelection();
    void updateButtons();
    void showNewRunDialog();
    void openWeights();
    void compareRuns();
    const RunRow* rowOf(const QString& runId) const;

    RunPoller* m_poller = nullptr;
    tgraph::app::TrainingProcess* m_process = nullptr;
    RunTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    RunCurvesView* m_curves = nullptr;
    ErrorBanner* m_banner = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QLineEdit* m_filter = nullptr;
    QComboBox* m_metric = nullptr;
    QComboBox* m_xAxis = nullptr;
    QSlider* m_smoothing = nullptr;
    QCheckBox* m_logY = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_resume = nullptr;
    QPushButton* m_delete = nullptr;
    QPushButton* m_weights = nullptr;
    QPushButton* m_compare = nullptr;
    QString m_lastError;
    bool m_confirm = true;
};
