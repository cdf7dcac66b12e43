// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/tunepanel.h"
#include "ui_tunepanel.h"

#include "app/studio/common/studiolog.h"

#include "model/facade/autotuner.h"
#include "widgets/common/axispolicy.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/jobprogress.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

constexpr int kLivePollMs = 200;

// The "candidates scored" axis: whole numbers from 0; 0..1 before the first batch.
AxisPolicy::Request candidatesAxis(double last)
{
    AxisPolicy::Request r;
    r.kind = AxisPolicy::Kind::Integer;
    r.lowerBound = 0;
    r.lo = 0;
    r.hi = std::isfinite(last) ? std::max(1.0, last) : 1.0;
    return r;
}

} // namespace

TunePanel::TunePanel(QWidget* parent)
    : QWidget(parent)
    , m_channel(new JobChannel(JobLane::Model, QStringLiteral("Tune"), this))
{
    m_ui = std::make_unique<Ui::TunePanel>();
    m_ui->setupUi(this);
    m_banner = m_ui->errorBanner;
    m_graph = m_ui->graph;
    m_model = m_ui->model;
    m_model->lineEdit()->setPlaceholderText(tr("weights or ensemble .npz, checkpoint, or ensemble.json"));
    m_strategy = m_ui->strategy;
    for (const auto s : { tgraph::TuneStrategy::Annealing, tgraph::TuneStrategy::Evolutionary,
             tgraph::TuneStrategy::Random, tgraph::TuneStrategy::Exhaustive })
        m_strategy->addItem(QString::fromLatin1(tgraph::tuneStrategyName(s)), int(s));
    m_budget = m_ui->budget;
    m_batch = m_ui->batch;
    m_topK = m_ui->topK;
    m_seed = m_ui->seed;
    m_simulate = m_ui->simulate;
    connect(m_simulate, &QCheckBox::clicked, this, [this](bool checked) { m_simulateWanted = checked; });
    connect(m_graph, &QComboBox::currentIndexChanged, this, &TunePanel::updateVerification);
    m_moduleCheck = new JobChannel(JobLane::Io, tr("Graph module"), this);
    connect(m_moduleCheck, &JobChannel::failed, this, [this](quint64, const QString& message) {
        if (m_checking)
            m_simulatorProblems[m_checking] = message;
        m_checking = nullptr;
        updateVerification();
    });
    connect(m_moduleCheck, &JobChannel::cancelled, this, [this](quint64) { m_checking = nullptr; });
    connect(m_model, &QComboBox::editTextChanged, this, [this](const QString& text) {
        if (!text.trimmed().isEmpty())
            m_banner->clearCondition(kNoModel);
    });
    m_runButton = m_ui->runButton;
    m_cancelButton = m_ui->cancelButton;
    m_progress = m_ui->progress;
    m_progress->hide();
    m_summary = m_ui->summary;

    m_chart = m_ui->chartView->chart();
    ChartStyle::setUp(m_chart);
    m_chart->setTitle(tr("Best so far (lower score = faster)"));
    m_scoreSeries = new QLineSeries;
    // Axis titles short enough for the plot's height in a dock on a 1366x768 screen; the title
    // says the rest (docs/studio.md §5.6).
    m_scoreSeries->setName(tr("predicted score"));
    m_runtimeSeries = new QLineSeries;
    m_runtimeSeries->setName(tr("simulated runtime"));
    m_chart->addSeries(m_scoreSeries);
    m_chart->addSeries(m_runtimeSeries);
    m_xAxis = new NiceAxis;
    m_xAxis->setTitleText(tr("candidates scored"));
    m_scoreAxis = new NiceAxis;
    m_scoreAxis->setTitleText(tr("score"));
    m_runtimeAxis = new NiceAxis;
    m_runtimeAxis->setTitleText(tr("runtime"));
    m_runtimeAxis->setGridLineVisible(false); // the score's grid only: two grids would not line up
    m_chart->addAxis(m_xAxis, Qt::AlignBottom);
    m_chart->addAxis(m_scoreAxis, Qt::AlignLeft);
    m_chart->addAxis(m_runtimeAxis, Qt::AlignRight);
    m_scoreSeries->attachAxis(m_xAxis);
    m_scoreSeries->attachAxis(m_scoreAxis);
    m_runtimeSeries->attachAxis(m_xAxis);
    m_runtimeSeries->attachAxis(m_runtimeAxis);
    // Empty until the first batch: 0..1 on whole candidates, no runtime axis.
    m_xAxis->setRequest(candidatesAxis(NAN));
    m_scoreAxis->setRequest({});
    m_runtimeAxis->setVisible(false);
    m_runtimeSeries->setVisible(false);
    m_ui->chartView->setRenderHint(QPainter::Antialiasing);
    // Two fifths of the width for the chart (its two value axes need it), the rest for the table.
    m_ui->splitter->setSizes({ 2000, 3000 });

    m_table = new QStandardItemModel(this);
    m_table->setHorizontalHeaderLabels({ tr("rank"), tr("score"), tr("search score"), tr("verified"), tr("speed-up"),
        tr("nodes changed"), tr("layouts") });
    m_tableView = m_ui->tableView;
    m_tableView->setModel(m_table);
    // With cross-config attention a score depends on the configs scored with it (docs/studio.md §5.6).
    m_table->horizontalHeaderItem(1)->setToolTip(
        tr("Predicted score, the default and the top-k re-scored together in one batch (as Explain and "
           "tgraph predict score a set)"));
    m_table->horizontalHeaderItem(2)->setToolTip(tr("Predicted score in the search batch that found the candidate"));
    m_explainButton = m_ui->explainButton;

    m_liveTimer = new QTimer(this);
    m_liveTimer->setInterval(kLivePollMs);
    connect(m_liveTimer, &QTimer::timeout, this, &TunePanel::updateLive);
    connect(m_ui->browseModel, &QPushButton::clicked, this, &TunePanel::browseModel);
    connect(m_runButton, &QPushButton::clicked, this, &TunePanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &TunePanel::cancel);
    connect(m_explainButton, &QPushButton::clicked, this, [this] {
        if (m_view && m_selectedRow > 0)
            Q_EMIT explainRequested();
    });
    connect(m_tableView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        selectRow(index.row());
        if (m_selectedRow > 0)
            Q_EMIT explainRequested();
    });
    connect(m_tableView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            if (current.isValid() && current.row() != m_selectedRow)
                selectRow(current.row());
        });
    auto* control = new JobControl(m_channel, m_progress, m_banner, this);
    control->setCancelledMessage(tr("Tuning cancelled"));
    connect(control, &JobControl::statusMessage, this, &TunePanel::statusMessage);
    connect(control, &JobControl::busyChanged, this, [this](bool busy) {
        if (busy) {
            m_liveTimer->start();
            return;
        }
        m_liveTimer->stop();
        updateLive();
        m_runButton->setEnabled(true);
        m_cancelButton->setEnabled(false);
    });
    connect(control, &JobControl::stopped, this, [this, control] {
        if (m_view && control->lastOutcome() != JobControl::Outcome::Finished)
            showView(); // the last finished search stays on show
        Q_EMIT finished();
    });
    m_cancelButton->setEnabled(false);
    updateVerification();
}

