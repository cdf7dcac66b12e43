// SPDX-License-Identifier: Apache-2.0
#include "trainingmonitor.h"

#include "newrundialog.h"
#include "studiolog.h"

#include "app/launcher/trainingprocess.h"
#include "core/project.h"
#include "widgets/errorbanner.h"
#include "widgets/runcurvesview.h"
#include "widgets/runtablemodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <csignal>

TrainingMonitor::TrainingMonitor(QWidget* parent)
    : QWidget(parent)
    , m_poller(new RunPoller(this))
    , m_process(new tgraph::app::TrainingProcess(this))
    , m_model(new RunTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    auto* layout = new QVBoxLayout(this);
    m_banner = new ErrorBanner(this);
    layout->addWidget(m_banner);
    auto* bar = new QHBoxLayout;
    auto* newRun = new QPushButton(tr("New run…"));
    m_stop = new QPushButton(tr("Stop"));
    m_stop->setToolTip(
        tr("Graceful stop: the run finishes its step, writes a checkpoint and ends KILLED; killed after 30 s"));
    m_resume = new QPushButton(tr("Resume"));
    m_delete = new QPushButton(tr("Delete"));
    m_weights = new QPushButton(tr("Open weights"));
    m_weights->setToolTip(tr("Open the run's best ensemble or checkpoint in the inference panel"));
    m_compare = new QPushButton(tr("Compare"));
    m_compare->setToolTip(tr("Parameters that differ between the two selected runs (their curves overlay)"));
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter runs (name, status, experiment)"));
    m_filter->setClearButtonEnabled(true);
    for (QPushButton* b : { newRun, m_stop, m_resume, m_delete, m_weights, m_compare })
        bar->addWidget(b);
    bar->addWidget(m_filter, 1);
    layout->addLayout(bar);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table = new QTableView;
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunTableModel::Started, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    auto* curvesPage = new QWidget;
    auto* curvesLayout = new QVBoxLayout(curvesPage);
    curvesLayout->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    m_metric = new QComboBox;
    for (const auto& [label, key] : std::initializer_list<std::pair<const char*, const char*>> {
             { "loss", "train/loss" }, { "validation τ", "valid/tau" }, { "validation OPA", "valid/opa" },
             { "top-5 slowdown", "valid/top5_slowdown" }, { "learning rate", "train/lr" },
             { "gradient norm", "train/grad_norm" }, { "steps/s", "train/steps_per_s" } })
        m_metric->addItem(tr(label), QString::fromLatin1(key));
    m_xAxis = new QComboBox;
    m_xAxis->addItems({ tr("step"), tr("relative time"), tr("wall time") });
    m_smoothing = new QSlider(Qt::Horizontal);
    m_smoothing->setRange(0, 99);
    m_smoothing->setValue(60);
    m_smoothing->setToolTip(tr("TensorBoard smoothing (debiased EMA weight)"));
    auto* smoothingLabel = new QLabel(QStringLiteral("0.60"));
    m_logY = new QCheckBox(tr("log y"));
    controls->addWidget(new QLabel(tr("Metric:")));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("x:")));
    controls->addWidget(m_xAxis);
    controls->addWidget(new QLabel(tr("Smoothing:")));
    controls->addWidget(m_smoothing, 1);
    controls->addWidget(smoothingLabel);
    controls->addWidget(m_logY);
    curvesLayout->addLayout(controls);
    m_curves = new RunCurvesView;
    curvesLayout->addWidget(m_curves, 1);

    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setPlaceholderText(tr("Output of the runs started here"));
    QFont mono = m_log->font();
    mono.setFamily(QStringLiteral("monospace"));
    m_log->setFont(mono);

    auto* vertical = new QSplitter(Qt::Vertical);
    vertical->addWidget(m_table);
    auto* bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(curvesPage);
    bottom->addWidget(m_log);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    vertical->addWidget(bottom);
    vertical->setStretchFactor(1, 2);
    layout->addWidget(vertical, 1);

    connect(newRun, &QPushButton::clicked, this, &TrainingMonitor::showNewRunDialog);
    connect(m_stop, &QPushButton::clicked, this, [this] { stopSelected(); });
    connect(m_resume, &QPushButton::clicked, this, &TrainingMonitor::resumeSelected);
    connect(m_delete, &QPushButton::clicked, this, &TrainingMonitor::deleteSelected);
    connect(m_weights, &QPushButton::clicked, this, &TrainingMonitor::openWeights);
    connect(m_compare, &QPushButton::clicked, this, &TrainingMonitor::compareRuns);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &TrainingMonitor::updateSelection);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &TrainingMonitor::updateSelection);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this,
        [this](int index) { m_curves->setXAxis(RunCurvesView::XAxis(index)); });
    connect(m_smoothing, &QSlider::valueChanged, this, [this, smoothingLabel](int value) {
        smoothingLabel->setText(QString::number(value / 100.0, 'f', 2));
        m_curves->setSmoothing(value / 100.0);
    });
    connect(m_logY, &QCheckBox::toggled, m_curves, &RunCurvesView::setLogY);
    connect(m_poller, &RunPoller::snapshot, this, &TrainingMonitor::onSnapshot);
    connect(m_process, &tgraph::app::TrainingProcess::outputLine, this, [this](const QString& line, bool isError) {
        m_log->appendPlainText(isError ? QStringLiteral("! ") + line : line);
    });
    connect(m_process, &tgraph::app::TrainingProcess::runIdKnown, this, [this](const QString& id) {
        m_poller->pollNow();
        selectRuns({ id });
    });
    connect(m_process, &tgraph::app::TrainingProcess::finished, this, [this](int exitCode, bool crashed) {
        const QString text = crashed ? tr("The training process crashed")
            : exitCode == 0          ? tr("Training finished")
            : exitCode == 130        ? tr("Training stopped")
                                     : tr("Training ended with exit code %1").arg(exitCode);
        m_log->appendPlainText(QStringLiteral("— ") + text);
        Q_EMIT statusMessage(text);
        m_poller->pollNow();
        updateButtons();
    });
    connect(m_process, &tgraph::app::TrainingProcess::failed, this, [this](const QString& message) {
        m_banner->addMessage(message);
        updateButtons();
    });
    updateButtons();
}

