// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/inferencepanel.h"

#include "app/studio/analysis/attentionheatmaps.h"
#include "app/studio/analysis/inferencerunner.h"
#include "app/studio/common/jobprogress.h"
#include "app/studio/common/studiolog.h"

#include "core/util/error.h"
#include "core/graph/featurenames.h"
#include "core/store/project.h"
#include "core/results/scores.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/analysis/heatmapview.h"
#include "widgets/analysis/predictiontablemodel.h"
#include "widgets/analysis/rankscatterview.h"
#include "widgets/analysis/taustripview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace {

QSpinBox* spinBox(int minimum, int maximum, int value, const QString& tip)
{
    auto* s = new QSpinBox;
    s->setRange(minimum, maximum);
    s->setValue(value);
    s->setToolTip(tip);
    return s;
}

} // namespace

InferencePanel::InferencePanel(QWidget* parent)
    : QWidget(parent)
    , m_runner(new InferenceRunner(this))
{
    setupUi();
    connect(m_runner, &InferenceRunner::started, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
        updateControls();
    });
    connect(m_runner, &InferenceRunner::progressChanged, this,
        [this](const QString& label, quint64 done, quint64 total) { showJobProgress(m_progress, label, done, total); });
    connect(m_runner, &InferenceRunner::finished, this, &InferencePanel::onFinished);
    connect(m_runner, &InferenceRunner::failed, this, [this](const QString& message) {
        m_progress->hide();
        m_banner->addMessage(message);
        updateControls();
        Q_EMIT finished();
    });
    connect(m_runner, &InferenceRunner::cancelled, this, [this] {
        m_progress->hide();
        Q_EMIT statusMessage(tr("Inference cancelled"));
        updateControls();
        Q_EMIT finished();
    });
}

InferencePanel::~InferencePanel() = default;

