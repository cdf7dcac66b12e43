// SPDX-License-Identifier: Apache-2.0
#include "widgets/diff/diffview.h"

#include "widgets/common/distinctnames.h"
#include "widgets/common/elidedlabel.h"
#include "widgets/common/flowlayout.h"
#include "widgets/common/formatting.h"
#include "widgets/diff/changelistmodel.h"
#include "widgets/diff/computationdiffmodel.h"
#include "widgets/diff/diffcolors.h"
#include "widgets/graph/graphpane.h"

#include "core/diffcost/diffcostreport.h"

#include <QAction>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace tgraph::widgets {

using Side = DiffView::Side;

namespace {

QTableView* makeTable(QWidget* parent, const QString& name)
{
    auto* table = new QTableView(parent);
    table->setObjectName(name);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setHighlightSections(false);
    table->horizontalHeader()->setStretchLastSection(false);
    return table;
}

QString kindName(uint32_t bit)
{
    if (bit == ChangeListModel::kRemovedBit)
        return QStringLiteral("removed");
    if (bit == ChangeListModel::kAddedBit)
        return QStringLiteral("added");
    for (size_t k = 0; k < tgraph::kHloChangeKindCount; ++k)
        if (bit == tgraph::hloChangeBit(tgraph::HloChangeKind(k)))
            return QString::fromLatin1(tgraph::hloChangeKindName(tgraph::HloChangeKind(k)));
    return {};
}

} // namespace

DiffView::DiffView(QWidget* parent)
    : QWidget(parent)
    , m_paneA(new GraphPane(this))
    , m_paneB(new GraphPane(this))
    , m_titleA(new ElidedLabel(this, Qt::ElideMiddle))
    , m_titleB(new ElidedLabel(this, Qt::ElideMiddle))
    , m_summary(new ElidedLabel(this, Qt::ElideRight))
    , m_sync(new ElidedLabel(this, Qt::ElideRight))
    , m_legend(new DiffLegend(this))
    , m_vertical(new QSplitter(Qt::Vertical, this))
    , m_sides(new QSplitter(Qt::Horizontal, this))
    , m_tabs(new QTabWidget(this))
    , m_changeModel(new ChangeListModel(this))
    , m_computationModel(new ComputationDiffModel(this))
{
    setObjectName(QStringLiteral("diffView"));
    m_paneA->setObjectName(QStringLiteral("diffPaneA"));
    m_paneB->setObjectName(QStringLiteral("diffPaneB"));
    m_titleA->setObjectName(QStringLiteral("diffTitleA"));
    m_titleB->setObjectName(QStringLiteral("diffTitleB"));
    m_summary->setObjectName(QStringLiteral("diffSummary"));
    m_sync->setObjectName(QStringLiteral("diffSync"));
    m_tabs->setObjectName(QStringLiteral("diffTabs"));
    m_vertical->setObjectName(QStringLiteral("diffSplitter"));
    for (ElidedLabel* label : { m_titleA, m_titleB }) {
        QFont bold = label->font();
        bold.setBold(true);
        label->setFont(bold);
        label->setProperty(Formatting::kVerbatimProperty, true);
    }
    m_sync->setProperty(Formatting::kVerbatimProperty, true);

    auto* sideA = new QWidget(m_sides);
    auto* columnA = new QVBoxLayout(sideA);
    columnA->setContentsMargins(0, 0, 0, 0);
    columnA->setSpacing(0);
    columnA->addWidget(m_titleA);
    columnA->addWidget(m_paneA, 1);
    auto* sideB = new QWidget(m_sides);
    auto* columnB = new QVBoxLayout(sideB);
    columnB->setContentsMargins(0, 0, 0, 0);
    columnB->setSpacing(0);
    columnB->addWidget(m_titleB);
    columnB->addWidget(m_paneB, 1);
    m_sides->addWidget(sideA);
    m_sides->addWidget(sideB);
    m_sides->setChildrenCollapsible(false);

    auto* top = new QWidget(m_vertical);
    auto* topColumn = new QVBoxLayout(top);
    topColumn->setContentsMargins(0, 0, 0, 0);
    topColumn->setSpacing(2);
    topColumn->addWidget(m_sides, 1);
    auto* legendRow = new QHBoxLayout;
    legendRow->setContentsMargins(6, 0, 6, 0);
    legendRow->addWidget(m_legend, 1);
    topColumn->addLayout(legendRow);

    m_tabs->addTab(createChangesTab(), tr("Changes"));
    m_tabs->addTab(createComputationsTab(), tr("Computations"));
    m_tabs->setDocumentMode(true);

    m_vertical->addWidget(top);
    m_vertical->addWidget(m_tabs);
    m_vertical->setStretchFactor(0, 7);
    m_vertical->setStretchFactor(1, 3);
    // The panes first: 70 % of the height to start with (the lists' size hints alone left the panes
    // ~270 px of a 1366x768 window); the splitter distributes by these weights when shown.
    m_vertical->setSizes({ 7000, 3000 });
    m_vertical->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* header = new QVBoxLayout;
    header->setContentsMargins(6, 2, 6, 0);
    header->setSpacing(0);
    header->addWidget(m_summary);
    header->addWidget(m_sync);
    layout->addLayout(header);
    layout->addWidget(m_vertical, 1);

    connect(m_paneA, &GraphPane::nodeSelected, this, [this](qint64 node) { onPaneSelected(Side::A, node); });
    connect(m_paneB, &GraphPane::nodeSelected, this, [this](qint64 node) { onPaneSelected(Side::B, node); });
    connect(m_paneA, &GraphPane::message, this, &DiffView::message);
    connect(m_paneB, &GraphPane::message, this, &DiffView::message);
    setResult(nullptr);
}

