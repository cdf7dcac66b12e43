// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphpage.h"
#include "ui_graphpage.h"

#include "widgets/common/flowlayout.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/graphexport.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphscene.h"
#include "widgets/graph/graphsummaryview.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/opcodepalette.h"

#include "core/graph/featurenames.h"
#include "core/view/nodesearch.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

namespace tgraph::widgets {

namespace {

constexpr size_t kMaxMatches = 100000;

QLabel* swatch(const QColor& fill, const QColor& border, int borderWidth, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setFixedSize(14, 14);
    label->setStyleSheet(
        QStringLiteral("background:%1; border:%2px solid %3;").arg(fill.name()).arg(borderWidth).arg(border.name()));
    return label;
}

// A swatch and its name, kept together when the legend wraps.
QWidget* legendEntry(QLabel* swatch, const QString& name)
{
    auto* entry = new QWidget(swatch->parentWidget());
    auto* row = new QHBoxLayout(entry);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(4);
    swatch->setParent(entry);
    row->addWidget(swatch);
    row->addWidget(new QLabel(name, entry));
    return entry;
}

} // namespace

GraphPage::GraphPage(tgraph::GraphDocumentPtr document, QWidget* parent)
    : QWidget(parent)
    , m_document(std::move(document))
    , m_ui(std::make_unique<Ui::GraphPage>())
{
    // The widgets, texts, tooltips and layouts are in graphpage.ui; the flow layouts, the legend's
    // entries, the colour choices and what depends on the document are set here.
    m_ui->setupUi(this);
    m_full = m_ui->fullPane;
    m_pruned = m_ui->prunedPane;
    m_current = m_full;
    m_summary = m_ui->summaryView;
    m_summary->setSummary(m_document->summary);
    m_inner = m_ui->pageTabs;
    m_splitter = m_ui->pruningSplitter;
    setUpToolBar();
    setUpLegend();

    connect(m_full, &GraphPane::nodeSelected, this, [this](qint64 node) { onPaneSelected(m_full, node); });
    connect(m_pruned, &GraphPane::nodeSelected, this, [this](qint64 node) { onPaneSelected(m_pruned, node); });
    for (GraphPane* pane : { m_full, m_pruned }) {
        connect(pane, &GraphPane::message, this, &GraphPage::message);
        connect(pane, &GraphPane::layoutFailed, this, &GraphPage::message);
    }

    m_full->setDocument(m_document, tgraph::GraphSource::Kind::Full);
    m_pruned->setDocument(m_document, tgraph::GraphSource::Kind::Pruned);
    setSplit(false);
}

GraphPage::~GraphPage() = default;

void GraphPage::setUpToolBar()
{
    // The view controls flow into a second row where the window is narrow (nothing hides behind an
    // overflow button); the search block stays in sight at the right (docs/studio.md §9). Designer
    // has no flow layout: the form leaves graphControls without one.
    auto* flow = new FlowLayout(m_ui->graphControls, 6, 3);
    flow->setContentsMargins(0, 0, 0, 0);

    m_modeCombo = m_ui->viewMode;
    connect(m_modeCombo, &QComboBox::activated, this, [this](int index) {
        if (index == 0)
            showComputations();
        else if (index == 1 && m_selected >= 0)
            showNeighbourhood(m_selected, m_radius->value());
        else if (index == 2)
            showPathsToSelection();
    });
    m_radius = m_ui->radius;
    connect(m_radius, &QSpinBox::valueChanged, this, [this](int radius) {
        if (m_current->mode() == GraphPane::Mode::Neighbourhood && m_selected >= 0)
            showNeighbourhood(m_selected, radius);
    });

    m_splitButton = m_ui->splitButton;
    m_splitButton->setToolTip(m_document->pruned ? tr("Show the pruned graph beside the full graph")
                                                 : QString::fromStdString(m_document->pruneError));
    m_splitButton->setEnabled(bool(m_document->pruned));
    connect(m_splitButton, &QToolButton::toggled, this, &GraphPage::setSplit);

    m_colorCombo = m_ui->colorBy;
    m_colorCombo->addItem(tr("Colour: opcode"), -1);
    for (int c = 0; c < 140; ++c)
        m_colorCombo->addItem(tr("Colour: %1").arg(QString::fromStdString(tgraph::nodeFeatureName(c))), c);
    connect(m_colorCombo, &QComboBox::activated, this,
        [this](int index) { setOverlayColumn(m_colorCombo->itemData(index).toInt()); });

    m_search = m_ui->searchField;
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (!m_matches.empty() && m_search->property("lastQuery").toString() == m_search->text())
            findNext();
        else
            find(m_search->text());
    });
    connect(m_ui->findPrevious, &QToolButton::clicked, this, &GraphPage::findPrevious);
    connect(m_ui->findNext, &QToolButton::clicked, this, &GraphPage::findNext);
    m_matchLabel = m_ui->matchLabel;
    m_matchLabel->setMinimumWidth(m_matchLabel->fontMetrics().horizontalAdvance(QStringLiteral("888 / 888")));

    for (QWidget* w : std::initializer_list<QWidget*> { m_modeCombo, m_radius, m_splitButton, m_colorCombo })
        flow->addWidget(w);
}

