// SPDX-License-Identifier: Apache-2.0
#include "widgets/diff/changelistmodel.h"

#include "widgets/common/formatting.h"
#include "widgets/diff/diffcolors.h"

#include "core/diffcost/diffcostreport.h"

#include <QColor>

#include <cmath>

namespace tgraph::widgets {

using tgraph::HloChangeKind;

QString costDeltaText(double ns)
{
    const int64_t rounded = std::llround(ns);
    if (rounded == 0)
        return Formatting::duration(0);
    return (rounded > 0 ? QStringLiteral("+") : QStringLiteral("\u2212")) + Formatting::duration(std::llabs(rounded));
}

ChangeListModel::ChangeListModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void ChangeListModel::setResult(DiffResultPtr result)
{
    beginResetModel();
    m_result = std::move(result);
    m_all.clear();
    if (m_result) {
        const tgraph::HloDiff& d = m_result->diff;
        m_all.reserve(d.changed.size() + d.removed.size() + d.added.size());
        for (const uint32_t p : d.changed)
            m_all.push_back({ Entry::Type::Changed, d.pairs[p].a, d.pairs[p].b, d.pairs[p].kinds });
        for (const uint32_t a : d.removed)
            m_all.push_back({ Entry::Type::Removed, a, -1, 0 });
        for (const uint32_t b : d.added)
            m_all.push_back({ Entry::Type::Added, -1, b, 0 });
    }
    rebuildRows();
    endResetModel();
}

void ChangeListModel::setFilter(uint32_t bits)
{
    if (bits == m_filter)
        return;
    beginResetModel();
    m_filter = bits;
    rebuildRows();
    endResetModel();
}

uint32_t ChangeListModel::bitsOf(const Entry& entry)
{
    switch (entry.type) {
    case Entry::Type::Changed:
        return entry.kinds;
    case Entry::Type::Removed:
        return kRemovedBit;
    case Entry::Type::Added:
        return kAddedBit;
    }
    return 0;
}

int ChangeListModel::countOf(uint32_t bit) const
{
    int n = 0;
    for (const Entry& e : m_all)
        n += (bitsOf(e) & bit) ? 1 : 0;
    return n;
}

void ChangeListModel::rebuildRows()
{
    m_rows.clear();
    m_rowOfA.assign(m_result ? m_result->diff.instructionsA : 0, -1);
    m_rowOfB.assign(m_result ? m_result->diff.instructionsB : 0, -1);
    for (size_t k = 0; k < m_all.size(); ++k) {
        const Entry& e = m_all[k];
        if (!(bitsOf(e) & m_filter))
            continue;
        const auto row = int32_t(m_rows.size());
        m_rows.push_back(int32_t(k));
        if (e.a >= 0)
            m_rowOfA[size_t(e.a)] = row;
        if (e.b >= 0)
            m_rowOfB[size_t(e.b)] = row;
    }
}

int ChangeListModel::rowOfA(int64_t a) const
{
    return a >= 0 && size_t(a) < m_rowOfA.size() ? m_rowOfA[size_t(a)] : -1;
}

int ChangeListModel::rowOfB(int64_t b) const
{
    return b >= 0 && size_t(b) < m_rowOfB.size() ? m_rowOfB[size_t(b)] : -1;
}

int ChangeListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ChangeListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

QString kindText(const ChangeListModel::Entry& e)
{
    switch (e.type) {
    case ChangeListModel::Entry::Type::Removed:
        return QStringLiteral("removed");
    case ChangeListModel::Entry::Type::Added:
        return QStringLiteral("added");
    case ChangeListModel::Entry::Type::Changed:
        break;
    }
    return QString::fromStdString(tgraph::hloDiffKindList(e.kinds));
}

} // namespace

QVariant ChangeListModel::data(const QModelIndex& index, int role) const
{
    if (!m_result || !index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Entry& e = entry(index.row());
    const tgraph::HloModule& a = m_result->moduleA();
    const tgraph::HloModule& b = m_result->moduleB();
    const tgraph::GraphDocument& docA = *m_result->a;
    const tgraph::GraphDocument& docB = *m_result->b;
    const double delta = e.a >= 0 ? m_result->cost.deltaOfA(m_result->diff, uint32_t(e.a))
                                  : m_result->cost.deltaOfB(m_result->diff, uint32_t(e.b));
    auto computation = [&]() -> QString {
        const QString ca = e.a >= 0
            ? QString::fromStdString(docA.computations[size_t(docA.computationOfNode[size_t(e.a)])].name)
            : QString();
        const QString cb = e.b >= 0
            ? QString::fromStdString(docB.computations[size_t(docB.computationOfNode[size_t(e.b)])].name)
            : QString();
        if (ca.isEmpty())
            return cb;
        if (cb.isEmpty() || cb == ca)
            return ca;
        return ca + QStringLiteral(" → ") + cb;
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KindColumn:
            return kindText(e);
        case AColumn:
            return e.a >= 0 ? QString::fromStdString(std::string(a.instructions[size_t(e.a)].name)) : QString();
        case BColumn:
            return e.b >= 0 ? QString::fromStdString(std::string(b.instructions[size_t(e.b)].name)) : QString();
        case ComputationColumn:
            return computation();
        case CostColumn:
            return costDeltaText(delta);
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == KindColumn)
            return e.type == Entry::Type::Added  ? DiffColors::added()
                : e.type == Entry::Type::Removed ? DiffColors::removed()
                                                 : DiffColors::ofKinds(e.kinds);
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case AColumn:
            return e.a >= 0 ? QString::fromStdString(docA.instructionText(e.a)) : tr("Not in A: added");
        case BColumn:
            return e.b >= 0 ? QString::fromStdString(docB.instructionText(e.b)) : tr("Not in B: removed");
        case CostColumn:
            return tr("The simulator's estimate (a model, not a measurement): %1")
                .arg(e.type == Entry::Type::Changed    ? tr("B − A")
                        : e.type == Entry::Type::Added ? tr("+B, the added instruction's cost")
                                                       : tr("−A, the removed instruction's cost"));
        default:
            return computation();
        }
    case Qt::TextAlignmentRole:
        if (index.column() == CostColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::UserRole: // the delta, for sorting and tests
        return delta;
    default:
        break;
    }
    return {};
}

QVariant ChangeListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case KindColumn:
            return tr("Kind");
        case AColumn:
            return tr("A");
        case BColumn:
            return tr("B");
        case ComputationColumn:
            return tr("Computation");
        case CostColumn:
            return tr("Δ cost (est.)");
        }
    }
    if (role == Qt::ToolTipRole && section == CostColumn)
        return tr("Cost delta by the analytical simulator at each module's own layouts: an estimate of a "
                  "model, not a measurement (docs/diff.md §8)");
    return {};
}

} // namespace tgraph::widgets
