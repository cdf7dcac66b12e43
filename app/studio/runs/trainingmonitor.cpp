// SPDX-License-Identifier: Apache-2.0
#include "app/studio/runs/trainingmonitor.h"
#include "ui_trainingmonitor.h"

#include "app/studio/runs/newrundialog.h"
#include "app/studio/runs/runlogpane.h"
#include "app/studio/runs/runprocesses.h"

#include "core/store/project.h"
#include "core/store/runcomparison.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/windowplacement.h"
#include "widgets/runs/runcomparisonview.h"
#include "widgets/runs/runcomparisonwindow.h"
#include "widgets/runs/runcurvespanel.h"
#include "widgets/runs/runcurvesview.h"
#include "widgets/runs/runparamsmodel.h"
#include "widgets/runs/runparamsview.h"
#include "widgets/runs/runtablemodel.h"
#include "widgets/runs/sweepview.h"

#include <QDir>
#include <QFileInfo>
#include <QScreen>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

enum SideTab { OutputTab, ParamsTab };

} // namespace

TrainingMonitor::TrainingMonitor(QWidget* parent)
    : QWidget(parent)
    , m_poller(new RunPoller(this))
    , m_processes(new RunProcesses(this))
    , m_model(new RunTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_params(new RunParamsModel(this))
    , m_compareJobs(new JobChannel(JobLane::Io, QStringLiteral("Compare"), this))
    , m_sweepJobs(new JobChannel(JobLane::Io, QStringLiteral("Sweep"), this))
{
    // The widgets, texts, tooltips, layouts and splitters are in trainingmonitor.ui.
    m_ui = std::make_unique<Ui::TrainingMonitor>();
    m_ui->setupUi(this);
    m_banner = m_ui->errorBanner;
    setUpToolbar();

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_proxy->setFilterKeyColumn(-1);
    m_table = m_ui->runsTable;
    m_table->setModel(m_proxy);
    m_table->sortByColumn(RunTableModel::Started, Qt::DescendingOrder);

    m_curves = m_ui->curvesPanel;
    setUpSidePanel();

    auto* deleteKey = new QShortcut(QKeySequence::Delete, m_table, nullptr, nullptr, Qt::WidgetShortcut);
    connect(deleteKey, &QShortcut::activated, this, &TrainingMonitor::deleteSelected);
    connect(
        m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &TrainingMonitor::onSelectionChanged);
    connect(m_curves, &RunCurvesPanel::metricChanged, this,
        [this](const QString& metric) { m_poller->setSelection(selectedRunIds(), metric); });
    connect(m_poller, &RunPoller::snapshot, this, &TrainingMonitor::onSnapshot);
    new JobControl(m_compareJobs, nullptr, m_banner, this);
    new JobControl(m_sweepJobs, nullptr, m_banner, this);
    connect(m_processes, &RunProcesses::runIdKnown, this, [this](const QString& runId) {
        if (m_followNewRun) {
            m_followNewRun = false;
            m_selectWhenShown = runId;
        }
        m_poller->pollNow();
    });
    connect(m_processes, &RunProcesses::finished, this, &TrainingMonitor::onProcessFinished);
    connect(m_processes, &RunProcesses::failed, this, [this](const QString& message) {
        m_banner->addMessage(message);
        updateButtons();
    });
    updateButtons();
}

TrainingMonitor::~TrainingMonitor() = default;

void TrainingMonitor::setUpToolbar()
{
    m_newRun = m_ui->newRun;
    m_stop = m_ui->stop;
    m_resume = m_ui->resume;
    m_delete = m_ui->deleteRuns;
    m_weights = m_ui->openWeights;
    m_compare = m_ui->compare;
    m_sweep = m_ui->sweep;
    m_filter = m_ui->filter;

    connect(m_newRun, &QPushButton::clicked, this, &TrainingMonitor::showNewRunDialog);
    connect(m_stop, &QPushButton::clicked, this, [this] { stopSelected(); });
    connect(m_resume, &QPushButton::clicked, this, &TrainingMonitor::resumeSelected);
    connect(m_delete, &QPushButton::clicked, this, &TrainingMonitor::deleteSelected);
    connect(m_weights, &QPushButton::clicked, this, &TrainingMonitor::openSelectedWeights);
    connect(m_compare, &QPushButton::clicked, this, &TrainingMonitor::compareSelected);
    connect(m_sweep, &QPushButton::clicked, this, &TrainingMonitor::showSweep);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) // half-typed: match it literally
            re = QRegularExpression(QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption);
        m_proxy->setFilterRegularExpression(re);
    });
}

