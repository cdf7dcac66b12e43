// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/inferencepanel.h"

#include "app/studio/analysis/attentionviews.h"
#include "app/studio/analysis/inferenceexport.h"
#include "app/studio/analysis/inferenceform.h"
#include "app/studio/analysis/inferenceresults.h"
#include "app/studio/analysis/inferencejob.h"
#include "app/studio/analysis/storedinference.h"
#include "app/studio/common/studiolog.h"
#include "model/facade/runtime.h"

#include "widgets/analysis/predictiontablemodel.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/formatting.h"

#include <QCursor>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace tgraph::studio {

using namespace tgraph::widgets;

InferencePanel::InferencePanel(QWidget* parent)
    : QWidget(parent)
    , m_channel(new JobChannel(JobLane::Model, QStringLiteral("Inference"), this))
{
    auto* layout = new QVBoxLayout(this);
    m_banner = new ErrorBanner(this);
    layout->addWidget(m_banner);
    // The form folds away once results are shown, so that in the dock's height the charts get the
    // room (docs/studio.md §5.1); "Run settings" unfolds it again, and so does a new run.
    m_settingsToggle = new QToolButton;
    m_settingsToggle->setText(tr("Run settings"));
    m_settingsToggle->setToolTip(tr("Show or hide the model, graph and config choices"));
    m_settingsToggle->setCheckable(true);
    m_settingsToggle->setChecked(true);
    m_settingsToggle->setAutoRaise(true);
    m_settingsToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_settingsToggle->setArrowType(Qt::DownArrow);
    layout->addWidget(m_settingsToggle);
    // The form scrolls its fields when the dock is lower than they are, and keeps its Run row in
    // sight below them, whatever the banner above takes (docs/studio.md §5.1).
    m_form = new InferenceForm;
    layout->addWidget(m_form);
    connect(m_settingsToggle, &QToolButton::toggled, this, &InferencePanel::setSettingsShown);
    m_results = new InferenceResults;
    layout->addWidget(m_results, 1);

    connect(m_form, &InferenceForm::runRequested, this, &InferencePanel::run);
    connect(m_form, &InferenceForm::cancelRequested, this, &InferencePanel::cancel);
    connect(m_form, &InferenceForm::storedRunRequested, this, &InferencePanel::chooseStoredRun);
    connect(m_form, &InferenceForm::modelChanged, this, &InferencePanel::modelFilesChanged);
    connect(m_form, &InferenceForm::modelChanged, this, &InferencePanel::recheckRequest);
    connect(m_results, &InferenceResults::configSelected, this, &InferencePanel::configSelected);
    connect(m_results, &InferenceResults::openGraphRequested, this, &InferencePanel::openGraphRequested);
    connect(m_results, &InferenceResults::explainRequested, this, &InferencePanel::explainRequested);
    connect(m_results, &InferenceResults::nodeOverlayChanged, this, &InferencePanel::nodeOverlayChanged);
    connect(m_results, &InferenceResults::exportTopKRequested, this, &InferencePanel::askExportTopK);
    connect(m_results, &InferenceResults::exportKaggleRequested, this, &InferencePanel::askExportKaggle);

    auto* control = new JobControl(m_channel, m_form->progressBar(), m_banner, this);
    control->setCancelledMessage(tr("Inference cancelled"));
    connect(control, &JobControl::statusMessage, this, &InferencePanel::statusMessage);
    connect(control, &JobControl::busyChanged, m_form, &InferenceForm::setBusy);
    connect(control, &JobControl::stopped, this, &InferencePanel::finished);
}

InferencePanel::~InferencePanel() = default;

void InferencePanel::setDocuments(
    const std::vector<tgraph::GraphDocumentPtr>& documents, const tgraph::GraphDocumentPtr& current)
{
    m_form->setDocuments(documents, current);
    recheckRequest();
}

void InferencePanel::setProjects(const QStringList& projectPaths)
{
    m_form->setProjects(projectPaths);
    if (!projectPaths.isEmpty())
        m_banner->clearCondition(kNoProject);
}

void InferencePanel::setStoreInProject(const QString& projectPath) { m_form->setStoreInProject(projectPath); }

void InferencePanel::setModelFiles(const QStringList& files) { m_form->setModelFiles(files); }
QStringList InferencePanel::modelFiles() const { return m_form->modelFiles(); }

void InferencePanel::setCollection(const QString& directory)
{
    m_form->setCollection(directory);
    recheckRequest();
}