QWidget* DiffView::createChangesTab()
{
    auto* tab = new QWidget(this);
    auto* column = new QVBoxLayout(tab);
    column->setContentsMargins(4, 4, 4, 0);
    column->setSpacing(2);
    auto* row = new QHBoxLayout;
    row->setSpacing(4);

    m_previous = new QAction(QIcon::fromTheme(QStringLiteral("go-up")), tr("Previous Change"), this);
    m_previous->setObjectName(QStringLiteral("previousChangeAction"));
    m_previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    m_previous->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_previous->setToolTip(tr("Select the previous change in the list (Shift+F8)"));
    connect(m_previous, &QAction::triggered, this, &DiffView::previousChange);
    m_next = new QAction(QIcon::fromTheme(QStringLiteral("go-down")), tr("Next Change"), this);
    m_next->setObjectName(QStringLiteral("nextChangeAction"));
    m_next->setShortcut(QKeySequence(Qt::Key_F8));
    m_next->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_next->setToolTip(tr("Select the next change in the list (F8)"));
    connect(m_next, &QAction::triggered, this, &DiffView::nextChange);
    addAction(m_previous);
    addAction(m_next);
    for (QAction* action : { m_previous, m_next }) {
        auto* button = new QToolButton(tab);
        button->setDefaultAction(action);
        button->setAutoRaise(true);
        row->addWidget(button);
    }

    // The filter: one toggle per kind, all on; each says how many rows it has.
    auto* filters = new QWidget(tab);
    auto* flow = new FlowLayout(filters, 4, 2);
    flow->setContentsMargins(0, 0, 0, 0);
    std::vector<uint32_t> bits;
    for (size_t k = 0; k < tgraph::kHloChangeKindCount; ++k)
        bits.push_back(tgraph::hloChangeBit(tgraph::HloChangeKind(k)));
    bits.push_back(ChangeListModel::kRemovedBit);
    bits.push_back(ChangeListModel::kAddedBit);
    for (const uint32_t bit : bits) {
        auto* button = new QToolButton(filters);
        button->setObjectName(QStringLiteral("filter_") + kindName(bit));
        button->setCheckable(true);
        button->setChecked(true);
        button->setAutoRaise(true);
        button->setToolTip(tr("Show the rows of kind “%1”").arg(kindName(bit)));
        connect(button, &QToolButton::toggled, this, [this] {
            uint32_t shown = 0;
            for (const auto& [b, toggle] : m_filterButtons)
                if (toggle->isChecked())
                    shown |= b;
            m_changeModel->setFilter(shown);
        });
        m_filterButtons[bit] = button;
        flow->addWidget(button);
    }
    row->addWidget(filters, 1);
    column->addLayout(row);

    m_changes = makeTable(tab, QStringLiteral("changeTable"));
    m_changes->setModel(m_changeModel);
    QHeaderView* header = m_changes->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(ChangeListModel::ComputationColumn, QHeaderView::Stretch);
    column->addWidget(m_changes, 1);
    connect(m_changes->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DiffView::onChangeRowChanged);
    connect(m_changeModel, &QAbstractItemModel::modelReset, this, [this] {
        // The model's selection model survives resets; its signal connection too.
        updateFilterButtons();
    });
    return tab;
}

