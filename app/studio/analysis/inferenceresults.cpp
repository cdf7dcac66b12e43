// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/inferenceresults.h"

#include "app/studio/analysis/attentionviews.h"

#include "core/graph/featurenames.h"
#include "core/metrics/averages.h"
#include "widgets/analysis/predictiontablemodel.h"
#include "widgets/analysis/rankscatterview.h"
#include "widgets/analysis/taustripview.h"
#include "widgets/common/flowlayout.h"
#include "widgets/common/formatting.h"

#include <QComboBox>
#include <QFileInfo>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tgraph::studio {

using namespace tgraph::widgets;

InferenceResults::InferenceResults(QWidget* parent)
    : QWidget(parent)
    , m_attention(new AttentionViews(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel;
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_summary->hide(); // until there is a result to summarise
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
    // The export and explain buttons flow into more rows on a narrow page (docs/studio.md §9).
    auto* exportBar = new QWidget;
    auto* exportRow = new FlowLayout(exportBar, 6, 3);
    exportRow->setContentsMargins(0, 0, 0, 0);
    auto* topK = new QSpinBox;
    topK->setRange(1, 1000000);
    topK->setValue(10);
    topK->setToolTip(tr("Rows to export"));
    auto* exportCsv = new QPushButton(tr("Export top-k CSV…"));
    auto* exportKaggle = new QPushButton(tr("Export Kaggle CSV…"));
    exportRow->addWidget(new QLabel(tr("k")));
    exportRow->addWidget(topK);
    exportRow->addWidget(exportCsv);
    exportRow->addWidget(exportKaggle);
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
    leftLayout->addWidget(exportBar);
    splitter->addWidget(left);

    m_viewTabs = new QTabWidget;
    m_scatter = new RankScatterView;
    m_tauStrip = new TauStripView;
    m_viewTabs->addTab(m_scatter, tr("Rank scatter"));
    m_viewTabs->addTab(m_tauStrip, tr("τ per graph"));
    m_viewTabs->addTab(m_attention->channelPage(), tr("Channel attention"));
    m_viewTabs->addTab(m_attention->crossPage(), tr("Cross-config attention"));
    splitter->addWidget(m_viewTabs);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);

    connect(m_graphChoice, &QComboBox::activated, this, [this](int index) { showGraph(index); });
    connect(m_nodeChoice, &QComboBox::currentIndexChanged, this, &InferenceResults::updateExtraColumns);
    connect(m_attention, &AttentionViews::choicesChanged, this, &InferenceResults::updateAttention);
    connect(m_attention, &AttentionViews::pinRequested, this, [this] { pinConfig(m_selectedConfig); });
    connect(m_attention, &AttentionViews::nodeOverlayChanged, this, [this] {
        if (m_outcome && m_graph >= 0)
            Q_EMIT nodeOverlayChanged(QString::fromStdString(m_outcome->graphs[size_t(m_graph)].path));
    });
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
    connect(exportCsv, &QPushButton::clicked, this, [this, topK] { Q_EMIT exportTopKRequested(topK->value()); });
    connect(exportKaggle, &QPushButton::clicked, this, &InferenceResults::exportKaggleRequested);
}

InferenceResults::~InferenceResults() = default;

void InferenceResults::showOutcome(std::shared_ptr<const InferenceOutcome> outcome, tgraph::GraphDocumentPtr document)
{
    m_outcome = std::move(outcome);
    m_document = std::move(document);
    {
        const QSignalBlocker block(m_graphChoice);
        m_graphChoice->clear();
        for (const GraphInference& g : m_outcome->graphs)
            m_graphChoice->addItem(QString::fromStdString(g.name));
    }
    std::vector<GraphTau> taus;
    int64_t tauCount = 0;
    for (const GraphInference& g : m_outcome->graphs) {
        taus.push_back({ QString::fromStdString(g.name), QString::fromStdString(g.path),
            QString::fromStdString(g.collection), g.kendallTau });
        tauCount += std::isfinite(g.kendallTau);
    }
    m_tauStrip->setEntries(std::move(taus));
    QString summary = tr("%Ln graph(s)", nullptr, int(m_outcome->graphs.size()));
    if (tauCount) // averaged as everywhere else (docs/model.md §7.6)
        summary += tr(", mean τ %1 over %2 with runtimes")
                       .arg(Formatting::number(tgraph::meanOfDefined(m_outcome->graphs, &GraphInference::kendallTau), 3),
                           Formatting::count(tauCount));
    summary += tr("; model: %1")
                   .arg(m_outcome->members.size() == 1
                           ? QFileInfo(QString::fromStdString(m_outcome->members.front())).fileName()
                           : tr("ensemble of %1").arg(Formatting::count(int64_t(m_outcome->members.size()))));
    m_summary->setText(summary);
    m_summary->setVisible(!summary.isEmpty());
    showGraph(m_outcome->graphs.empty() ? -1 : 0);
    if (m_outcome->graphs.size() > 1)
        m_viewTabs->setCurrentWidget(m_tauStrip);
}

void InferenceResults::showGraph(int index)
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
            const tgraph::GraphDocument* doc = m_document && m_document->path == g.path ? m_document.get() : nullptr;
            for (size_t k = 0; k < g.configurableNodes.size(); ++k) {
                const int64_t node = g.configurableNodes[k];
                const QString name = doc ? QStringLiteral("%1 (%2)").arg(QString::fromStdString(doc->nodeName(node)),
                                         QString::fromStdString(doc->opcodeName(node)))
                                         : tr("node %1").arg(Formatting::id(node));
                m_nodeChoice->addItem(name, int(k));
            }
        }
    }
    updateExtraColumns();
    m_attention->setGraph(m_outcome, index);
    updateAttention();
    if (g.configIds.size() > 0)
        selectConfig(data.configIds[size_t(data.predictedOrder.front())], false);
}

void InferenceResults::updateExtraColumns()
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
            names << tr("tile %1").arg(Formatting::id(c));
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

void InferenceResults::updateAttention()
{
    if (!m_outcome || m_graph < 0)
        return;
    m_attention->update(m_table->result(), m_selectedConfig, m_pinnedConfig);
}

void InferenceResults::pinConfig(int64_t config)
{
    m_pinnedConfig = config;
    updateAttention();
}

void InferenceResults::selectConfig(int64_t config, bool fromTable)
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
        if (m_attention->mode() == 0 || m_attention->mode() == 3)
            updateAttention();
        Q_EMIT configSelected(QString::fromStdString(m_outcome->graphs[size_t(m_graph)].path), config);
    }
}

void InferenceResults::fillExplainMenu(QMenu* menu)
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

} // namespace tgraph::studio
