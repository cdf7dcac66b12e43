// SPDX-License-Identifier: Apache-2.0
#include "widgets/diff/computationdiffmodel.h"

#include "widgets/common/formatting.h"
#include "widgets/diff/changelistmodel.h"

namespace tgraph::widgets {

ComputationDiffModel::ComputationDiffModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void ComputationDiffModel::setResult(DiffResultPtr result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

int ComputationDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->diff.computations.size());
}

int ComputationDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ComputationDiffModel::data(const QModelIndex& index, int role) const
{
    if (!m_result || !index.isValid())
        return {};
    const int r = index.row();
    const tgraph::HloComputationDiff& c = row(r);
    const tgraph::HloDiffCost& cost = m_result->cost;
    auto name = [](const tgraph::HloModule& m, int32_t i) {
        return i < 0 ? QString() : QString::fromStdString(std::string(m.computations[size_t(i)].name));
    };
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case AColumn:
            return c.a < 0 ? tr("(none)") : name(m_result->moduleA(), c.a);
        case BColumn:
            return c.b < 0 ? tr("(none)") : name(m_result->moduleB(), c.b);
        case UnchangedColumn:
            return Formatting::count(c.unchanged);
        case ChangedColumn:
            return Formatting::count(c.changed);
        case RemovedColumn:
            return Formatting::count(c.removed);
        case AddedColumn:
            return Formatting::count(c.added);
        case MovedColumn:
            return Formatting::count(int64_t(c.movedOut) + c.movedIn);
        case CostAColumn:
            return Formatting::duration(std::llround(cost.computationA[size_t(r)]));
        case CostBColumn:
            return Formatting::duration(std::llround(cost.computationB[size_t(r)]));
        case DeltaColumn:
            return costDeltaText(cost.computationDelta(size_t(r)));
        }
    } else if (role == Qt::TextAlignmentRole && index.column() >= UnchangedColumn) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::ToolTipRole) {
        if (index.column() == MovedColumn)
            return tr("%1 moved out to other computations, %2 moved in from others")
                .arg(Formatting::count(c.movedOut), Formatting::count(c.movedIn));
        QStringList notes;
        if (c.fusion)
            notes << tr("a fused computation");
        if (!c.reachable)
            notes << tr("not called from the entry");
        notes << tr("%1 instructions in A, %2 in B")
                     .arg(Formatting::count(c.instructionsA), Formatting::count(c.instructionsB));
        return notes.join(QStringLiteral("; "));
    } else if (role == Qt::UserRole) {
        return cost.computationDelta(size_t(r));
    }
    return {};
}

QVariant ComputationDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char* const names[] = { QT_TR_NOOP("A"), QT_TR_NOOP("B"), QT_TR_NOOP("Unchanged"),
            QT_TR_NOOP("Changed"), QT_TR_NOOP("Removed"), QT_TR_NOOP("Added"), QT_TR_NOOP("Moved"),
            QT_TR_NOOP("Cost A (est.)"), QT_TR_NOOP("Cost B (est.)"), QT_TR_NOOP("Δ cost (est.)") };
        return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
    }
    if (role == Qt::ToolTipRole && section >= CostAColumn)
        return tr("The analytical simulator's estimate at each module's own layouts: a model, not a measurement "
                  "(docs/diff.md §8)");
    return {};
}

} // namespace tgraph::widgets