void InferencePanel::recheckRequest()
{
    if (!m_banner->hasCondition(kIncompleteRequest))
        return;
    InferenceRequest request;
    QString problem, note;
    // The problem shown is solved (another one shows when Run is pressed).
    if (m_form->makeRequest(&request, &problem, &note) || problem != m_requestProblem)
        m_banner->clearCondition(kIncompleteRequest);
}

void InferencePanel::setConfigSet(ConfigSetKind kind, int64_t count) { m_form->setConfigSet(kind, count); }

bool InferencePanel::isRunning() const { return m_channel->isBusy(); }

void InferencePanel::run()
{
    m_banner->dismiss();
    InferenceRequest request;
    QString problem;
    QString note;
    if (!m_form->makeRequest(&request, &problem, &note)) {
        m_requestProblem = problem;
        m_banner->showCondition(kIncompleteRequest, problem, ErrorBanner::Severity::Error);
        return;
    }
    if (!note.isEmpty())
        Q_EMIT statusMessage(note);
    m_runDocument = request.document;
    setSettingsShown(true); // its progress bar and Cancel
    qCDebug(lcStudio) << "inference on"
                      << (request.document ? QString::fromStdString(request.document->path) : m_form->collection());
    using Outcome = std::shared_ptr<const InferenceOutcome>;
    m_channel->run<Outcome>(
        [request = std::move(request)](JobProgress& progress) -> Outcome {
            try {
                return std::make_shared<const InferenceOutcome>(runInference(request, &progress));
            } catch (const std::bad_alloc&) {
                throw std::runtime_error("not enough memory for inference; lower the configs per pass");
            }
        },
        [this](Outcome outcome) { onFinished(outcome); });
}

void InferencePanel::cancel() { m_channel->cancel(); }

void InferencePanel::onFinished(const std::shared_ptr<const InferenceOutcome>& outcome)
{
    if (!outcome->graphs.empty())
        m_banner->clearCondition(kNoResults);
    for (const std::string& p : outcome->problems)
        m_banner->addMessage(QString::fromStdString(p), ErrorBanner::Severity::Warning);
    m_results->showOutcome(outcome, m_runDocument);
    if (!outcome->graphs.empty() && !isRunning())
        setSettingsShown(false);
    QString message = tr("Scored %Ln graph(s) in %1, products in %2", nullptr, int(outcome->graphs.size()))
                          .arg(Formatting::seconds(outcome->seconds, 2),
                              QString::fromStdString(tgraph::facade::productPrecision()));
    if (!outcome->runId.empty())
        message += tr("; stored as run %1 in %2")
                       .arg(QString::fromStdString(outcome->runId.substr(0, 8)),
                           QFileInfo(QString::fromStdString(outcome->project)).fileName());
    Q_EMIT statusMessage(message);
}

const InferenceOutcome* InferencePanel::outcome() const { return m_results->outcome().get(); }

void InferencePanel::setSettingsShown(bool shown)
{
    m_form->setVisible(shown);
    m_settingsToggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    if (m_settingsToggle->isChecked() != shown) {
        const QSignalBlocker block(m_settingsToggle);
        m_settingsToggle->setChecked(shown);
    }
}

bool InferencePanel::settingsShown() const { return m_settingsToggle->isChecked(); }

int InferencePanel::currentGraph() const { return m_results->currentGraph(); }

void InferencePanel::showGraph(int index) { m_results->showGraph(index); }

void InferencePanel::setAttentionMode(int mode) { m_results->attention()->setMode(mode); }

void InferencePanel::pinConfig(int64_t config) { m_results->pinConfig(config); }

void InferencePanel::setNodeOverlay(int index) { m_results->attention()->setNodeOverlay(index); }

int InferencePanel::nodeOverlayChoices() const { return m_results->attention()->nodeOverlayChoices(); }

const NodeOverlay& InferencePanel::nodeOverlay() const { return m_results->attention()->nodeOverlay(); }

bool InferencePanel::nodeOverlayActive() const { return m_results->attention()->nodeOverlayActive(); }

void InferencePanel::selectConfigById(int64_t config) { m_results->selectConfig(config, false); }

RankScatterView* InferencePanel::scatter() const { return m_results->scatter(); }

TauStripView* InferencePanel::tauStrip() const { return m_results->tauStrip(); }

HeatmapView* InferencePanel::channelHeatmap() const { return m_results->attention()->channelHeatmap(); }

HeatmapView* InferencePanel::crossHeatmap() const { return m_results->attention()->crossHeatmap(); }