void TrainingMonitor::setUpSidePanel()
{
    // The panes take the monitor's processes and parameter model: the form holds their tab pages.
    m_side = m_ui->sideTabs;
    m_logPane = new RunLogPane(m_processes, m_ui->outputTab);
    m_ui->outputLayout->addWidget(m_logPane);
    connect(m_logPane, &RunLogPane::fileRunChanged, m_poller, &RunPoller::setLogRun);
    m_paramsView = new RunParamsView(m_params, m_ui->parametersTab);
    m_ui->parametersLayout->addWidget(m_paramsView);

    // Compare needs room (a metrics table of 15 columns, the τ strip, the pairs): a window of its
    // own instead of a tab of this side pane (docs/studio.md §2.7).
    m_sweepView = new SweepView(this);
    m_sweepView->setWindowFlag(Qt::Window);
    m_sweepView->setWindowTitle(tr("Sweep"));
    WindowPlacement::placeWhenShown(m_sweepView);
    connect(m_sweepView, &SweepView::runsRequested, this, [this](const QStringList& runs) {
        focusRuns(runs);
        window()->raise();
        window()->activateWindow();
        Q_EMIT statusMessage(tr("%n run(s) of the sweep selected", nullptr, int(runs.size())));
    });
    m_comparison = new RunComparisonWindow(this);
    connect(m_comparison, &RunComparisonWindow::graphActivated, this,
        [this](const QString& graph) { Q_EMIT statusMessage(graph); });
}

RunCurvesView* TrainingMonitor::curves() const { return m_curves->view(); }
RunComparisonView* TrainingMonitor::comparisonView() const { return m_comparison->view(); }
QPlainTextEdit* TrainingMonitor::logPane() const { return m_logPane->text(); }
QString TrainingMonitor::project() const { return m_poller->project(); }
void TrainingMonitor::setPollInterval(int ms) { m_poller->setInterval(ms); }
void TrainingMonitor::pollNow() { m_poller->pollNow(); }

void TrainingMonitor::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    m_poller->start();
    m_poller->pollNow();
}

void TrainingMonitor::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_poller->stop(); // nobody watches: no polling
}

void TrainingMonitor::setProject(const QString& path)
{
    m_banner->dismiss();
    m_lastError.clear();
    m_columnsSized = false;
    m_selectWhenShown.clear();
    m_model->setRuns({}, 0);
    m_curves->view()->setCurves({});
    m_params->setRuns({});
    m_compareJobs->cancel();
    m_comparison->setComparison({}, {});
    m_comparison->hide();
    m_sweepJobs->cancel();
    m_sweepView->hide();
    m_logPane->clear();
    m_poller->setProject(path);
    updateButtons();
}

QStringList TrainingMonitor::selectedRunIds() const
{
    QStringList ids;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        ids << index.data(RunTableModel::RunIdRole).toString();
    return ids;
}

const RunRow* TrainingMonitor::rowOf(const QString& runId) const { return m_model->run(runId.toStdString()); }