QWidget* DiffView::createComputationsTab()
{
    m_computations = makeTable(this, QStringLiteral("computationTable"));
    m_computations->setModel(m_computationModel);
    m_computations->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    connect(m_computations, &QTableView::activated, this,
        [this](const QModelIndex& index) { onComputationActivated(index.row()); });
    connect(m_computations->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& index) {
            if (index.isValid())
                onComputationActivated(index.row());
        });
    return m_computations;
}

QToolButton* DiffView::filterButton(uint32_t bit) const
{
    auto it = m_filterButtons.find(bit);
    return it == m_filterButtons.end() ? nullptr : it->second;
}

void DiffView::updateFilterButtons()
{
    for (const auto& [bit, button] : m_filterButtons) {
        const int n = m_changeModel->countOf(bit);
        button->setText(QStringLiteral("%1 %2").arg(kindName(bit), Formatting::count(n)));
        QPixmap swatch(10, 10);
        swatch.fill(bit == ChangeListModel::kRemovedBit ? DiffColors::removed()
                : bit == ChangeListModel::kAddedBit     ? DiffColors::added()
                                                        : DiffColors::ofKinds(uint16_t(bit)));
        button->setIcon(QIcon(swatch));
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    }
    const bool any = m_changeModel->rowCount() > 0;
    m_next->setEnabled(any);
    m_previous->setEnabled(any);
}

void DiffView::setResult(DiffResultPtr result)
{
    m_result = std::move(result);
    m_changeModel->setResult(m_result);
    m_computationModel->setResult(m_result);
    updateFilterButtons();
    setSyncText(QString());
    if (!m_result) {
        m_paneA->setDocument(nullptr, tgraph::GraphSource::Kind::Full);
        m_paneB->setDocument(nullptr, tgraph::GraphSource::Kind::Full);
        m_titleA->setFullText(tr("A: no module"));
        m_titleB->setFullText(tr("B: no module"));
        m_summary->setFullText(tr("Compare two HLO modules: File › Compare Modules…, or drop two files here"));
        return;
    }
    // Same file names (a module's stages in two folders) are told apart by what differs.
    const QString pathA = QString::fromStdString(m_result->a->path);
    const QString pathB = QString::fromStdString(m_result->b->path);
    QStringList names { QFileInfo(pathA).fileName(), QFileInfo(pathB).fileName() };
    if (names[0] == names[1])
        names = DistinctNames::shorten({ pathA, pathB }, 120);
    m_titleA->setFullText(tr("A: %1").arg(names[0]), pathA);
    m_titleB->setFullText(tr("B: %1").arg(names[1]), pathB);
    m_paneA->setDocument(m_result->a, tgraph::GraphSource::Kind::Full);
    m_paneB->setDocument(m_result->b, tgraph::GraphSource::Kind::Full);
    m_paneA->setNodeColors(DiffColors::sideA(m_result->diff), DiffColors::unchanged());
    m_paneB->setNodeColors(DiffColors::sideB(m_result->diff), DiffColors::unchanged());
    m_summary->setFullText(summaryText());
    m_changes->resizeColumnsToContents();
    m_computations->resizeColumnsToContents();
    for (QTableView* table : { m_changes, m_computations })
        for (int c = 0; c < table->model()->columnCount(); ++c)
            table->setColumnWidth(c, std::min(table->columnWidth(c), 260));
}