void InferencePanel::setupUi()
{
    auto* layout = new QVBoxLayout(this);
    m_banner = new ErrorBanner(this);
    layout->addWidget(m_banner);

    // ---- what to run ----
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    auto* modelRow = new QHBoxLayout;
    m_model = new QComboBox;
    m_model->setEditable(true);
    m_model->setInsertPolicy(QComboBox::InsertAtTop);
    m_model->setToolTip(tr("A weights .npz, a checkpoint, or an ensemble.json written by `tgraph train --folds`"));
    m_model->lineEdit()->setPlaceholderText(tr("weights .npz, checkpoint or ensemble.json"));
    auto* browse = new QPushButton(tr("Browse…"));
    auto* fromRun = new QPushButton(tr("From project run…"));
    modelRow->addWidget(m_model, 1);
    modelRow->addWidget(browse);
    modelRow->addWidget(fromRun);
    form->addRow(tr("Model:"), modelRow);
    m_members = new QListWidget;
    m_members->setMaximumHeight(70);
    m_members->setToolTip(tr("Ensemble members to average (all checked by default)"));
    form->addRow(tr("Members:"), m_members);

    auto* targetRow = new QHBoxLayout;
    m_target = new QComboBox;
    m_collection = new QLineEdit;
    m_collection->setPlaceholderText(tr("collection directory of .npz graphs"));
    auto* browseCollection = new QPushButton(tr("Directory…"));
    targetRow->addWidget(m_target, 1);
    targetRow->addWidget(m_collection, 1);
    targetRow->addWidget(browseCollection);
    form->addRow(tr("Graph:"), targetRow);

    auto* setRow = new QHBoxLayout;
    m_configSet = new QComboBox;
    m_configSet->addItem(tr("All configs of the file"), int(ConfigSetKind::All));
    m_configSet->addItem(tr("Sampled subset"), int(ConfigSetKind::Sample));
    m_configSet->addItem(tr("Generated candidates (HLO module, simulated)"), int(ConfigSetKind::Generate));
    m_count = spinBox(2, 1000000, 1000, tr("Configs to sample or candidates to generate"));
    m_seed = spinBox(0, INT_MAX, 1, tr("Seed of the sample / the candidate generator"));
    m_batch = spinBox(1, 100000, 128, tr("Configs per forward pass (numpy array_split chunks)"));
    m_tta = spinBox(0, 64, 0, tr("Test-time augmentation: permutations averaged (0 = off)"));
    setRow->addWidget(m_configSet, 1);
    setRow->addWidget(new QLabel(tr("count")));
    setRow->addWidget(m_count);
    setRow->addWidget(new QLabel(tr("seed")));
    setRow->addWidget(m_seed);
    setRow->addWidget(new QLabel(tr("configs/pass")));
    setRow->addWidget(m_batch);
    setRow->addWidget(new QLabel(tr("TTA")));
    setRow->addWidget(m_tta);
    form->addRow(tr("Configs:"), setRow);

    auto* runRow = new QHBoxLayout;
    m_store = new QComboBox;
    m_store->addItem(tr("Do not store"), QString());
    m_runButton = new QPushButton(tr("Run inference"));
    m_runButton->setDefault(true);
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_progress = new QProgressBar;
    m_progress->setTextVisible(true);
    m_progress->hide();
    auto* stored = new QPushButton(tr("Open stored…"));
    stored->setToolTip(tr("Show the results of an inference run stored in a project"));
    runRow->addWidget(new QLabel(tr("Store in:")));
    runRow->addWidget(m_store, 1);
    runRow->addWidget(stored);
    runRow->addWidget(m_runButton);
    runRow->addWidget(m_cancelButton);
    runRow->addWidget(m_progress, 1);
    form->addRow(QString(), runRow);
    layout->addLayout(form);

    // ---- results ----
    m_summary = new QLabel;
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    auto* splitter = new QSplitter(Qt::Horizontal);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto* choiceRow = new QHBoxLayout;
    m_graphChoice = new QComboBox;
    m_nodeChoice = new QComboBox;
    m_nodeChoice->setToolTip(tr("Show this configurable node's 18 layout values per config"));
    choiceRow->addWidget(new QLabel(tr("Result:")));
    choiceRow->addWidget(m_graphChoice, 1);
    choiceRow->addWidget(new QLabel(tr("Node:")));
    choiceRow->addWidget(m_nodeChoice, 1);
    leftLayout->addLayout(choiceRow);
    m_table = new PredictionTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_table);
    m_proxy->setSortRole(Qt::UserRole);
    m_tableView = new QTableView;
    m_tableView->setModel(m_proxy);
    m_tableView->setSortingEnabled(true);
    m_tableView->sortByColumn(PredictionTableModel::PredictedRank, Qt::AscendingOrder);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tableView->verticalHeader()->hide();
    m_tableView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    leftLayout->addWidget(m_tableView, 1);
    auto* exportRow = new QHBoxLayout;
    auto* topK = spinBox(1, 1000000, 10, tr("Rows to export"));
    auto* exportCsv = new QPushButton(tr("Export top-k CSV…"));
    auto* exportKaggleButton = new QPushButton(tr("Export Kaggle CSV…"));
    exportRow->addWidget(new QLabel(tr("k")));
    exportRow->addWidget(topK);
    exportRow->addWidget(exportCsv);
    exportRow->addWidget(exportKaggleButton);
    exportRow->addStretch(1);
    auto* explainButton = new QPushButton(tr("Explain…"));
    explainButton->setToolTip(tr("Why does the model rank the selected config where it does?"));
    explainButton->setMenu(new QMenu(explainButton));
    connect(explainButton->menu(), &QMenu::aboutToShow, this, [this, explainButton] {
        explainButton->menu()->clear();
        fillExplainMenu(explainButton->menu());
    });
    exportRow->addWidget(explainButton);
    m_tableView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tableView, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        fillExplainMenu(&menu);
        menu.exec(m_tableView->viewport()->mapToGlobal(pos));
    });
    leftLayout->addLayout(exportRow);
    splitter->addWidget(left);

    m_viewTabs = new QTabWidget;
    m_scatter = new RankScatterView;
    m_tauStrip = new TauStripView;
    auto* channelPage = new QWidget;
    auto* channelLayout = new QVBoxLayout(channelPage);
    auto* channelControls = new QHBoxLayout;
    m_attentionMode = new QComboBox;
    m_attentionMode->addItems({ tr("Selected config"), tr("Mean over configs"), tr("Fastest − slowest (diverging)"),
        tr("Selected − pinned (diverging)") });
    auto* pin = new QPushButton(tr("Pin selected"));
    pin->setToolTip(tr("Pin the selected config as B of \"Selected − pinned\": then select any config A"));
    connect(pin, &QPushButton::clicked, this, [this] { pinConfig(m_selectedConfig); });
    m_attentionMember = new QComboBox;
    channelControls->addWidget(new QLabel(tr("Show:")));
    channelControls->addWidget(m_attentionMode);
    channelControls->addWidget(new QLabel(tr("Member:")));
    channelControls->addWidget(m_attentionMember);
    channelControls->addWidget(pin);
    m_nodeOverlayChoice = new QComboBox;
    m_nodeOverlayChoice->setToolTip(tr("Show the attention of every node on the graph view: the same quantity as "
                                       "the heatmap (selected config, mean or difference), averaged over channels"));
    m_nodeOverlayChoice->addItem(tr("none"), -1);
    channelControls->addWidget(new QLabel(tr("Graph overlay:")));
    channelControls->addWidget(m_nodeOverlayChoice);
    channelControls->addStretch(1);
    channelLayout->addLayout(channelControls);
    m_channelMap = new HeatmapView;
    channelLayout->addWidget(m_channelMap, 1);
    auto* crossPage = new QWidget;
    auto* crossLayout = new QVBoxLayout(crossPage);
    auto* crossControls = new QHBoxLayout;
    m_crossLayer = new QComboBox;
    crossControls->addWidget(new QLabel(tr("Layer:")));
    crossControls->addWidget(m_crossLayer);
    crossControls->addWidget(new QLabel(tr("columns: configs by true runtime, fastest left")));
    crossControls->addStretch(1);
    crossLayout->addLayout(crossControls);
    m_crossMap = new HeatmapView;
    crossLayout->addWidget(m_crossMap, 1);
    m_viewTabs->addTab(m_scatter, tr("Rank scatter"));
    m_viewTabs->addTab(m_tauStrip, tr("τ per graph"));
    m_viewTabs->addTab(channelPage, tr("Channel attention"));
    m_viewTabs->addTab(crossPage, tr("Cross-config attention"));
    splitter->addWidget(m_viewTabs);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);

    // ---- wiring ----
    connect(browse, &QPushButton::clicked, this, &InferencePanel::browseModel);
    connect(fromRun, &QPushButton::clicked, this, &InferencePanel::chooseStoredRun);
    // The same chooser: a run of kind "inference" opens its stored results.
    connect(stored, &QPushButton::clicked, this, &InferencePanel::chooseStoredRun);
    connect(browseCollection, &QPushButton::clicked, this, &InferencePanel::browseCollection);
    connect(m_model, &QComboBox::currentTextChanged, this, &InferencePanel::updateMembers);
    connect(m_target, &QComboBox::currentIndexChanged, this, &InferencePanel::updateControls);
    connect(m_configSet, &QComboBox::currentIndexChanged, this, &InferencePanel::updateControls);
    connect(m_runButton, &QPushButton::clicked, this, &InferencePanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &InferencePanel::cancel);
    connect(m_graphChoice, &QComboBox::activated, this, [this](int index) { showGraph(index); });
    connect(m_nodeChoice, &QComboBox::currentIndexChanged, this, &InferencePanel::updateExtraColumns);
    connect(m_attentionMode, &QComboBox::currentIndexChanged, this, &InferencePanel::updateHeatmaps);
    connect(m_attentionMember, &QComboBox::currentIndexChanged, this, &InferencePanel::updateHeatmaps);
    connect(m_crossLayer, &QComboBox::currentIndexChanged, this, &InferencePanel::updateHeatmaps);
    connect(m_nodeOverlayChoice, &QComboBox::currentIndexChanged, this, &InferencePanel::updateHeatmaps);
    connect(m_scatter, &RankScatterView::configSelected, this, [this](qint64 config) { selectConfig(config, false); });
    connect(m_tauStrip, &TauStripView::graphActivated, this, [this](int entry) {
        showGraph(entry);
        m_viewTabs->setCurrentWidget(m_scatter);
        // The graph itself opens (or comes to front) in the graph view as well.
        if (m_outcome && entry >= 0 && size_t(entry) < m_outcome->graphs.size())
            Q_EMIT openGraphRequested(QString::fromStdString(m_outcome->graphs[size_t(entry)].path));
    });
    connect(m_tableView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            if (current.isValid())
                selectConfig(m_table->configAt(m_proxy->mapToSource(current).row()), true);
        });
    connect(exportCsv, &QPushButton::clicked, this, [this, topK] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export top-k"), QString(), tr("CSV (*.csv)"));
        if (!path.isEmpty())
            exportTopK(path, topK->value());
    });
    connect(exportKaggleButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Kaggle CSV"), QString(), tr("CSV (*.csv)"));
        if (path.isEmpty() || !m_outcome)
            return;
        QString collection;
        if (std::any_of(m_outcome->graphs.begin(), m_outcome->graphs.end(),
                [](const GraphInference& g) { return g.collection.empty(); })) {
            bool ok = false;
            collection = QInputDialog::getText(this, tr("Kaggle collection"),
                tr("Collection id of these graphs (e.g. layout:xla:default, tile:xla):"), QLineEdit::Normal,
                m_outcome->graphs.front().kind == tgraph::GraphKind::Tile ? QStringLiteral("tile:xla")
                                                                          : QStringLiteral("layout:xla:default"),
                &ok);
            if (!ok)
                return;
        }
        exportKaggle(path, collection);
    });
    updateControls();
}

