// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/graphsummaryview.h"

#include "widgets/graph/arraytablemodel.h"
#include "widgets/common/elidedlabel.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/opcodetablemodel.h"

#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <array>

namespace tgraph::widgets {

namespace {

struct FieldInfo
{
    GraphSummaryView::Field field;
    const char* label;
    const char* objectName;
};

constexpr std::array<FieldInfo, 12> kFields = { {
    { GraphSummaryView::Field::Kind, QT_TRANSLATE_NOOP("GraphSummaryView", "Kind:"), "kindValue" },
    { GraphSummaryView::Field::Nodes, QT_TRANSLATE_NOOP("GraphSummaryView", "Nodes:"), "nodesValue" },
    { GraphSummaryView::Field::Edges, QT_TRANSLATE_NOOP("GraphSummaryView", "Edges:"), "edgesValue" },
    { GraphSummaryView::Field::ConfigurableNodes, QT_TRANSLATE_NOOP("GraphSummaryView", "Configurable nodes:"),
        "configurableNodesValue" },
    { GraphSummaryView::Field::Configs, QT_TRANSLATE_NOOP("GraphSummaryView", "Configs:"), "configsValue" },
    { GraphSummaryView::Field::Runtimes, QT_TRANSLATE_NOOP("GraphSummaryView", "Runtimes:"), "runtimesValue" },
    { GraphSummaryView::Field::RuntimeRange, QT_TRANSLATE_NOOP("GraphSummaryView", "Runtime range:"),
        "runtimeRangeValue" },
    { GraphSummaryView::Field::DuplicateConfigs, QT_TRANSLATE_NOOP("GraphSummaryView", "Duplicate configs:"),
        "duplicateConfigsValue" },
    { GraphSummaryView::Field::NodeSplits, QT_TRANSLATE_NOOP("GraphSummaryView", "Node splits:"), "nodeSplitsValue" },
    { GraphSummaryView::Field::ConfigStorage, QT_TRANSLATE_NOOP("GraphSummaryView", "Config features:"),
        "configStorageValue" },
    { GraphSummaryView::Field::Source, QT_TRANSLATE_NOOP("GraphSummaryView", "Source:"), "sourceValue" },
    { GraphSummaryView::Field::TuningRuns, QT_TRANSLATE_NOOP("GraphSummaryView", "Tuning runs:"), "tuningRunsValue" },
} };

// m_values is indexed by Field: kFields must list the fields in enum order.
constexpr bool fieldsInEnumOrder()
{
    for (size_t i = 0; i < kFields.size(); ++i) {
        if (kFields[i].field != GraphSummaryView::Field(i))
            return false;
    }
    return true;
}
static_assert(fieldsInEnumOrder());

constexpr QChar kDash(0x2014); // shown for facts that do not apply

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSortingEnabled(true);
    view->setAlternatingRowColors(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setHighlightSections(false);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

QSortFilterProxyModel* makeProxy(QAbstractItemModel* source, int sortRole, QObject* parent)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(sortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    return proxy;
}

} // namespace

GraphSummaryView::GraphSummaryView(QWidget* parent)
    : QWidget(parent)
    , m_title(new ElidedLabel(this, Qt::ElideMiddle))
    , m_subtitle(new ElidedLabel(this, Qt::ElideMiddle))
    , m_opcodeModel(new OpcodeTableModel(this))
    , m_arrayModel(new ArrayTableModel(this))
{
    m_title->setObjectName(QStringLiteral("titleLabel"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_subtitle->setObjectName(QStringLiteral("subtitleLabel"));
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_subtitle->setForegroundRole(QPalette::PlaceholderText);

    // Facts
    auto* factsBox = new QGroupBox(tr("Graph"), this);
    auto* form = new QFormLayout(factsBox);
    form->setLabelAlignment(Qt::AlignRight);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    for (const FieldInfo& info : kFields) {
        auto* value = new ElidedLabel(factsBox, Qt::ElideRight);
        value->setObjectName(QLatin1String(info.objectName));
        value->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        form->addRow(tr(info.label), value);
        m_values.append(value);
    }

    // Arrays
    auto* arraysBox = new QGroupBox(tr("Arrays"), this);
    m_arrayProxy = makeProxy(m_arrayModel, ArrayTableModel::SortRole, this);
    m_arrayTable = makeTable(m_arrayProxy, arraysBox);
    m_arrayTable->setObjectName(QStringLiteral("arrayTable"));
    m_arrayTable->sortByColumn(-1, Qt::AscendingOrder); // archive order until the user sorts
    auto* arraysLayout = new QVBoxLayout(arraysBox);
    arraysLayout->addWidget(m_arrayTable);

    // Opcodes
    auto* opcodesBox = new QGroupBox(tr("Opcodes"), this);
    m_opcodeProxy = makeProxy(m_opcodeModel, OpcodeTableModel::SortRole, this);
    m_opcodeProxy->setFilterKeyColumn(OpcodeTableModel::NameColumn);
    m_opcodeTable = makeTable(m_opcodeProxy, opcodesBox);
    m_opcodeTable->setObjectName(QStringLiteral("opcodeTable"));
    m_opcodeTable->sortByColumn(OpcodeTableModel::CountColumn, Qt::DescendingOrder);
    // The opcode column is as wide as its longest name (a narrow summary scrolls sideways): a
    // stretched column once shrank to "…" in a narrow window (docs/studio.md §9).
    m_opcodeTable->horizontalHeader()->setSectionResizeMode(
        OpcodeTableModel::NameColumn, QHeaderView::ResizeToContents);
    m_opcodeTable->horizontalHeader()->setStretchLastSection(true);
    m_opcodeFilter = new QLineEdit(opcodesBox);
    m_opcodeFilter->setObjectName(QStringLiteral("opcodeFilter"));
    m_opcodeFilter->setPlaceholderText(tr("Filter opcodes…"));
    m_opcodeFilter->setClearButtonEnabled(true);
    connect(m_opcodeFilter, &QLineEdit::textChanged, m_opcodeProxy, &QSortFilterProxyModel::setFilterFixedString);
    m_opcodeCount = new QLabel(opcodesBox);
    m_opcodeCount->setForegroundRole(QPalette::PlaceholderText);
    const auto updateOpcodeCount = [this] {
        const int shown = m_opcodeProxy->rowCount();
        const int total = m_opcodeModel->rowCount();
        const QString opcodes = total == 1 ? tr("1 opcode") : tr("%1 opcodes").arg(Formatting::count(total));
        m_opcodeCount->setText(shown == total ? opcodes : tr("%1 of %2").arg(Formatting::count(shown), opcodes));
    };
    connect(m_opcodeProxy, &QAbstractItemModel::modelReset, this, updateOpcodeCount);
    connect(m_opcodeProxy, &QAbstractItemModel::rowsInserted, this, updateOpcodeCount);
    connect(m_opcodeProxy, &QAbstractItemModel::rowsRemoved, this, updateOpcodeCount);
    connect(m_opcodeProxy, &QAbstractItemModel::layoutChanged, this, updateOpcodeCount);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_opcodeFilter, 1);
    filterRow->addWidget(m_opcodeCount);
    auto* opcodesLayout = new QVBoxLayout(opcodesBox);
    opcodesLayout->addLayout(filterRow);
    opcodesLayout->addWidget(m_opcodeTable);

    // Facts and arrays (short) on the left, the opcode histogram (long) on the right.
    auto* left = new QSplitter(Qt::Vertical, this);
    left->setChildrenCollapsible(false);
    left->addWidget(factsBox);
    left->addWidget(arraysBox);
    left->setStretchFactor(0, 0);
    left->setStretchFactor(1, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("summarySplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(left);
    splitter->addWidget(opcodesBox);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    layout->addWidget(splitter, 1);

    updateOpcodeCount();
}

ElidedLabel* GraphSummaryView::valueLabel(Field field) const { return m_values.at(qsizetype(field)); }

void GraphSummaryView::setField(Field field, const QString& text, const QString& toolTip)
{
    valueLabel(field)->setFullText(text, toolTip);
}

QString GraphSummaryView::fieldText(Field field) const { return valueLabel(field)->fullText(); }

QString GraphSummaryView::title() const { return m_title->fullText(); }

void GraphSummaryView::setSummary(const tgraph::GraphSummary& summary)
{
    using Formatting::count;
    m_summary = summary;
    const bool layout = summary.kind == tgraph::GraphKind::Layout;
    const QString path = QString::fromStdString(summary.path);

    m_title->setFullText(QFileInfo(path).fileName());
    m_subtitle->setFullText(
        QStringLiteral("%1  ·  %2").arg(QDir::toNativeSeparators(path), Formatting::bytes(summary.fileBytes)),
        tr("%1 bytes").arg(count(int64_t(summary.fileBytes))));

    setField(Field::Kind, layout ? tr("layout") : tr("tile"),
        layout ? tr("Whole HLO module; configs choose the layouts of its configurable nodes")
               : tr("One fused kernel; configs choose graph-level tile sizes"));
    setField(Field::Nodes, count(summary.nodes));
    setField(Field::Edges, count(summary.edges));
    setField(Field::ConfigurableNodes, layout ? count(summary.configurableNodes) : QString(kDash));
    setField(Field::Configs, count(summary.configs));

    if (summary.hasRuntimes) {
        setField(Field::Runtimes, tr("measured"));
        setField(Field::RuntimeRange,
            tr("%1 – %2 ns\n(%3 – %4)")
                .arg(count(summary.runtimeMin), count(summary.runtimeMax), Formatting::duration(summary.runtimeMin),
                    Formatting::duration(summary.runtimeMax)),
            tr("Fastest and slowest config; max/min = %1")
                .arg(summary.runtimeMin > 0
                        ? Formatting::number(double(summary.runtimeMax) / double(summary.runtimeMin), 2)
                        : QString(kDash)));
    } else {
        setField(Field::Runtimes, tr("not measured (all zero)"), tr("Runtimes are all zero, as in the test split"));
        setField(Field::RuntimeRange, QString(kDash));
    }

    const QString duplicatesTip = tr("Config rows that repeat an earlier row");
    if (summary.configs > 0 && summary.duplicateConfigs > 0) {
        const double share = double(summary.duplicateConfigs) / double(summary.configs);
        setField(Field::DuplicateConfigs,
            tr("%1 (%2)").arg(count(summary.duplicateConfigs), Formatting::percent(share, 1)), duplicatesTip);
    } else {
        setField(Field::DuplicateConfigs, count(summary.duplicateConfigs), duplicatesTip);
    }

    if (!layout) {
        setField(Field::NodeSplits, QString(kDash));
    } else if (summary.nodeSplits.empty()) {
        setField(Field::NodeSplits, tr("none"));
    } else {
        constexpr size_t shown = 6;
        QStringList offsets;
        for (size_t i = 0; i < summary.nodeSplits.size() && i < shown; ++i)
            offsets.append(Formatting::id(summary.nodeSplits[i]));
        if (summary.nodeSplits.size() > shown)
            offsets.append(QStringLiteral("…"));
        const QString splits = count(int64_t(summary.nodeSplits.size()));
        setField(Field::NodeSplits, tr("%1 (at nodes %2)").arg(splits, offsets.join(QStringLiteral(", "))),
            tr("Node ids where the module's computations start"));
    }

    if (layout)
        setField(Field::ConfigStorage,
            summary.configsCompressed ? tr("base-7 compressed integers (C, Nc, 3)") : tr("float (C, Nc, 18)"));
    else
        setField(Field::ConfigStorage, tr("graph-level (C, 24)"));

    if (const auto& module = summary.module) {
        QString source
            = tr("%1, module %2").arg(QString::fromStdString(module->format), QString::fromStdString(module->name));
        if (module->count > 1)
            source += tr(" (%1 of %2)").arg(count(module->index + 1), count(module->count));
        setField(Field::Source,
            source
                + tr("\n%1 computations, %2 instructions")
                      .arg(count(module->computations), count(module->instructions)),
            tr("Featurized as the TpuGraphs featurizer does; entry computation %1")
                .arg(QString::fromStdString(module->entry)));
        if (!module->hasRuns) {
            setField(Field::TuningRuns, tr("none (a graph without configurations)"));
        } else {
            const auto& r = module->runs;
            QString runs = tr("%1: %2 kept, %3 with errors, %4 skipped")
                               .arg(count(r.total), count(r.kept), count(r.errors), count(r.skipped));
            runs += r.defaultRun >= 0
                ? tr("\ndefault run %1 (%2)").arg(Formatting::id(r.defaultRun), Formatting::duration(r.defaultRuntime))
                : tr("\nno default run among the kept ones");
            setField(Field::TuningRuns, runs);
        }
    } else {
        setField(Field::Source, tr("TpuGraphs .npz"));
        setField(Field::TuningRuns, QString(kDash));
    }

    m_opcodeModel->setHistogram(summary.opcodeHistogram, summary.configurableOpcodes, summary.nodes);
    m_arrayModel->setArrays(summary.arrays);
}

} // namespace tgraph::widgets