QString DiffView::summaryText() const
{
    if (!m_result)
        return {};
    const tgraph::HloDiff& d = m_result->diff;
    const tgraph::HloDiffCost& c = m_result->cost;
    if (d.same())
        return tr("No change: %1 instructions matched · simulated cost %2 on both sides (estimate)")
            .arg(Formatting::count(int64_t(d.matched())), Formatting::duration(std::llround(c.totalA)));
    return tr("%1 matched (%2 changed), %3 removed, %4 added · simulated cost %5 → %6, %7 (the simulator's "
              "estimate, not a measurement)")
        .arg(Formatting::count(int64_t(d.matched())), Formatting::count(int64_t(d.changed.size())),
            Formatting::count(int64_t(d.removed.size())), Formatting::count(int64_t(d.added.size())),
            Formatting::duration(std::llround(c.totalA)), Formatting::duration(std::llround(c.totalB)),
            costDeltaText(c.delta()));
}

QString DiffView::syncText() const { return m_sync->fullText(); }

void DiffView::setSyncText(const QString& text)
{
    m_sync->setFullText(text);
    m_sync->setVisible(!text.isEmpty());
}

QString DiffView::describe(Side side, int64_t node) const
{
    const tgraph::HloDiff& d = m_result->diff;
    const bool a = side == Side::A;
    const tgraph::GraphDocument& doc = a ? *m_result->a : *m_result->b;
    const QString name = QString::fromStdString(doc.nodeName(node));
    const int32_t pair = a ? d.pairOfA[size_t(node)] : d.pairOfB[size_t(node)];
    if (pair < 0)
        return a ? tr("A %1: no match in B: removed · %2 (estimate)")
                       .arg(name, costDeltaText(m_result->cost.deltaOfA(d, uint32_t(node))))
                 : tr("B %1: no match in A: added · %2 (estimate)")
                       .arg(name, costDeltaText(m_result->cost.deltaOfB(d, uint32_t(node))));
    const tgraph::HloDiffPair& p = d.pairs[size_t(pair)];
    const QString other = QString::fromStdString((a ? *m_result->b : *m_result->a).nodeName(a ? p.b : p.a));
    const QString kinds
        = p.kinds ? tr("changed: %1").arg(QString::fromStdString(tgraph::hloDiffKindList(p.kinds))) : tr("unchanged");
    return tr("A %1 ↔ B %2: %3 · matched by %4 · %5 (estimate)")
        .arg(a ? name : other, a ? other : name, kinds, QString::fromLatin1(tgraph::hloMatchStageName(p.stage)),
            costDeltaText(m_result->cost.pairDelta(d, size_t(pair))));
}

void DiffView::onPaneSelected(Side side, qint64 node)
{
    if (m_syncing || !m_result)
        return;
    selectInstruction(side, node);
}