void InferencePanel::setDocuments(
    const std::vector<tgraph::GraphDocumentPtr>& documents, const tgraph::GraphDocumentPtr& current)
{
    m_documents = documents;
    const QSignalBlocker block(m_target);
    m_target->clear();
    int currentIndex = -1;
    for (size_t i = 0; i < documents.size(); ++i) {
        const auto& d = documents[i];
        m_target->addItem(
            tr("%1 (%2 configs)").arg(QString::fromStdString(d->title), Formatting::count(d->configCount())));
        if (d == current)
            currentIndex = int(i);
    }
    m_target->addItem(tr("Collection directory"));
    m_target->setCurrentIndex(currentIndex >= 0 ? currentIndex : (documents.empty() ? 0 : 0));
    updateControls();
}

void InferencePanel::setProjects(const QStringList& projectPaths)
{
    const QString current = m_store->currentData().toString();
    const QSignalBlocker block(m_store);
    m_store->clear();
    m_store->addItem(tr("Do not store"), QString());
    for (const QString& p : projectPaths)
        m_store->addItem(QFileInfo(p).fileName(), p);
    const int index = m_store->findData(current);
    m_store->setCurrentIndex(index >= 0 ? index : (projectPaths.isEmpty() ? 0 : 1));
}

void InferencePanel::setStoreInProject(const QString& projectPath)
{
    if (projectPath.isEmpty()) {
        m_store->setCurrentIndex(0);
        return;
    }
    int index = m_store->findData(projectPath);
    if (index < 0) {
        m_store->addItem(QFileInfo(projectPath).fileName(), projectPath);
        index = m_store->count() - 1;
    }
    m_store->setCurrentIndex(index);
}

void InferencePanel::setModelFiles(const QStringList& files)
{
    m_model->setCurrentText(files.join(QLatin1Char(';')));
    updateMembers();
}

void InferencePanel::setCollection(const QString& directory)
{
    m_collection->setText(directory);
    m_target->setCurrentIndex(m_target->count() - 1);
}

