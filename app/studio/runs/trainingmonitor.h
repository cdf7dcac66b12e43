// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/runs/runpoller.h"

#include <QWidget>

#include <memory>

class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace tgraph::widgets {
class ErrorBanner;
class JobChannel;
class RunComparisonView;
class RunComparisonWindow;
class RunCurvesPanel;
class RunCurvesView;
class RunParamsModel;
class RunParamsView;
class RunTableModel;
class SweepView;
}

namespace tgraph::studio {

class RunLogPane;
class RunProcesses;

namespace Ui {
class TrainingMonitor;
}

// "How is my training run doing?" The runs of a project (W&B-style states, duration, key params,
// latest metrics, best validation τ; sort, filter, multi-select), live curves of the selected
// runs with TensorBoard smoothing, the selected run's output (live for runs started here, its
// train.log otherwise), the parameters of the selected runs side by side, and the actions New
// run, Stop (graceful, then kill), Resume, Delete, Open weights and Compare (in a window of its
// own, RunComparisonWindow, docs/studio.md §2.7). The project is polled
// on a background thread while the monitor is visible; runs started by `tgraph train --project`
// elsewhere show up too. Errors appear in the inline banner.
class TrainingMonitor : public QWidget
{
    Q_OBJECT
public:
    explicit TrainingMonitor(QWidget* parent = nullptr);
    ~TrainingMonitor() override;

    void setProject(const QString& path);
    QString project() const;

    // Starts `tgraph train ARGS --project P` as a child process (the New-run dialog's Start).
    bool startRun(const QStringList& trainArguments);
    void stopSelected(int graceMs = 30000);
    // Resume: one stopped or crashed run with a checkpoint (continued from it), or one stopped
    // sweep (its queue driven again by `tgraph sweep --resume`).
    bool canResumeSelection() const;
    bool resumeSelected();
    bool deleteSelected();
    void openSelectedWeights();
    void compareSelected();
    // The Sweep view (docs/studio.md §2.8) of the selected sweep, or of the sweep the selected run
    // belongs to, in a window of its own; read off the GUI thread, sweepShown() when it is there.
    void showSweep();
    // The sweep of the selection: the selected run when it is a sweep, else its parent when that
    // is one; empty otherwise.
    QString sweepOfSelection() const;
    static bool isSweep(const widgets::RunRow& row); // a `tgraph sweep` parent run
    // Shows runs that may be child runs (a sweep's runs, a cross-validation's folds: no row of
    // their own): rows are selected; for child runs the selected parent row stays, and the curves
    // and the log pane show the child runs.
    void focusRuns(const QStringList& runIds);
    void selectRuns(const QStringList& runIds);
    QStringList selectedRunIds() const;
    void setMetric(const QString& contextKey); // "train/loss", "valid/tau", ...
    void setConfirmations(bool on) { m_confirm = on; } // off in tests
    void setPollInterval(int ms);
    void pollNow();

    // The model a run offers to the inference panel: its ensemble.json, else best.npz, else its
    // latest checkpoint; empty when it has none yet. InputError when the run's folder or stored
    // checkpoint leads out of the project's data folder (Project::runDir, Project::dataPath).
    static QString weightsOf(const tgraph::Project& project, const tgraph::RunRecord& run);

    widgets::RunTableModel* runsModel() const { return m_model; }
    widgets::RunCurvesView* curves() const;
    widgets::RunCurvesPanel* curvesPanel() const { return m_curves; }
    widgets::RunParamsModel* paramsModel() const { return m_params; }
    widgets::RunParamsView* paramsView() const { return m_paramsView; }
    widgets::RunComparisonView* comparisonView() const;
    widgets::RunComparisonWindow* comparisonWindow() const { return m_comparison; }
    widgets::SweepView* sweepView() const { return m_sweepView; }
    RunProcesses* processes() const { return m_processes; }
    widgets::ErrorBanner* banner() const { return m_banner; }
    QPlainTextEdit* logPane() const;
    QTableView* table() const { return m_table; }

Q_SIGNALS:
    void openWeightsRequested(const QString& path);
    void statusMessage(const QString& message);
    void snapshotShown(); // after each poll result is shown (tests wait for it)
    void comparisonShown(); // compareSelected()'s result is in the Compare window
    void sweepShown(); // showSweep()'s result is in the Sweep window

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    // The banner's conditions (ErrorBanner::showCondition): withdrawn when their cause goes.
    static constexpr const char* kNoProject = "no-project";
    static constexpr const char* kUnreadable = "project-unreadable";

    void setUpToolbar();
    void setUpSidePanel();
    void onSnapshot(const std::shared_ptr<const RunSnapshot>& snapshot);
    void onSelectionChanged();
    void onProcessFinished(
        const QString& runId, int exitCode, bool crashed, bool stopRequested, const QString& lastError);
    void updateParams();
    void updateButtons();
    void showNewRunDialog();
    QStringList recentData() const;
    const widgets::RunRow* rowOf(const QString& runId) const;
    QString runName(const QString& runId) const;

    std::unique_ptr<Ui::TrainingMonitor> m_ui; // the form: trainingmonitor.ui; the widget pointers below point into it
    RunPoller* m_poller = nullptr;
    RunProcesses* m_processes = nullptr;
    widgets::RunTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    widgets::RunParamsModel* m_params = nullptr;
    widgets::ErrorBanner* m_banner = nullptr;
    QTableView* m_table = nullptr;
    widgets::RunCurvesPanel* m_curves = nullptr;
    QTabWidget* m_side = nullptr;
    RunLogPane* m_logPane = nullptr;
    widgets::RunParamsView* m_paramsView = nullptr;
    widgets::RunComparisonWindow* m_comparison = nullptr;
    widgets::JobChannel* m_compareJobs = nullptr; // a newer Compare drops an older one's result
    widgets::SweepView* m_sweepView = nullptr; // a window of its own
    widgets::JobChannel* m_sweepJobs = nullptr;
    QPushButton* m_sweep = nullptr;
    QLineEdit* m_filter = nullptr;
    QPushButton* m_newRun = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_resume = nullptr;
    QPushButton* m_delete = nullptr;
    QPushButton* m_weights = nullptr;
    QPushButton* m_compare = nullptr;
    QString m_lastError;
    bool m_followNewRun = false; // select the run started here once its id is known
    QString m_selectWhenShown; // a run to select once a poll has brought its row
    bool m_confirm = true;
    bool m_columnsSized = false;
};

} // namespace tgraph::studio