void DiffView::selectInstruction(Side side, int64_t node)
{
    if (!m_result)
        return;
    const tgraph::HloDiff& d = m_result->diff;
    const size_t count = side == Side::A ? d.instructionsA : d.instructionsB;
    if (node < 0 || size_t(node) >= count) {
        setSyncText(QString());
        return;
    }
    m_syncing = true;
    GraphPane* here = pane(side);
    GraphPane* there = pane(side == Side::A ? Side::B : Side::A);
    if (here->selectedNode() != node)
        here->selectNode(node, false);
    const int32_t match = side == Side::A ? d.matchOfA[size_t(node)] : d.matchOfB[size_t(node)];
    if (match >= 0)
        there->selectNode(match, true);
    else
        there->selectNode(-1, false); // nothing to show there: said on the sync line
    setSyncText(describe(side, node));
    // The list follows when the instruction is in it.
    const int row = side == Side::A ? m_changeModel->rowOfA(node) : m_changeModel->rowOfB(node);
    {
        const QSignalBlocker block(m_changes->selectionModel());
        if (row >= 0) {
            m_changes->selectionModel()->setCurrentIndex(
                m_changeModel->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_changes->scrollTo(m_changeModel->index(row, 0));
        } else {
            m_changes->selectionModel()->clearSelection();
        }
    }
    m_changes->viewport()->update();
    m_syncing = false;
}

void DiffView::onChangeRowChanged()
{
    const int row = currentChange();
    if (row < 0 || !m_result || m_syncing)
        return;
    const ChangeListModel::Entry& e = m_changeModel->entry(row);
    m_syncing = true;
    if (e.a >= 0)
        m_paneA->selectNode(e.a, true);
    if (e.b >= 0)
        m_paneB->selectNode(e.b, true);
    setSyncText(e.a >= 0 ? describe(Side::A, e.a) : describe(Side::B, e.b));
    m_syncing = false;
}

int DiffView::currentChange() const
{
    const QModelIndex current = m_changes->selectionModel()->currentIndex();
    return current.isValid() && m_changes->selectionModel()->isRowSelected(current.row(), {}) ? current.row() : -1;
}

void DiffView::selectChange(int row)
{
    if (row < 0 || row >= m_changeModel->rowCount())
        return;
    const QModelIndex index = m_changeModel->index(row, 0);
    m_changes->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_changes->scrollTo(index);
    if (m_tabs->currentIndex() != 0)
        m_tabs->setCurrentIndex(0);
}

void DiffView::nextChange()
{
    const int rows = m_changeModel->rowCount();
    if (rows == 0)
        return;
    const int row = currentChange();
    selectChange(row < 0 ? 0 : (row + 1) % rows);
}

void DiffView::previousChange()
{
    const int rows = m_changeModel->rowCount();
    if (rows == 0)
        return;
    const int row = currentChange();
    selectChange(row <= 0 ? rows - 1 : row - 1);
}

void DiffView::setFilter(uint32_t bits)
{
    for (const auto& [bit, button] : m_filterButtons) {
        const QSignalBlocker block(button);
        button->setChecked(bits & bit);
    }
    m_changeModel->setFilter(bits);
}

void DiffView::onComputationActivated(int row)
{
    if (!m_result || row < 0 || row >= m_computationModel->rowCount())
        return;
    const tgraph::HloComputationDiff& c = m_computationModel->row(row);
    // The root of each side's computation (its last instruction when the root is not known).
    auto rootOf = [](const tgraph::HloModule& m, int32_t computation) -> int64_t {
        if (computation < 0)
            return -1;
        const tgraph::HloComputation& comp = m.computations[size_t(computation)];
        for (uint32_t k = 0; k < comp.instructionCount; ++k)
            if (m.instructions[comp.firstInstruction + k].id == comp.rootId)
                return comp.firstInstruction + k;
        return comp.instructionCount ? int64_t(comp.firstInstruction + comp.instructionCount - 1) : -1;
    };
    const int64_t a = rootOf(m_result->moduleA(), c.a);
    const int64_t b = rootOf(m_result->moduleB(), c.b);
    m_syncing = true;
    if (a >= 0)
        m_paneA->selectNode(a, true);
    if (b >= 0)
        m_paneB->selectNode(b, true);
    m_syncing = false;
    setSyncText(a >= 0 ? describe(Side::A, a) : b >= 0 ? describe(Side::B, b) : QString());
}

} // namespace tgraph::widgets