TunePanel::~TunePanel() = default;

void TunePanel::setDocuments(
    const std::vector<tgraph::GraphDocumentPtr>& documents, const tgraph::GraphDocumentPtr& current)
{
    m_documents = documents;
    {
        const QSignalBlocker block(m_graph);
        m_graph->clear();
        for (const auto& doc : documents)
            m_graph->addItem(QString::fromStdString(doc->title), QString::fromStdString(doc->path));
        for (size_t i = 0; i < documents.size(); ++i)
            if (documents[i] == current)
                m_graph->setCurrentIndex(int(i));
    }
    // What is known of the documents still open stays known.
    for (auto it = m_simulatorProblems.begin(); it != m_simulatorProblems.end();)
        it = std::any_of(documents.begin(), documents.end(), [&](const auto& d) { return d.get() == it->first; })
            ? std::next(it)
            : m_simulatorProblems.erase(it);
    if (!documents.empty())
        m_banner->clearCondition(kNoGraph);
    updateVerification();
}

tgraph::GraphDocumentPtr TunePanel::currentDocument() const
{
    const int index = m_graph->currentIndex();
    return index >= 0 && size_t(index) < m_documents.size() ? m_documents[size_t(index)] : nullptr;
}

QString TunePanel::simulatorProblem() const
{
    const tgraph::GraphDocumentPtr doc = currentDocument();
    if (!doc)
        return tr("no graph is open");
    const auto it = m_simulatorProblems.find(doc.get());
    return it != m_simulatorProblems.end() ? it->second : tr("the graph's HLO module is still being looked for");
}