TrainingMonitor::~TrainingMonitor() = default;

void TrainingMonitor::setProject(const QString& path)
{
    m_banner->dismiss();
    m_lastError.clear();
    m_poller->setProject(path);
    m_poller->start();
}

QStringList TrainingMonitor::selectedRunIds() const
{
    QStringList ids;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        ids << index.data(RunTableModel::RunIdRole).toString();
    return ids;
}

const RunRow* TrainingMonitor::rowOf(const QString& runId) const
{
    const int row = m_model->rowOfRun(runId.toStdString());
    return row < 0 ? nullptr : &m_model->runs()[size_t(row)];
}

void TrainingMonitor::selectRuns(const QStringList& runIds)
{
    QItemSelection selection;
    for (const QString& id : runIds) {
        const int row = m_model->rowOfRun(id.toStdString());
        if (row < 0)
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        selection.select(index, index.siblingAtColumn(RunTableModel::ColumnCount - 1));
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    updateSelection();
}

void TrainingMonitor::setMetric(const QString& contextKey)
{
    const int index = m_metric->findData(contextKey);
    if (index >= 0)
        m_metric->setCurrentIndex(index);
}

void TrainingMonitor::updateSelection()
{
    m_poller->setSelection(selectedRunIds(), m_metric->currentData().toString());
    updateButtons();
}

void TrainingMonitor::onSnapshot(const std::shared_ptr<const RunSnapshot>& snapshot)
{
    if (!snapshot->error.isEmpty()) {
        if (snapshot->error != m_lastError)
            m_banner->addMessage(snapshot->error);
        m_lastError = snapshot->error;
        Q_EMIT snapshotShown();
        return;
    }
    if (!m_lastError.isEmpty())
        m_banner->dismiss(); // the project reads again
    m_lastError.clear();
    const QStringList selected = selectedRunIds();
    m_model->setRuns(snapshot->runs, snapshot->nowMs);
    if (selectedRunIds() != selected) // rows were replaced: restore the selection by run id
        selectRuns(selected);
    m_curves->setCurves(snapshot->curves);
    updateButtons();
    Q_EMIT snapshotShown();
}

void TrainingMonitor::updateButtons()
{
    const QStringList ids = selectedRunIds();
    const RunRow* one = ids.size() == 1 ? rowOf(ids.front()) : nullptr;
    const bool running = one && one->record.status == tgraph::RunStatus::Running;
    m_stop->setEnabled(running);
    m_resume->setEnabled(
        one && tgraph::isTerminal(one->record.status) && !m_process->isRunning() && !one->record.checkpoint.empty());
    m_delete->setEnabled(!ids.isEmpty());
    m_weights->setEnabled(one);
    m_compare->setEnabled(ids.size() == 2);
}

bool TrainingMonitor::startRun(const QStringList& trainArguments)
{
    if (project().isEmpty()) {
        m_banner->addMessage(tr("Open or create a project first (File > Open a .tgproj)"));
        return false;
    }
    m_log->appendPlainText(
        QStringLiteral("$ tgraph train %1 --project %2").arg(trainArguments.join(QLatin1Char(' ')), project()));
    return m_process->start(project(), trainArguments);
}

void TrainingMonitor::showNewRunDialog()
{
    NewRunDialog dialog(project().isEmpty() ? tr("PROJECT.tgproj") : project(), this);
    if (dialog.exec() == QDialog::Accepted)
        startRun(dialog.trainArguments());
}

void TrainingMonitor::stopSelected(int graceMs)
{
    for (const QString& id : selectedRunIds()) {
        const RunRow* run = rowOf(id);
        if (!run || run->record.status != tgraph::RunStatus::Running)
            continue;
        if (m_process->isRunning() && m_process->runId() == id) {
            m_process->stop(graceMs);
        } else if (run->record.pid > 0 && run->record.host == tgraph::hostName()) {
            // A run started elsewhere on this machine: the same graceful stop as `tgraph runs stop`.
            ::kill(pid_t(run->record.pid), SIGTERM);
        } else {
            m_banner->addMessage(
                tr("Run %1 runs on %2: stop it there")
                    .arg(QString::fromStdString(run->record.name), QString::fromStdString(run->record.host)),
                ErrorBanner::Severity::Warning);
            continue;
        }
        Q_EMIT statusMessage(
            tr("Stopping run %1 (checkpoint, then KILLED)").arg(QString::fromStdString(run->record.name)));
    }
}

bool TrainingMonitor::resumeSelected()
{
    const QStringList ids = selectedRunIds();
    if (ids.size() != 1)
        return false;
    m_log->appendPlainText(QStringLiteral("$ tgraph train --resume %1 --project %2").arg(ids.front(), project()));
    return m_process->resume(project(), ids.front());
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
               tr("Delete %n run(s) with their metrics and checkpoints?", nullptr, int(ids.size())))
            != QMessageBox::Yes)
        return false;
    try {
        tgraph::Project p = tgraph::Project::open(project().toStdString(), tgraph::Project::Access::Write);
        for (const QString& id : ids)
            p.deleteRun(id.toStdString());
    } catch (const std::exception& e) {
        m_banner->addMessage(QString::fromStdString(e.what()));
        return false;
    }
    m_table->clearSelection();
    m_poller->pollNow();
    return true;
}