void InferencePanel::setConfigSet(ConfigSetKind kind, int64_t count)
{
    m_configSet->setCurrentIndex(m_configSet->findData(int(kind)));
    m_count->setValue(int(std::min<int64_t>(count, m_count->maximum())));
}

void InferencePanel::setAttentionMode(int mode) { m_attentionMode->setCurrentIndex(mode); }

void InferencePanel::pinConfig(int64_t config)
{
    m_pinnedConfig = config;
    updateHeatmaps();
}

void InferencePanel::browseModel()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Choose a model"), QString(), tr("Models (*.npz *.pt *.ckpt *.json);;All files (*)"));
    if (!files.isEmpty())
        setModelFiles(files);
}

void InferencePanel::browseCollection()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose a collection directory"));
    if (!dir.isEmpty())
        setCollection(dir);
}

void InferencePanel::chooseStoredRun()
{
    // Runs of the known projects: training runs offer their best ensemble / weights as the model,
    // inference runs their stored results.
    QMenu menu(this);
    for (int i = 1; i < m_store->count(); ++i) {
        const QString projectPath = m_store->itemData(i).toString();
        try {
            const tgraph::Project project
                = tgraph::Project::open(projectPath.toStdString(), tgraph::Project::Access::Read);
            QMenu* sub = menu.addMenu(QFileInfo(projectPath).fileName());
            for (const tgraph::RunRecord& r : project.runs()) {
                if (!r.parentRun.empty())
                    continue;
                const auto params = project.params(r.id);
                const bool inference = params.count("kind") && params.at("kind") == "inference";
                std::string modelFile;
                if (!inference) {
                    for (const auto& a : project.artifacts(r.id))
                        if (a.kind == "ensemble"
                            || (modelFile.empty() && (a.kind == "weights" || a.kind == "checkpoint")))
                            modelFile = project.absolutePath(a.path);
                    if (modelFile.empty() && !r.checkpoint.empty())
                        modelFile = project.absolutePath(r.checkpoint);
                    if (modelFile.empty())
                        continue;
                }
                const QString label
                    = QStringLiteral("%1 %2 — %3")
                          .arg(inference ? tr("[results]") : tr("[model]"), QString::fromStdString(r.name),
                              QString::fromLatin1(tgraph::runStatusName(r.status)));
                const QString runId = QString::fromStdString(r.id);
                const QString file = QString::fromStdString(modelFile);
                sub->addAction(label, this, [this, inference, projectPath, runId, file] {
                    if (inference)
                        openStoredRun(projectPath, runId);
                    else
                        setModelFiles({ file });
                });
            }
        } catch (const std::exception& e) {
            m_banner->addMessage(QString::fromStdString(e.what()));
        }
    }
    if (menu.isEmpty()) {
        m_banner->addMessage(
            tr("No project is open: open a .tgproj file to use its runs"), ErrorBanner::Severity::Warning);
        return;
    }
    menu.exec(QCursor::pos());
}

void InferencePanel::updateMembers()
{
    m_members->clear();
    const QStringList entries = m_model->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts);
    if (entries.isEmpty())
        return;
    std::vector<std::string> args;
    for (const QString& e : entries)
        args.push_back(e.trimmed().toStdString());
    try {
        for (const std::string& f : expandModelFiles(args)) {
            auto* item = new QListWidgetItem(QFileInfo(QString::fromStdString(f)).fileName(), m_members);
            item->setToolTip(QString::fromStdString(f));
            item->setCheckState(Qt::Checked);
        }
    } catch (const std::exception& e) {
        // Shown when the user runs; the list stays empty meanwhile.
        m_members->addItem(QString::fromStdString(e.what()));
    }
    updateControls();
}

void InferencePanel::fillExplainMenu(QMenu* menu)
{
    const QString selected = m_selectedConfig >= 0 ? QString::number(m_selectedConfig) : QString();
    const auto add = [&](const QString& text, const QString& a, const QString& b) {
        QAction* action = menu->addAction(text);
        action->setEnabled(!a.isEmpty() && !b.isEmpty());
        connect(action, &QAction::triggered, this, [this, a, b] { Q_EMIT explainRequested(a, b); });
    };
    const QString id = selected.isEmpty() ? tr("the selected config") : tr("#%1").arg(selected);
    add(tr("Why is %1 ranked here against the compiler default?").arg(id), selected, QStringLiteral("default"));
    add(tr("Why is %1 ranked here against the predicted fastest?").arg(id), selected, QStringLiteral("fastest"));
    add(tr("Why is %1 ranked here against the predicted slowest?").arg(id), selected, QStringLiteral("slowest"));
    menu->addSeparator();
    add(tr("Why is the predicted fastest faster than the default?"), QStringLiteral("fastest"),
        QStringLiteral("default"));
    add(tr("Why is the predicted fastest faster than the predicted slowest?"), QStringLiteral("fastest"),
        QStringLiteral("slowest"));
}