bool TunePanel::isCheckingModule() const { return m_moduleCheck->isBusy(); }

void TunePanel::updateVerification()
{
    // Once per open document. HLO inputs and tuning records carry their module and tile kernels have
    // none: known at once. A `tgraph synth` graph's module is generated again, up to a few hundred
    // ms for a large graph: off the GUI thread, the box disabled meanwhile.
    const tgraph::GraphDocumentPtr doc = currentDocument();
    if (doc && !m_simulatorProblems.count(doc.get())) {
        if (doc->kind == tgraph::GraphKind::Tile || doc->module) {
            m_simulatorProblems[doc.get()] = QString::fromStdString(tgraph::facade::simulatorVerificationProblem(*doc));
        } else if (m_checking != doc.get()) {
            m_checking = doc.get();
            m_moduleCheck->start([this, doc](JobProgress&) -> JobTracker::Continuation {
                const QString problem = QString::fromStdString(tgraph::facade::simulatorVerificationProblem(*doc));
                return [this, doc, problem] {
                    m_checking = nullptr;
                    if (std::find(m_documents.begin(), m_documents.end(), doc) != m_documents.end())
                        m_simulatorProblems[doc.get()] = problem;
                    updateVerification();
                };
            });
        }
    }
    const bool known = !doc || m_simulatorProblems.count(doc.get());
    const QString problem = simulatorProblem();
    const QSignalBlocker block(m_simulate);
    m_simulate->setEnabled(known && problem.isEmpty());
    m_simulate->setChecked(known && problem.isEmpty() && m_simulateWanted);
    if (!known)
        m_simulate->setToolTip(tr("Looking for the graph's HLO module, which the simulator needs…"));
    else if (problem.isEmpty())
        m_simulate->setToolTip(tr("Simulate the default and the top-k with the graph's HLO module and apply the "
                                  "fastest only when it runs faster than the default"));
    else
        m_simulate->setToolTip(tr("Not available: %1. The simulator needs the graph's HLO module: HLO modules, "
                                  "tuning records and graphs of synthetic collections have it.")
                                   .arg(problem));
}

void TunePanel::setModelFiles(const QStringList& files) { m_model->setCurrentText(files.join(QLatin1Char(';'))); }

QStringList TunePanel::modelFiles() const
{
    QStringList files;
    for (const QString& entry : m_model->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        files << entry.trimmed();
    return files;
}

void TunePanel::setStrategy(tgraph::TuneStrategy strategy)
{
    m_strategy->setCurrentIndex(std::max(0, m_strategy->findData(int(strategy))));
}

void TunePanel::setBudget(int budget) { m_budget->setValue(budget); }

void TunePanel::setBatch(int batch) { m_batch->setValue(batch); }

void TunePanel::setSimulate(bool simulate)
{
    m_simulateWanted = simulate;
    updateVerification();
}

bool TunePanel::isRunning() const { return m_channel->isBusy(); }

void TunePanel::cancel() { m_channel->cancel(); }

void TunePanel::browseModel()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Choose a model"), QString(), tr("Models (*.npz *.pt *.ckpt *.json);;All files (*)"));
    if (!files.isEmpty())
        setModelFiles(files);
}