void TrainingMonitor::openWeights()
{
    const QStringList ids = selectedRunIds();
    if (ids.size() != 1)
        return;
    try {
        const tgraph::Project p = tgraph::Project::open(project().toStdString(), tgraph::Project::Access::Read);
        std::string file;
        for (const tgraph::ArtifactRecord& a : p.artifacts(ids.front().toStdString()))
            if (a.kind == "ensemble"
                || (a.kind == "checkpoint" && a.path.find("best") != std::string::npos
                    && file.find("ensemble") == std::string::npos))
                file = a.path;
        if (file.empty()) {
            const auto run = p.findRun(ids.front().toStdString());
            file = run ? run->checkpoint : std::string();
        }
        if (file.empty()) {
            m_banner->addMessage(tr("The run has no checkpoint yet"), ErrorBanner::Severity::Warning);
            return;
        }
        Q_EMIT openWeightsRequested(QString::fromStdString(p.absolutePath(file)));
    } catch (const std::exception& e) {
        m_banner->addMessage(QString::fromStdString(e.what()));
    }
}

QStringList TrainingMonitor::paramDifferences(
    const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b)
{
    QStringList lines;
    std::map<std::string, std::pair<std::string, std::string>> all;
    for (const auto& [k, v] : a)
        all[k].first = v;
    for (const auto& [k, v] : b)
        all[k].second = v;
    for (const auto& [k, v] : all)
        if (v.first != v.second)
            lines << QStringLiteral("%1: %2 | %3")
                         .arg(QString::fromStdString(k), QString::fromStdString(v.first.empty() ? "—" : v.first),
                             QString::fromStdString(v.second.empty() ? "—" : v.second));
    return lines;
}

void TrainingMonitor::compareRuns()
{
    const QStringList ids = selectedRunIds();
    if (ids.size() != 2)
        return;
    const RunRow* a = rowOf(ids[0]);
    const RunRow* b = rowOf(ids[1]);
    if (!a || !b)
        return;
    const QStringList diff = paramDifferences(a->params, b->params);
    QMessageBox::information(this, tr("Compare runs"),
        tr("%1 | %2\n\n%3")
            .arg(QString::fromStdString(a->record.name), QString::fromStdString(b->record.name),
                diff.isEmpty() ? tr("Same parameters") : diff.join(QLatin1Char('\n'))));
}