void TrainingMonitor::selectRuns(const QStringList& runIds)
{
    QItemSelection selection;
    for (const QString& id : runIds) {
        const int row = m_model->rowOfRun(id.toStdString());
        if (row < 0)
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        if (index.isValid())
            selection.select(index, index.siblingAtColumn(RunTableModel::ColumnCount - 1));
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (!selection.isEmpty())
        m_table->scrollTo(selection.indexes().front());
}

void TrainingMonitor::setMetric(const QString& contextKey) { m_curves->setMetric(contextKey); }

void TrainingMonitor::onSelectionChanged()
{
    const QStringList ids = selectedRunIds();
    m_poller->setSelection(ids, m_curves->metric());
    if (!ids.isEmpty())
        m_logPane->showRun(ids.front(), runName(ids.front()));
    updateParams();
    updateButtons();
}

QString TrainingMonitor::runName(const QString& runId) const
{
    const RunRow* row = rowOf(runId);
    return row ? QString::fromStdString(row->record.name) : runId.left(8);
}

void TrainingMonitor::onSnapshot(const std::shared_ptr<const RunSnapshot>& snapshot)
{
    if (snapshot->project != project())
        return;
    if (!snapshot->error.isEmpty()) {
        if (snapshot->error != m_lastError)
            m_banner->showCondition(kUnreadable, snapshot->error, ErrorBanner::Severity::Error);
        m_lastError = snapshot->error;
        Q_EMIT snapshotShown();
        return;
    }
    m_banner->clearCondition(kUnreadable); // the project reads again; other messages stay
    m_lastError.clear();

    for (const RunRow& r : snapshot->runs)
        if (const RunRow* old = m_model->run(r.record.id); old && old->record.status != r.record.status)
            Q_EMIT statusMessage(
                tr("Run %1 is %2").arg(QString::fromStdString(r.record.name), RunTableModel::statusText(r)));
    m_model->setRuns(snapshot->runs, snapshot->nowMs);
    if (!m_columnsSized && !snapshot->runs.empty()) {
        m_table->resizeColumnsToContents();
        m_columnsSized = true;
    }
    if (!m_selectWhenShown.isEmpty() && rowOf(m_selectWhenShown)) {
        selectRuns({ m_selectWhenShown });
        m_selectWhenShown.clear();
    }
    m_curves->addMetrics(snapshot->metricKeys);
    m_curves->view()->setCurves(snapshot->curves);
    m_logPane->setFileLog(snapshot->logRunId, snapshot->logText);
    updateParams();
    updateButtons();
    Q_EMIT snapshotShown();
}

void TrainingMonitor::updateParams()
{
    std::vector<RunParamsModel::Run> runs;
    for (const QString& id : selectedRunIds())
        if (const RunRow* r = rowOf(id))
            runs.push_back({ QString::fromStdString(r->record.name), r->params });
    m_params->setRuns(std::move(runs));
}

void TrainingMonitor::updateButtons()
{
    const QStringList ids = selectedRunIds();
    bool anyRunning = false;
    bool anyLive = false;
    for (const QString& id : ids)
        if (const RunRow* r = rowOf(id); r && r->record.status == tgraph::RunStatus::Running) {
            anyRunning = true;
            anyLive = anyLive || !r->stale;
        }
    const RunRow* one = ids.size() == 1 ? rowOf(ids.front()) : nullptr;
    m_newRun->setEnabled(!project().isEmpty());
    m_stop->setEnabled(anyRunning);
    m_resume->setEnabled(canResumeSelection());
    m_delete->setEnabled(!ids.isEmpty() && !anyLive);
    m_weights->setEnabled(one != nullptr);
    m_compare->setEnabled(ids.size() >= 2);
    m_sweep->setEnabled(!sweepOfSelection().isEmpty());
}

QStringList TrainingMonitor::recentData() const
{
    std::vector<const RunRow*> rows;
    for (const RunRow& r : m_model->runs())
        rows.push_back(&r);
    std::sort(rows.begin(), rows.end(),
        [](const RunRow* a, const RunRow* b) { return a->record.startMs > b->record.startMs; });
    QStringList data;
    for (const RunRow* r : rows)
        if (const auto it = r->params.find("data"); it != r->params.end() && !it->second.empty()) {
            const QString entry = QString::fromStdString(it->second);
            if (!data.contains(entry))
                data << entry;
        }
    return data;
}

void TrainingMonitor::showNewRunDialog()
{
    NewRunDialog dialog(project(), this);
    dialog.setRecentData(recentData());
    if (dialog.exec() == QDialog::Accepted)
        startRun(dialog.trainArguments());
}

bool TrainingMonitor::startRun(const QStringList& trainArguments)
{
    if (project().isEmpty()) {
        m_banner->showCondition(
            kNoProject, tr("Open or create a project first (File > Open a .tgproj)"), ErrorBanner::Severity::Error);
        return false;
    }
    m_table->clearSelection();
    m_followNewRun = true;
    m_logPane->showNewRun();
    m_side->setCurrentIndex(OutputTab);
    const bool ok = m_processes->start(project(), trainArguments);
    updateButtons();
    return ok;
}

void TrainingMonitor::onProcessFinished(
    const QString& runId, int exitCode, bool crashed, bool stopRequested, const QString& lastError)
{
    const RunRow* row = rowOf(runId);
    const QString name = row ? QString::fromStdString(row->record.name) : runId.left(8);
    QString text;
    if (runId.isEmpty() && exitCode != 0) {
        text = tr("The run did not start");
        m_banner->addMessage(lastError.isEmpty() ? text : text + QStringLiteral(": ") + lastError);
    } else if (exitCode == 0 && !crashed) {
        text = tr("Run %1 finished").arg(name);
    } else if (exitCode == 130 || (crashed && stopRequested)) {
        text = tr("Run %1 stopped").arg(name);
    } else {
        text = crashed ? tr("Run %1: the training process crashed").arg(name)
                       : tr("Run %1 failed (exit code %2)").arg(name).arg(exitCode);
        m_banner->addMessage(lastError.isEmpty() ? text : text + QStringLiteral(": ") + lastError);
    }
    Q_EMIT statusMessage(text);
    m_poller->pollNow();
    updateButtons();
}

void TrainingMonitor::stopSelected(int graceMs)
{
    for (const QString& id : selectedRunIds()) {
        const RunRow* run = rowOf(id);
        if (!run || run->record.status != tgraph::RunStatus::Running)
            continue;
        const QString name = QString::fromStdString(run->record.name);
        if (!m_processes->stop(project(), run->record, graceMs)) {
            m_banner->addMessage(
                tr("Run %1 runs on %2: stop it there").arg(name, QString::fromStdString(run->record.host)),
                ErrorBanner::Severity::Warning);
            continue;
        }
        Q_EMIT statusMessage(tr("Stopping run %1: checkpoint, then KILLED").arg(name));
    }
    m_poller->pollNow();
}

bool TrainingMonitor::canResumeSelection() const
{
    const QStringList ids = selectedRunIds();
    const RunRow* one = ids.size() == 1 ? rowOf(ids.front()) : nullptr;
    const bool interrupted = one
        && (one->stale || (tgraph::isTerminal(one->record.status) && one->record.status != tgraph::RunStatus::Finished))
        && !m_processes->isActive(ids.front());
    // A run continues from its checkpoint; a sweep (`tgraph sweep --resume`) from its queue.
    return interrupted && (isSweep(*one) || (!one->record.checkpoint.empty() && one->folds == 0));
}

bool TrainingMonitor::resumeSelected()
{
    const QStringList ids = selectedRunIds();
    if (!canResumeSelection())
        return false;
    const RunRow* row = rowOf(ids.front());
    const bool sweep = row && isSweep(*row);
    if (!(sweep ? m_processes->resumeSweep(project(), ids.front()) : m_processes->resume(project(), ids.front())))
        return false;
    m_logPane->showRun(ids.front(), runName(ids.front()));
    m_side->setCurrentIndex(OutputTab);
    updateButtons();
    return true;
}

bool TrainingMonitor::deleteSelected()
{
    const QStringList ids = selectedRunIds();
    if (ids.isEmpty())
        return false;
    for (const QString& id : ids)
        if (const RunRow* run = rowOf(id); run && run->record.status == tgraph::RunStatus::Running && !run->stale) {
            m_banner->addMessage(
                tr("Run %1 is running: stop it before deleting it").arg(QString::fromStdString(run->record.name)));
            return false;
        }
    if (m_confirm
        && QMessageBox::question(this, tr("Delete runs"),
               tr("Delete %n run(s) with their metrics, checkpoints and logs?", nullptr, int(ids.size())))
            != QMessageBox::Yes)
        return false;
    // Deleting removes folders of checkpoints: off the GUI thread, each deletion a job of its own.
    auto* job = new JobChannel(JobLane::Io, QStringLiteral("Delete runs"), this);
    connect(job, &JobChannel::failed, this, [this](quint64, const QString& message) {
        m_banner->addMessage(message);
        m_poller->pollNow();
    });
    connect(job, &JobChannel::finished, job, &QObject::deleteLater);
    connect(job, &JobChannel::failed, job, &QObject::deleteLater);
    connect(job, &JobChannel::cancelled, job, &QObject::deleteLater);
    job->start([this, path = project().toStdString(), ids](JobProgress&) -> JobTracker::Continuation {
        tgraph::Project p = tgraph::Project::open(path, tgraph::Project::Access::Write);
        for (const QString& id : ids)
            p.deleteRun(id.toStdString());
        return [this, count = int(ids.size())] {
            Q_EMIT statusMessage(tr("Deleted %n run(s)", nullptr, count));
            m_poller->pollNow();
        };
    });
    m_table->clearSelection();
    return true;
}

QString TrainingMonitor::weightsOf(const tgraph::Project& project, const tgraph::RunRecord& run)
{
    const QDir dir(QString::fromStdString(project.runDir(run.id)));
    for (const char* name : { "ensemble.json", "best.npz" })
        if (QFileInfo::exists(dir.filePath(QLatin1String(name))))
            return dir.filePath(QLatin1String(name));
    if (!run.checkpoint.empty()) {
        // only inside the project's data folder: InputError otherwise (Project::dataPath)
        const QString latest = QString::fromStdString(project.dataPath(run.checkpoint, "run " + run.id + " checkpoint"));
        if (QFileInfo::exists(latest))
            return latest;
    }
    return {};
}

void TrainingMonitor::openSelectedWeights()
{
    const QStringList ids = selectedRunIds();
    if (ids.size() != 1)
        return;
    try {
        const tgraph::Project p = tgraph::Project::open(project().toStdString(), tgraph::Project::Access::Read);
        const auto run = p.findRun(ids.front().toStdString());
        const QString file = run ? weightsOf(p, *run) : QString();
        if (file.isEmpty()) {
            m_banner->addMessage(tr("Run %1 has no weights yet (no checkpoint)")
                                     .arg(run ? QString::fromStdString(run->name) : ids.front()),
                ErrorBanner::Severity::Warning);
            return;
        }
        Q_EMIT openWeightsRequested(file);
        Q_EMIT statusMessage(tr("Opened %1 in the inference panel").arg(QDir::toNativeSeparators(file)));
    } catch (const std::exception& e) {
        m_banner->addMessage(QString::fromStdString(e.what()));
    }
}

void TrainingMonitor::focusRuns(const QStringList& runIds)
{
    const bool allRows
        = std::all_of(runIds.begin(), runIds.end(), [this](const QString& id) { return rowOf(id) != nullptr; });
    if (allRows) {
        selectRuns(runIds);
        return;
    }
    // Child runs (a sweep's runs, a cross-validation's folds) have no row of their own: the
    // parent's row stays selected, and the curves and the log are the child runs'.
    m_poller->setSelection(runIds, m_curves->metric());
    m_poller->pollNow();
    if (!runIds.isEmpty())
        m_logPane->showRun(runIds.front(), runIds.front().left(8));
}

bool TrainingMonitor::isSweep(const RunRow& row)
{
    return row.params.count("sweep.spec") > 0;
}

QString TrainingMonitor::sweepOfSelection() const
{
    const QStringList ids = selectedRunIds();
    if (ids.isEmpty())
        return {};
    const RunRow* row = rowOf(ids.front());
    for (int hop = 0; row && hop < 2; ++hop) {
        if (isSweep(*row))
            return QString::fromStdString(row->record.id);
        row = row->record.parentRun.empty() ? nullptr : rowOf(QString::fromStdString(row->record.parentRun));
    }
    return {};
}

void TrainingMonitor::showSweep()
{
    const QString sweep = sweepOfSelection();
    if (sweep.isEmpty() || project().isEmpty())
        return;
    m_sweepJobs->start([this, path = project(), sweep](JobProgress&) -> JobTracker::Continuation {
        auto data = std::make_shared<SweepViewData>(readSweepView(path, sweep, QStringLiteral("valid/tau")));
        return [this, data] {
            m_sweepView->setData(*data);
            m_sweepView->setWindowTitle(tr("Sweep %1 - %2")
                                            .arg(QString::fromStdString(data->summary.sweep.name),
                                                QFileInfo(project()).fileName()));
            if (!m_sweepView->isVisible() && m_sweepView->screen()) // sized as Compare: fits its screen
                m_sweepView->resize(RunComparisonWindow::initialSize(m_sweepView->screen()->availableGeometry().size()));
            m_sweepView->show();
            m_sweepView->raise();
            Q_EMIT sweepShown();
        };
    });
}

void TrainingMonitor::compareSelected()
{
    const QStringList ids = selectedRunIds();
    if (ids.size() < 2 || project().isEmpty())
        return;
    std::vector<RunParamsModel::Run> params;
    for (const QString& id : ids)
        if (const RunRow* r = rowOf(id))
            params.push_back({ QString::fromStdString(r->record.name), r->params });
    // The project is read on a worker thread with its own connection; a newer Compare (or another
    // project) drops this one's result.
    std::vector<std::string> keys;
    for (const QString& id : ids)
        keys.push_back(id.toStdString());
    m_compareJobs->start(
        [this, path = project().toStdString(), keys, ids, params](JobProgress&) -> JobTracker::Continuation {
            const tgraph::Project p = tgraph::Project::open(path, tgraph::Project::Access::Read);
            auto comparison = std::make_shared<tgraph::RunComparison>(tgraph::compareRuns(p, keys));
            return [this, comparison, ids, params] {
                m_comparison->setComparison(std::move(*comparison), params, QFileInfo(project()).fileName());
                m_comparison->showInFront();
                const QString message = tr("%n run(s) compared", nullptr, int(ids.size()))
                    + tr("; %n parameter(s) differ", nullptr, m_comparison->paramsModel()->rowCount());
                Q_EMIT statusMessage(message);
                Q_EMIT comparisonShown();
            };
        });
}

} // namespace tgraph::studio