void TunePanel::run()
{
    m_banner->dismiss();
    const int index = m_graph->currentIndex();
    if (index < 0 || size_t(index) >= m_documents.size()) {
        m_banner->showCondition(kNoGraph, tr("Open a graph to tune (an HLO module, a tuning record or a graph file)"),
            ErrorBanner::Severity::Error);
        return;
    }
    std::vector<std::string> weights;
    for (const QString& w : m_model->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        weights.push_back(w.trimmed().toStdString());
    if (weights.empty()) {
        m_banner->showCondition(kNoModel,
            tr("Choose a model (a weights or ensemble .npz, a checkpoint or an ensemble.json)"),
            ErrorBanner::Severity::Error);
        return;
    }
    const tgraph::GraphDocumentPtr doc = m_documents[size_t(index)];
    tgraph::AutotuneRequest request;
    request.search.strategy = tgraph::TuneStrategy(m_strategy->currentData().toInt());
    request.search.budget = m_budget->value();
    request.search.batch = m_batch->value();
    request.search.seed = uint64_t(m_seed->value());
    request.topK = m_topK->value();
    // Verify when the box is ticked; when the module is still being looked for, the job decides with
    // the user's choice (it looks for the module first).
    const bool moduleKnown = m_simulatorProblems.count(doc.get()) > 0;
    request.simulate = moduleKnown ? m_simulate->isEnabled() && m_simulate->isChecked() : m_simulateWanted;
    const QString knownProblem = moduleKnown ? m_simulatorProblems.at(doc.get()) : QString();

    m_live = std::make_shared<TuneLive>();
    m_livePoints = 0;
    m_scoreSeries->clear();
    m_runtimeSeries->clear();
    m_xAxis->setRequest(candidatesAxis(NAN));
    m_scoreAxis->setRequest({});
    m_runtimeAxis->setVisible(false);
    m_runtimeSeries->setVisible(false);
    m_table->removeRows(0, m_table->rowCount());
    m_summary->clear();
    m_runButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    qCDebug(lcStudio) << "tuning" << QString::fromStdString(doc->path) << m_strategy->currentText() << "budget"
                      << request.search.budget;
    m_channel->start([this, doc, weights, request, moduleKnown, knownProblem, live = m_live](
                        JobProgress& progress) -> std::function<void()> {
        const QString whyNotSimulated
            = moduleKnown ? knownProblem : QString::fromStdString(tgraph::facade::simulatorVerificationProblem(*doc));
        tgraph::AutotuneRequest verified = request;
        verified.simulate = request.simulate && whyNotSimulated.isEmpty();
        tgraph::facade::Ensemble models
            = tgraph::facade::Ensemble::load(tgraph::facade::expandWeightsArguments(weights));
        tgraph::facade::Autotuner tuner(models, doc, verified);
        size_t best = 0, seen = 0; // the best evaluation so far, found among the new ones of each batch
        const tgraph::AutotuneOutcome outcome = tuner.run(&progress, [&](const tgraph::TuneResult& r) {
            for (; seen < r.evaluated.size(); ++seen)
                if (r.evaluated[seen].score < r.evaluated[best].score)
                    best = seen;
            // The best so far and, when verifying with the simulator, its simulated runtime.
            const double runtime = tuner.simulatedRuntime(r.evaluated[best].genes);
            const std::lock_guard<std::mutex> lock(live->mutex);
            live->bestScore.push_back(r.bestSoFar.back());
            live->evaluations.push_back(int64_t(r.evaluated.size()));
            live->bestRuntime.push_back(runtime);
        });
        auto view = std::make_shared<TuneView>();
        view->path = doc->path;
        view->kind = tuner.space().kind;
        view->verification = outcome.verification;
        view->simulatorProblem = whyNotSimulated;
        view->evaluated = int64_t(outcome.result.evaluated.size());
        view->seconds = outcome.searchSeconds;
        view->winner = outcome.winner;
        view->weights = weights;
        view->configurableNodes = tuner.space().nodeIds;
        const std::vector<float> start = tuner.space().row(tuner.space().start());
        const auto addRow = [&](int rank, const tgraph::AutotuneCandidate& c) {
            TuneView::Row row;
            row.rank = rank;
            row.score = c.score;
            row.searchScore = c.searchScore;
            row.runtime = c.runtime;
            row.values = tuner.row(outcome, c);
            if (view->kind == tgraph::GraphKind::Layout)
                for (size_t k = 0; k < row.values.size() / 18; ++k)
                    row.changedNodes += !std::equal(row.values.begin() + int64_t(k * 18),
                        row.values.begin() + int64_t(k * 18 + 18), start.begin() + int64_t(k * 18));
            row.layouts = tuner.layoutAssignment(row.values);
            view->rows.push_back(std::move(row));
        };
        addRow(0, outcome.defaultEntry);
        for (size_t r = 0; r < outcome.top.size(); ++r)
            addRow(int(r + 1), outcome.top[r]);
        return [this, view, doc] {
            m_view = view;
            m_viewDocument = doc;
            showView();
        };
    });
}

void TunePanel::updateLive()
{
    if (!m_live)
        return;
    std::vector<double> scores, runtimes;
    std::vector<int64_t> evaluations;
    {
        const std::lock_guard<std::mutex> lock(m_live->mutex);
        if (m_live->bestScore.size() == m_livePoints)
            return;
        scores = m_live->bestScore;
        runtimes = m_live->bestRuntime;
        evaluations = m_live->evaluations;
    }
    // Runtimes in the unit of the largest (ms for most modules), so the axis reads like the table.
    double largest = 0;
    for (const double r : runtimes)
        if (std::isfinite(r))
            largest = std::max(largest, r);
    const auto [unit, unitName] = Formatting::durationUnit(largest);
    QList<QPointF> scorePoints, runtimePoints;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, rlo = lo, rhi = -lo;
    for (size_t i = 0; i < scores.size(); ++i) {
        if (std::isfinite(scores[i])) {
            scorePoints.append(QPointF(double(evaluations[i]), scores[i]));
            lo = std::min(lo, scores[i]);
            hi = std::max(hi, scores[i]);
        }
        if (std::isfinite(runtimes[i])) {
            const double r = runtimes[i] / unit;
            runtimePoints.append(QPointF(double(evaluations[i]), r));
            rlo = std::min(rlo, r);
            rhi = std::max(rhi, r);
        }
    }
    m_livePoints = scores.size();
    m_scoreSeries->replace(scorePoints); // one update per poll: no flicker
    m_runtimeSeries->replace(runtimePoints);
    m_xAxis->setRequest(candidatesAxis(evaluations.empty() ? NAN : double(evaluations.back())));
    // The axis policy pads a single value and rounds outwards to nice ticks.
    AxisPolicy::Request score;
    if (std::isfinite(lo)) {
        score.lo = lo - (hi - lo) * 0.05;
        score.hi = hi + (hi - lo) * 0.05;
    }
    m_scoreAxis->setRequest(score);
    m_runtimeAxis->setVisible(std::isfinite(rlo));
    m_runtimeSeries->setVisible(std::isfinite(rlo));
    if (std::isfinite(rlo)) {
        m_runtimeAxis->setTitleText(tr("runtime, %1").arg(unitName));
        AxisPolicy::Request runtime;
        runtime.lo = rlo - (rhi - rlo) * 0.05;
        runtime.hi = rhi + (rhi - rlo) * 0.05;
        m_runtimeAxis->setRequest(runtime);
    }
}

void TunePanel::showView()
{
    const TuneView& v = *m_view;
    m_table->removeRows(0, m_table->rowCount());
    const double base = v.rows.front().runtime;
    // Verified runtimes with the digits that tell the rows apart (docs/studio.md §8.3).
    std::vector<double> verified;
    for (const TuneView::Row& row : v.rows)
        verified.push_back(row.runtime);
    const QStringList verifiedText = Formatting::durations(verified);
    for (const TuneView::Row& row : v.rows) {
        QList<QStandardItem*> items;
        items << new QStandardItem(
            row.rank == 0 ? tr("default") : QStringLiteral("#%1").arg(Formatting::count(row.rank)));
        items << new QStandardItem(Formatting::number(row.score, 6));
        items << new QStandardItem(Formatting::number(row.searchScore, 6));
        items << new QStandardItem(verifiedText[int(&row - v.rows.data())]);
        items << new QStandardItem(Formatting::factor(base / row.runtime, 3)); // "–" unless both verified
        items << new QStandardItem(Formatting::count(row.changedNodes));
        QString layouts = QString::fromStdString(row.layouts).trimmed();
        items << new QStandardItem(layouts.section(QLatin1Char('\n'), 0, 0).trimmed()
            + (layouts.contains(QLatin1Char('\n')) ? QStringLiteral(" …") : QString()));
        items.back()->setToolTip(layouts);
        if (row.rank > 0 && row.rank == v.winner)
            for (QStandardItem* item : items)
                item->setBackground(QColor(0xd9, 0xf2, 0xd9));
        m_table->appendRow(items);
    }
    m_tableView->resizeColumnsToContents();
    QString text
        = tr("%1 candidates scored in %2.").arg(Formatting::count(v.evaluated), Formatting::seconds(v.seconds, 1));
    if (v.verification.empty() && !v.simulatorProblem.isEmpty())
        text += tr(" Not verified: %1.").arg(v.simulatorProblem);
    else if (v.verification.empty())
        text += tr(" Not verified: tick \"Verify with the simulator\" to simulate the default and the top-k.");
    else if (v.winner > 0)
        text += tr(" Apply #%1: %2 %3 vs the default's %4, %5 (%6).")
                    .arg(Formatting::count(v.winner), QString::fromStdString(v.verification), verifiedText[v.winner],
                        verifiedText[0], Formatting::durationDifference(v.rows[size_t(v.winner)].runtime, base),
                        Formatting::factor(base / v.rows[size_t(v.winner)].runtime, 3));
    else
        text += tr(" Keep the compiler default: no %1 candidate of the top-k is faster.")
                    .arg(QString::fromStdString(v.verification));
    // The same config reads differently in the two columns when its batch changes its score.
    const bool batchDependent = std::any_of(v.rows.begin() + 1, v.rows.end(),
        [](const TuneView::Row& row) { return std::abs(row.score - row.searchScore) > 1e-9; });
    if (batchDependent)
        text += QStringLiteral("\n")
            + tr("Scores depend on their batch (cross-config attention): \"score\" is from one batch of the default "
                 "and the top-%1, \"search score\" from the search batch that found the candidate.")
                  .arg(Formatting::count(int64_t(v.rows.size()) - 1));
    m_summary->setText(text);
    Q_EMIT statusMessage(text.section(QLatin1Char('\n'), 0, 0));
    selectRow(v.rows.size() > 1 ? 1 : 0);
}

void TunePanel::selectRow(int row)
{
    if (!m_view || row < 0 || size_t(row) >= m_view->rows.size())
        return;
    m_selectedRow = row;
    {
        const QSignalBlocker block(m_tableView->selectionModel());
        m_tableView->selectionModel()->setCurrentIndex(
            m_table->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    m_explainButton->setEnabled(row > 0 && m_view->kind == tgraph::GraphKind::Layout);
    // Overlay: the configurable nodes whose layouts the selected config changes (tensors changed).
    m_overlay = {};
    if (m_view->kind == tgraph::GraphKind::Layout && m_viewDocument) {
        const std::vector<float>& values = m_view->rows[size_t(row)].values;
        const std::vector<float>& start = m_view->rows.front().values;
        m_overlay.values.assign(size_t(m_viewDocument->nodeCount()), std::numeric_limits<float>::quiet_NaN());
        for (size_t k = 0; k < m_view->configurableNodes.size(); ++k) {
            int changed = 0;
            for (int t = 0; t < 3; ++t)
                changed += !std::equal(values.begin() + int64_t(k * 18 + size_t(t) * 6),
                    values.begin() + int64_t(k * 18 + size_t(t) * 6 + 6),
                    start.begin() + int64_t(k * 18 + size_t(t) * 6));
            const int64_t node = m_view->configurableNodes[k];
            if (node >= 0 && node < m_viewDocument->nodeCount())
                m_overlay.values[size_t(node)] = float(changed);
        }
        m_overlay.minimum = 0;
        m_overlay.maximum = 3;
        m_overlay.name = row == 0 ? tr("default: no layout changed")
                                  : tr("#%1: tensors whose layout changes").arg(Formatting::count(row));
    }
    Q_EMIT overlayChanged(QString::fromStdString(m_view->path));
}

ExplainRequest TunePanel::explainContext() const
{
    ExplainRequest request;
    if (!m_view || m_view->kind != tgraph::GraphKind::Layout)
        return request;
    request.weights = m_view->weights;
    request.document = m_viewDocument;
    const int64_t rows = int64_t(m_view->rows.size());
    const int64_t nc = int64_t(m_view->configurableNodes.size());
    request.configValues = tgraph::NdArray<float>({ rows, nc, 18 });
    for (int64_t r = 0; r < rows; ++r) {
        std::copy(m_view->rows[size_t(r)].values.begin(), m_view->rows[size_t(r)].values.end(),
            request.configValues.data() + r * nc * 18);
        request.configIds.push_back(r); // the tune rank (0 = the default)
        request.runtimes.push_back(m_view->rows[size_t(r)].runtime);
    }
    if (std::any_of(request.runtimes.begin(), request.runtimes.end(), [](double t) { return !std::isfinite(t); }))
        request.runtimes.clear();
    request.runtimesSimulated = m_view->verification == "simulated";
    request.configurableNodes = m_view->configurableNodes;
    request.idsAreFileConfigs = false;
    request.a.role = tgraph::ConfigRole::Index;
    request.a.index = std::max(1, m_selectedRow);
    request.b.role = tgraph::ConfigRole::Index;
    request.b.index = 0;
    return request;
}

} // namespace tgraph::studio