PredictionTableModel* InferencePanel::tableModel() const { return m_results->tableModel(); }

QTableView* InferencePanel::tableView() const { return m_results->tableView(); }

QTabWidget* InferencePanel::viewTabs() const { return m_results->viewTabs(); }

ExplainRequest InferencePanel::explainContext() const
{
    ExplainRequest r;
    r.batchConfigs = m_form->batchConfigs();
    const InferenceOutcome* shown = outcome();
    const int graph = currentGraph();
    if (shown && graph >= 0 && size_t(graph) < shown->graphs.size()) {
        const GraphInference& g = shown->graphs[size_t(graph)];
        r.weights = shown->members;
        const tgraph::GraphDocumentPtr& document = m_results->document();
        if (document && document->path == g.path)
            r.document = document;
        else
            r.file = g.path;
        if (g.kind == tgraph::GraphKind::Layout && g.configValues.ndim() == 3 && g.configValues.dim(0) >= 2) {
            r.configValues = g.configValues;
            r.configurableNodes = g.configurableNodes;
            r.configIds = g.configIds;
            r.runtimes = g.runtimes;
            r.runtimesSimulated = g.simulated;
            r.idsAreFileConfigs = !g.generated;
        }
        return r;
    }
    r.weights = m_form->weights();
    r.document = m_form->chosenDocument();
    return r;
}

bool InferencePanel::openStoredRun(const QString& projectPath, const QString& runId)
{
    try {
        QString runName;
        std::shared_ptr<const InferenceOutcome> stored = readStoredInference(projectPath, runId, &runName);
        m_results->showOutcome(std::move(stored), nullptr);
        m_banner->clearCondition(kNoResults);
        setSettingsShown(false);
        Q_EMIT statusMessage(tr("Opened the stored results of run %1").arg(runName));
        return true;
    } catch (const std::exception& e) {
        m_banner->addMessage(QString::fromStdString(e.what()));
        return false;
    }
}

void InferencePanel::chooseStoredRun()
{
    // Runs of the known projects: training runs offer their best ensemble / weights as the model,
    // inference runs their stored results.
    const StoredRunChoices choices = storedRunChoices(m_form->projects());
    for (const QString& problem : choices.problems)
        m_banner->addMessage(problem);
    QMenu menu(this);
    for (const auto& [projectPath, runs] : choices.projects) {
        QMenu* sub = menu.addMenu(QFileInfo(projectPath).fileName());
        for (const StoredRunChoice& run : runs)
            sub->addAction(run.label, this, [this, run] {
                if (run.results)
                    openStoredRun(run.project, run.runId);
                else
                    setModelFiles({ run.modelFile });
            });
    }
    if (menu.isEmpty()) {
        m_banner->showCondition(kNoProject, tr("No project is open: open a .tgproj file to use its runs"));
        return;
    }
    menu.exec(QCursor::pos());
}

bool InferencePanel::exportTopK(const QString& path, int k)
{
    if (!outcome() || currentGraph() < 0) {
        m_banner->showCondition(kNoResults, tr("Nothing to export: run inference first"));
        return false;
    }
    QString error;
    if (!writeTopKCsv(m_results->tableModel()->result(), path, k, &error)) {
        m_banner->addMessage(error);
        return false;
    }
    return true;
}

bool InferencePanel::exportKaggle(const QString& path, const QString& collectionId)
{
    if (!outcome()) {
        m_banner->showCondition(kNoResults, tr("Nothing to export: run inference first"));
        return false;
    }
    QString error;
    if (!writeKaggleCsv(*outcome(), path, collectionId, &error)) {
        m_banner->addMessage(error);
        return false;
    }
    return true;
}

void InferencePanel::askExportTopK(int k)
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export top-k"), QString(), tr("CSV (*.csv)"));
    if (!path.isEmpty())
        exportTopK(path, k);
}

void InferencePanel::askExportKaggle()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Kaggle CSV"), QString(), tr("CSV (*.csv)"));
    if (path.isEmpty() || !outcome())
        return;
    QString collection;
    if (kaggleNeedsCollection(*outcome())) {
        bool ok = false;
        collection = QInputDialog::getText(this, tr("Kaggle collection"),
            tr("Collection id of these graphs (e.g. layout:xla:default, tile:xla):"), QLineEdit::Normal,
            proposedKaggleCollection(*outcome()), &ok);
        if (!ok)
            return;
    }
    exportKaggle(path, collection);
}

} // namespace tgraph::studio