ExplainRequest InferencePanel::explainContext() const
{
    ExplainRequest r;
    r.batchConfigs = m_batch->value();
    if (m_outcome && m_graph >= 0 && size_t(m_graph) < m_outcome->graphs.size()) {
        const GraphInference& g = m_outcome->graphs[size_t(m_graph)];
        r.weights = m_outcome->members;
        if (m_outcomeDocument && m_outcomeDocument->path == g.path)
            r.document = m_outcomeDocument;
        else
            r.file = g.path;
        if (g.kind == tgraph::GraphKind::Layout && g.configValues.ndim() == 3 && g.configValues.dim(0) >= 2) {
            r.configValues = g.configValues;
            r.configurableNodes = g.configurableNodes;
            r.configIds = g.configIds;
            r.runtimes = g.runtimes;
            r.idsAreFileConfigs = !g.generated;
        }
        return r;
    }
    for (const QString& e : m_model->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        r.weights.push_back(e.trimmed().toStdString());
    r.document = chosenDocument();
    return r;
}

tgraph::GraphDocumentPtr InferencePanel::chosenDocument() const
{
    const int index = m_target->currentIndex();
    return index >= 0 && size_t(index) < m_documents.size() ? m_documents[size_t(index)] : nullptr;
}

void InferencePanel::updateControls()
{
    const bool busy = isRunning();
    const bool collection = !chosenDocument();
    m_collection->setVisible(collection);
    const auto kind = ConfigSetKind(m_configSet->currentData().toInt());
    m_count->setEnabled(!collection && kind != ConfigSetKind::All);
    m_configSet->setEnabled(!collection);
    m_runButton->setEnabled(!busy);
    m_cancelButton->setEnabled(busy);
}

bool InferencePanel::isRunning() const { return m_runner->isBusy(); }

void InferencePanel::run()
{
    m_banner->dismiss();
    InferenceRequest request;
    for (const QString& e : m_model->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        request.weights.push_back(e.trimmed().toStdString());
    if (request.weights.empty()) {
        m_banner->addMessage(tr("Choose a model first: a weights .npz, a checkpoint or an ensemble.json"));
        return;
    }
    for (int i = 0; i < m_members->count(); ++i)
        if (m_members->item(i)->checkState() == Qt::Checked)
            request.members.push_back(i);
    if (m_members->count() > 0 && request.members.empty()) {
        m_banner->addMessage(tr("Check at least one ensemble member"));
        return;
    }
    if (int(request.members.size()) == m_members->count())
        request.members.clear();
    request.document = chosenDocument();
    if (!request.document) {
        if (m_collection->text().isEmpty()) {
            m_banner->addMessage(tr("Choose a graph or a collection directory"));
            return;
        }
        request.files.push_back(m_collection->text().toStdString());
    }
    request.configSet = request.document ? ConfigSetKind(m_configSet->currentData().toInt()) : ConfigSetKind::All;
    request.sampleCount = m_count->value();
    request.seed = uint64_t(m_seed->value());
    request.options.batchConfigs = m_batch->value();
    request.options.tta = m_tta->value();
    request.options.attention = bool(request.document);
    request.project = m_store->currentData().toString().toStdString();
    m_outcomeDocument = request.document;
    qCDebug(lcStudio) << "inference on"
                      << (request.document ? QString::fromStdString(request.document->path) : m_collection->text());
    m_runner->start(std::move(request));
}

void InferencePanel::cancel() { m_runner->cancel(); }

void InferencePanel::onFinished(const std::shared_ptr<const InferenceOutcome>& outcome)
{
    m_progress->hide();
    for (const std::string& p : outcome->problems)
        m_banner->addMessage(QString::fromStdString(p), ErrorBanner::Severity::Warning);
    showOutcome(outcome);
    QString message
        = tr("Scored %n graph(s) in %1 s", nullptr, int(outcome->graphs.size())).arg(outcome->seconds, 0, 'f', 2);
    if (!outcome->runId.empty())
        message += tr("; stored as run %1 in %2")
                       .arg(QString::fromStdString(outcome->runId.substr(0, 8)),
                           QFileInfo(QString::fromStdString(outcome->project)).fileName());
    Q_EMIT statusMessage(message);
    updateControls();
    Q_EMIT finished();
}

void InferencePanel::showOutcome(std::shared_ptr<const InferenceOutcome> outcome)
{
    m_outcome = std::move(outcome);
    {
        const QSignalBlocker block(m_graphChoice);
        m_graphChoice->clear();
        for (const GraphInference& g : m_outcome->graphs)
            m_graphChoice->addItem(QString::fromStdString(g.name));
    }
    std::vector<GraphTau> taus;
    double tauSum = 0;
    int tauCount = 0;
    for (const GraphInference& g : m_outcome->graphs) {
        taus.push_back({ QString::fromStdString(g.name), QString::fromStdString(g.path),
            QString::fromStdString(g.collection), g.kendallTau });
        if (!std::isnan(g.kendallTau)) {
            tauSum += g.kendallTau;
            ++tauCount;
        }
    }
    m_tauStrip->setEntries(std::move(taus));
    QString summary = tr("%n graph(s)", nullptr, int(m_outcome->graphs.size()));
    if (tauCount)
        summary += tr(", mean τ %1 over %2 with runtimes").arg(tauSum / tauCount, 0, 'f', 3).arg(tauCount);
    summary += tr("; model: %1")
                   .arg(m_outcome->members.size() == 1
                           ? QFileInfo(QString::fromStdString(m_outcome->members.front())).fileName()
                           : tr("ensemble of %1").arg(m_outcome->members.size()));
    m_summary->setText(summary);
    showGraph(m_outcome->graphs.empty() ? -1 : 0);
    if (m_outcome->graphs.size() > 1)
        m_viewTabs->setCurrentWidget(m_tauStrip);
}

void InferencePanel::showGraph(int index)
{
    if (!m_outcome || index < 0 || size_t(index) >= m_outcome->graphs.size()) {
        m_graph = -1;
        return;
    }
    m_graph = index;
    m_graphChoice->setCurrentIndex(index);
    const GraphInference& g = m_outcome->graphs[size_t(index)];
    RankScatterData data = makeRankScatterData(QString::fromStdString(g.name), g.scores, g.runtimes, g.configIds);
    data.simulated = g.simulated;
    m_scatter->setData(data);
    m_table->setResult(data);
    m_selectedConfig = -1;
    m_pinnedConfig = -1;
    {
        const QSignalBlocker block(m_nodeChoice);
        m_nodeChoice->clear();
        if (g.kind == tgraph::GraphKind::Tile && g.configValues.size() > 0) {
            m_nodeChoice->addItem(tr("tile config (24 values)"), -1);
        } else {
            m_nodeChoice->addItem(tr("(none)"), -2);
            const tgraph::GraphDocument* doc
                = m_outcomeDocument && m_outcomeDocument->path == g.path ? m_outcomeDocument.get() : nullptr;
            for (size_t k = 0; k < g.configurableNodes.size(); ++k) {
                const int64_t node = g.configurableNodes[k];
                const QString name = doc ? QStringLiteral("%1 (%2)").arg(QString::fromStdString(doc->nodeName(node)),
                                         QString::fromStdString(doc->opcodeName(node)))
                                         : tr("node %1").arg(node);
                m_nodeChoice->addItem(name, int(k));
            }
        }
    }
    updateExtraColumns();
    {
        const QSignalBlocker block(m_attentionMember);
        m_attentionMember->clear();
        for (size_t m = 0; m < g.attention.size(); ++m)
            m_attentionMember->addItem(m < m_outcome->members.size()
                    ? QFileInfo(QString::fromStdString(m_outcome->members[m])).fileName()
                    : tr("member %1").arg(m + 1));
    }
    {
        const QSignalBlocker block(m_crossLayer);
        m_crossLayer->clear();
        if (!g.attention.empty())
            for (const auto& l : g.attention.front().layers)
                if (!l.cross.empty())
                    m_crossLayer->addItem(attentionLayerLabel(l.layer), int(&l - g.attention.front().layers.data()));
    }
    {
        // Choices: data = quantity * 1000 + layer + 1 (layer 0 = mean of layers); kept by data.
        const QSignalBlocker block(m_nodeOverlayChoice);
        const int kept = m_nodeOverlayChoice->currentData().toInt();
        m_nodeOverlayChoice->clear();
        m_nodeOverlayChoice->addItem(tr("none"), -1);
        if (!g.attention.empty() && !g.attention.front().layers.empty()
            && g.attention.front().layers.front().hasNodeMaps()) {
            const auto& layers = g.attention.front().layers;
            for (const int quantity : { 0, 1 }) {
                const bool has = quantity == 0 || !layers.front().nodeCross.empty();
                if (!has)
                    continue;
                const QString what = quantity == 0 ? tr("gate") : tr("cross weight");
                m_nodeOverlayChoice->addItem(tr("%1, mean of layers").arg(what), quantity * 1000);
                for (size_t l = 0; l < layers.size(); ++l)
                    m_nodeOverlayChoice->addItem(
                        QStringLiteral("%1, %2").arg(what, attentionLayerLabel(layers[l].layer)),
                        quantity * 1000 + int(l) + 1);
            }
        } else if (!g.attention.empty()) {
            m_nodeOverlayChoice->addItem(tr("(per-node values not kept: too many configs × nodes)"), -1);
        }
        m_nodeOverlayChoice->setCurrentIndex(std::max(0, m_nodeOverlayChoice->findData(kept)));
    }
    updateHeatmaps();
    if (g.configIds.size() > 0)
        selectConfig(data.configIds[size_t(data.predictedOrder.front())], false);
}

void InferencePanel::updateExtraColumns()
{
    if (!m_outcome || m_graph < 0)
        return;
    const GraphInference& g = m_outcome->graphs[size_t(m_graph)];
    const int choice = m_nodeChoice->currentData().toInt();
    const int64_t rows = int64_t(g.scores.size());
    QStringList names;
    std::vector<float> values;
    if (choice == -1 && g.configValues.size() == rows * 24) {
        for (int c = 0; c < 24; ++c)
            names << tr("tile %1").arg(c);
        values.assign(g.configValues.data(), g.configValues.data() + rows * 24);
    } else if (choice >= 0 && g.configValues.ndim() == 3) {
        const int64_t nc = g.configValues.dim(1);
        for (int c = 0; c < 18; ++c)
            names << QString::fromStdString(tgraph::layoutConfigFeatureName(c));
        values.resize(size_t(rows * 18));
        for (int64_t r = 0; r < rows; ++r)
            std::copy_n(g.configValues.data() + (r * nc + choice) * 18, 18, values.begin() + r * 18);
    }
    m_table->setExtraColumns(names, std::move(values));
}

void InferencePanel::updateHeatmaps()
{
    if (!m_outcome || m_graph < 0)
        return;
    const GraphInference& g = m_outcome->graphs[size_t(m_graph)];
    const int member = std::max(0, m_attentionMember->currentIndex());
    if (g.attention.empty() || size_t(member) >= g.attention.size()) {
        HeatmapData empty;
        empty.title = tr("No attention maps for this result (collections and stored results keep scores only)");
        m_channelMap->setData(empty);
        m_crossMap->setData(empty);
        updateNodeOverlay(nullptr, -1, -1, {});
        return;
    }
    const auto& maps = g.attention[size_t(member)];
    // The shown result's rows (the table holds them): fastest first by true runtime, or by
    // predicted score without runtimes.
    const RankScatterData& rows = m_table->result();
    const std::vector<int64_t>& fastestFirst = rows.hasRuntimes() ? rows.trueOrder : rows.predictedOrder;
    const auto rowOfConfig = [&rows](int64_t config) { return rows.rowOfConfig(config); };
    switch (m_attentionMode->currentIndex()) {
    case 0: {
        const int64_t row = std::max<int64_t>(0, rowOfConfig(m_selectedConfig));
        HeatmapData d = channelGateHeatmap(maps, row);
        d.title = tr("Channel gates, config %1").arg(g.configIds[size_t(row)]);
        m_channelMap->setData(d);
        updateNodeOverlay(&maps, row, -1, tr("config %1").arg(g.configIds[size_t(row)]));
        break;
    }
    case 1:
        m_channelMap->setData(channelGateHeatmap(maps, -1));
        updateNodeOverlay(&maps, -1, -1, tr("mean over configs"));
        break;
    case 3: {
        const int64_t a = std::max<int64_t>(0, rowOfConfig(m_selectedConfig));
        const int64_t b = rowOfConfig(m_pinnedConfig);
        if (b < 0) {
            HeatmapData none;
            none.title = tr("Pin a config first (select it, then \"Pin selected\")");
            m_channelMap->setData(none);
            updateNodeOverlay(nullptr, -1, -1, {});
            break;
        }
        HeatmapData d = channelGateDifference(maps, a, b);
        d.title = tr("Channel gates, config %1 − config %2 (pinned)").arg(g.configIds[size_t(a)]).arg(m_pinnedConfig);
        m_channelMap->setData(d);
        updateNodeOverlay(&maps, a, b, tr("config %1 − config %2").arg(g.configIds[size_t(a)]).arg(m_pinnedConfig));
        break;
    }
    default: {
        const int64_t a = fastestFirst.front(), b = fastestFirst.back();
        HeatmapData d = channelGateDifference(maps, a, b);
        d.title = tr("Channel gates, config %1 (%2 fastest) − config %3 (slowest)")
                      .arg(g.configIds[size_t(a)])
                      .arg(g.hasRuntimes() ? tr("truly") : tr("predicted"))
                      .arg(g.configIds[size_t(b)]);
        m_channelMap->setData(d);
        updateNodeOverlay(&maps, a, b,
            tr("config %1 (fastest) − config %2 (slowest)").arg(g.configIds[size_t(a)]).arg(g.configIds[size_t(b)]));
    }
    }
    QStringList names;
    for (const int64_t r : fastestFirst)
        names << tr("config %1").arg(g.configIds[size_t(r)]);
    const int layer = m_crossLayer->currentData().isValid() ? m_crossLayer->currentData().toInt() : -1;
    HeatmapData cross = layer >= 0 ? crossConfigHeatmap(maps, size_t(layer), fastestFirst, names) : HeatmapData {};
    if (cross.rows() == 0)
        cross.title = tr("This model has no cross-config attention");
    else if (!g.hasRuntimes())
        cross.columnLabel = tr("config (sorted by predicted score: no runtimes)");
    m_crossMap->setData(cross);
}

int InferencePanel::nodeOverlayChoices() const { return m_nodeOverlayChoice->count(); }

void InferencePanel::setNodeOverlay(int index) { m_nodeOverlayChoice->setCurrentIndex(index); }

bool InferencePanel::nodeOverlayActive() const { return m_nodeOverlayChoice->currentData().toInt() >= 0; }

void InferencePanel::updateNodeOverlay(
    const tgraph::model::AttentionMaps* maps, int64_t a, int64_t b, const QString& rows)
{
    const bool wasShown = !m_nodeOverlay.isEmpty();
    m_nodeOverlay = {};
    const int choice = m_nodeOverlayChoice->currentData().toInt();
    if (maps && choice >= 0 && m_outcome && m_graph >= 0) {
        const GraphInference& g = m_outcome->graphs[size_t(m_graph)];
        const auto quantity = choice >= 1000 ? NodeAttention::Cross : NodeAttention::Gate;
        m_nodeOverlay
            = nodeAttentionOverlay(*maps, quantity, choice % 1000 - 1, a, b, g.modelNodeIds, g.nodesBeforePruning);
        if (!m_nodeOverlay.isEmpty())
            m_nodeOverlay.name = QStringLiteral("%1: %2").arg(m_nodeOverlayChoice->currentText(), rows);
    }
    if ((wasShown || !m_nodeOverlay.isEmpty()) && m_outcome && m_graph >= 0)
        Q_EMIT nodeOverlayChanged(QString::fromStdString(m_outcome->graphs[size_t(m_graph)].path));
}

void InferencePanel::selectConfig(int64_t config, bool fromTable)
{
    if (!m_outcome || m_graph < 0 || config < 0)
        return;
    const bool changed = config != m_selectedConfig;
    m_selectedConfig = config;
    m_scatter->selectConfig(config);
    if (!fromTable) {
        const int row = m_table->rowOfConfig(config);
        if (row >= 0) {
            const QModelIndex index = m_proxy->mapFromSource(m_table->index(row, 0));
            const QSignalBlocker block(m_tableView->selectionModel());
            m_tableView->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_tableView->scrollTo(index);
        }
    }
    if (changed) {
        if (m_attentionMode->currentIndex() == 0 || m_attentionMode->currentIndex() == 3)
            updateHeatmaps();
        Q_EMIT configSelected(QString::fromStdString(m_outcome->graphs[size_t(m_graph)].path), config);
    }
}

bool InferencePanel::openStoredRun(const QString& projectPath, const QString& runId)
{
    try {
        const tgraph::Project project = tgraph::Project::open(projectPath.toStdString(), tgraph::Project::Access::Read);
        const auto run = project.findRun(runId.toStdString());
        if (!run)
            throw tgraph::InputError(projectPath.toStdString(), "runs", "no run " + runId.toStdString());
        auto outcome = std::make_shared<InferenceOutcome>();
        outcome->project = projectPath.toStdString();
        outcome->runId = run->id;
        const auto params = project.params(run->id);
        if (const auto it = params.find("weights"); it != params.end())
            outcome->members.push_back(it->second);
        for (const std::string& graph : project.predictedGraphs(run->id, 0)) {
            GraphInference g;
            g.path = project.absolutePath(graph);
            g.name = QFileInfo(QString::fromStdString(graph)).completeBaseName().toStdString();
            g.collection = tgraph::model::collectionIdFromPath(g.path);
            bool measured = false;
            for (const tgraph::PredictionRecord& p : project.predictions(run->id, 0, graph)) {
                g.configIds.push_back(p.config);
                g.scores.push_back(p.score);
                g.runtimes.push_back(double(p.runtimeNs));
                measured = measured || p.runtimeNs != 0;
            }
            if (!measured)
                g.runtimes.clear();
            g.simulated = params.count("config_set") && params.at("config_set") == "generated";
            g.kendallTau = g.opa = g.top5Slowdown = std::nan("");
            for (const tgraph::GraphMetricRecord& m : project.graphMetrics(run->id, 0))
                if (m.graph == graph) {
                    g.kendallTau = m.kendallTau;
                    g.opa = m.opa;
                    g.top5Slowdown = m.top5Slowdown;
                }
            outcome->graphs.push_back(std::move(g));
        }
        if (outcome->graphs.empty())
            throw tgraph::InputError(projectPath.toStdString(), "run " + run->name, "has no stored predictions");
        m_outcomeDocument.reset();
        showOutcome(outcome);
        Q_EMIT statusMessage(tr("Opened the stored results of run %1").arg(QString::fromStdString(run->name)));
        return true;
    } catch (const std::exception& e) {
        m_banner->addMessage(QString::fromStdString(e.what()));
        return false;
    }
}

bool InferencePanel::exportTopK(const QString& path, int k)
{
    if (!m_outcome || m_graph < 0) {
        m_banner->addMessage(tr("Nothing to export: run inference first"));
        return false;
    }
    const RankScatterData& d = m_table->result();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        m_banner->addMessage(tr("%1: cannot write: %2").arg(path, file.errorString()));
        return false;
    }
    QByteArray out = "graph,rank,config,score,runtime_ns\n";
    for (int64_t r = 0; r < std::min<int64_t>(k, d.size()); ++r) {
        const auto row = size_t(d.predictedOrder[size_t(r)]);
        out += QStringLiteral("%1,%2,%3,%4,%5\n")
                   .arg(d.graph)
                   .arg(r + 1)
                   .arg(d.configIds[row])
                   .arg(d.scores[row], 0, 'g', 9)
                   .arg(d.hasRuntimes() ? qint64(d.runtimes[row]) : 0)
                   .toUtf8();
    }
    file.write(out);
    if (!file.commit()) {
        m_banner->addMessage(tr("%1: cannot write: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

bool InferencePanel::exportKaggle(const QString& path, const QString& collectionId)
{
    if (!m_outcome) {
        m_banner->addMessage(tr("Nothing to export: run inference first"));
        return false;
    }
    try {
        tgraph::model::ScoresWriter writer(
            path.toStdString(), tgraph::model::ScoresWriter::Format::Kaggle, collectionId.toStdString());
        for (const GraphInference& g : m_outcome->graphs) {
            tgraph::model::GraphScores s;
            s.file = g.path;
            s.name = g.name;
            s.kind = g.kind;
            s.scores.assign(g.scores.begin(), g.scores.end());
            // The Kaggle ranking lists config indices of the file: map rows to their config ids.
            for (const int64_t row : tgraph::model::rankingOf(s.scores))
                s.ranking.push_back(g.configIds[size_t(row)]);
            writer.add(s);
        }
        writer.commit();
        return true;
    } catch (const std::exception& e) {
        m_banner->addMessage(QString::fromStdString(e.what()));
        return false;
    }
}