void GraphPage::setUpLegend()
{
    // The entries flow into a second row where the window is narrow.
    m_legend = m_ui->opcodeLegend;
    auto* legendFlow = new FlowLayout(m_legend, 10, 2);
    for (const OpcodePalette::Family family : OpcodePalette::families())
        legendFlow->addWidget(legendEntry(swatch(OpcodePalette::color(family), QColor(0x40, 0x40, 0x40), 1, m_legend),
            OpcodePalette::familyName(family)));
    legendFlow->addWidget(
        legendEntry(swatch(Qt::white, OpcodePalette::configurableBorder(), 3, m_legend), tr("configurable")));
    legendFlow->addWidget(legendEntry(
        swatch(OpcodePalette::prunedTint(), QColor(0xa0, 0xa0, 0xa0), 1, m_legend), tr("removed by pruning")));
    m_colorBar = m_ui->colorBar;
    m_colorBar->hide(); // shown with an overlay, in the legend's place
}

GraphPane* GraphPage::currentPane() const { return isSplit() ? m_current : m_full; }

void GraphPage::setSplit(bool split)
{
    split = split && m_document->pruned;
    const bool wasSplit = isSplit();
    m_pruned->setVisible(split);
    if (split && !wasSplit) { // halves, unless the user's sizes give both panes room
        const QList<int> sizes = m_splitter->sizes();
        const int total = sizes.value(0) + sizes.value(1);
        if (sizes.value(1) < total / 5 || sizes.value(0) < total / 5)
            m_splitter->setSizes({ total / 2, total - total / 2 });
    }
    m_full->setRemovedOutside(split && m_document->pruned ? &*m_document->pruned : nullptr);
    if (m_splitButton->isChecked() != split)
        m_splitButton->setChecked(split);
    if (split && m_selected >= 0)
        m_pruned->selectNode(m_selected, true);
    if (!split)
        m_current = m_full;
}

bool GraphPage::isSplit() const { return !m_pruned->isHidden(); }

void GraphPage::onPaneSelected(GraphPane* pane, qint64 node)
{
    m_current = pane;
    if (node < 0)
        return;
    record(node);
    applySelection(node, pane);
}

void GraphPage::applySelection(int64_t node, GraphPane* origin)
{
    if (node != m_selected) {
        m_previousSelected = m_selected;
        m_selected = node;
    }
    // The other pane selects and centres the same node (both name nodes by full-graph id).
    for (GraphPane* pane : { m_full, m_pruned }) {
        if (pane == origin || (pane == m_pruned && !isSplit()))
            continue;
        pane->selectNode(node, true);
    }
    Q_EMIT nodeSelected(node);
}

void GraphPage::selectNode(int64_t node)
{
    if (node < 0 || node >= m_document->nodeCount())
        return;
    record(node);
    GraphPane* target = currentPane();
    if (!target->source() || !target->source()->contains(node))
        target = m_full;
    target->selectNode(node, true);
    applySelection(node, target);
}

void GraphPage::record(int64_t node)
{
    if (m_navigating)
        return;
    if (m_historyIndex >= 0 && m_history[size_t(m_historyIndex)] == node)
        return;
    m_history.resize(size_t(m_historyIndex + 1));
    m_history.push_back(node);
    m_historyIndex = int(m_history.size()) - 1;
    Q_EMIT historyChanged();
}

void GraphPage::goBack()
{
    if (!canGoBack())
        return;
    m_navigating = true;
    --m_historyIndex;
    selectNode(m_history[size_t(m_historyIndex)]);
    m_navigating = false;
    Q_EMIT historyChanged();
}

void GraphPage::goForward()
{
    if (!canGoForward())
        return;
    m_navigating = true;
    ++m_historyIndex;
    selectNode(m_history[size_t(m_historyIndex)]);
    m_navigating = false;
    Q_EMIT historyChanged();
}

void GraphPage::showNeighbourhood(int64_t node, int radius)
{
    m_modeCombo->setCurrentIndex(1);
    m_radius->setValue(radius);
    for (GraphPane* pane : { m_full, m_pruned }) {
        if (pane->source() && pane->source()->contains(node)) {
            pane->showNeighbourhood(node, radius);
            pane->selectNode(node, true);
        }
    }
}

void GraphPage::showComputations()
{
    m_modeCombo->setCurrentIndex(0);
    m_full->showComputations();
    m_pruned->showComputations();
    if (m_selected >= 0) {
        m_full->selectNode(m_selected, true);
        m_pruned->selectNode(m_selected, true);
    }
}

void GraphPage::showPathsToSelection()
{
    if (m_selected < 0 || m_previousSelected < 0) {
        Q_EMIT message(tr("Select two nodes, one after the other, to see the paths between them"));
        m_modeCombo->setCurrentIndex(int(m_current->mode()));
        return;
    }
    m_modeCombo->setCurrentIndex(2);
    for (GraphPane* pane : { m_full, m_pruned })
        pane->showPaths(m_previousSelected, m_selected);
}

int GraphPage::find(const QString& query)
{
    if (m_search->text() != query)
        m_search->setText(query);
    m_search->setProperty("lastQuery", query);
    const tgraph::GraphSource* scope = nullptr; // search the full graph; the pruned pane follows
    m_matches = tgraph::searchNodes(*m_document, query.toStdString(), scope, kMaxMatches);
    m_matchIndex = m_matches.empty() ? -1 : 0;
    for (GraphPane* pane : { m_full, m_pruned })
        pane->setHighlighted(m_matches.size() <= 500 ? m_matches : std::vector<int64_t> {});
    showMatch();
    return int(m_matches.size());
}

void GraphPage::findNext()
{
    if (m_matches.empty())
        return;
    m_matchIndex = (m_matchIndex + 1) % int(m_matches.size());
    showMatch();
}

void GraphPage::findPrevious()
{
    if (m_matches.empty())
        return;
    m_matchIndex = (m_matchIndex + int(m_matches.size()) - 1) % int(m_matches.size());
    showMatch();
}

void GraphPage::focusSearch()
{
    m_inner->setCurrentIndex(0);
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void GraphPage::fitToView()
{
    m_full->view()->fitToView();
    if (isSplit())
        m_pruned->view()->fitToView();
}

void GraphPage::showMatch()
{
    if (m_matches.empty()) {
        m_matchLabel->setText(m_search->text().trimmed().isEmpty() ? QString() : tr("no match"));
        return;
    }
    m_matchLabel->setText(
        tr("%1 of %2").arg(Formatting::count(m_matchIndex + 1), Formatting::count(int64_t(m_matches.size()))));
    selectNode(m_matches[size_t(m_matchIndex)]);
}

void GraphPage::setOverlayColumn(int column)
{
    if (column < 0) {
        m_overlay = NodeOverlay();
        m_colorBar->hide();
        m_legend->show();
    } else {
        m_overlay = NodeOverlay::featureColumn(*m_document, column);
        m_colorBar->setOverlay(m_overlay);
        m_colorBar->show();
        m_legend->hide();
    }
    const int index = m_colorCombo->findData(column);
    if (index >= 0)
        m_colorCombo->setCurrentIndex(index);
    for (GraphPane* pane : { m_full, m_pruned })
        pane->setOverlay(column < 0 ? nullptr : &m_overlay);
}

void GraphPage::setOverlay(NodeOverlay overlay)
{
    if (overlay.isEmpty()) {
        setOverlayColumn(-1);
        return;
    }
    m_overlay = std::move(overlay);
    m_colorBar->setOverlay(m_overlay);
    m_colorBar->show();
    m_legend->hide();
    for (GraphPane* pane : { m_full, m_pruned })
        pane->setOverlay(&m_overlay);
}

namespace {

QList<GraphExport::Panel> panelsOf(const QList<GraphPane*>& panes)
{
    QList<GraphExport::Panel> panels;
    for (GraphPane* pane : panes)
        panels.append({ pane->scene(), pane->titleText() });
    return panels;
}

} // namespace

QImage GraphPage::renderImage(double scale) const
{
    return GraphExport::renderImage(
        panelsOf(isSplit() ? QList<GraphPane*> { m_full, m_pruned } : QList<GraphPane*> { currentPane() }), scale);
}

bool GraphPage::exportSvg(const QString& path, QString* error) const
{
    return GraphExport::writeSvg(
        panelsOf(isSplit() ? QList<GraphPane*> { m_full, m_pruned } : QList<GraphPane*> { currentPane() }), path,
        error);
}

bool GraphPage::exportPng(const QString& path, QString* error) const
{
    return GraphExport::writePng(
        panelsOf(isSplit() ? QList<GraphPane*> { m_full, m_pruned } : QList<GraphPane*> { currentPane() }), path,
        error);
}

QByteArray GraphPage::saveSplitterState() const { return m_splitter->saveState(); }

void GraphPage::restoreSplitterState(const QByteArray& state) { m_splitter->restoreState(state); }

} // namespace tgraph::widgets
