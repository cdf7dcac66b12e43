// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/opcodetablemodel.h"

#include "widgets/common/formatting.h"

#include "core/graph/opcodes.h"

#include <unordered_map>

namespace tgraph::widgets {

OpcodeTableModel::OpcodeTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void OpcodeTableModel::setHistogram(const std::vector<std::pair<int, int64_t>>& histogram,
    const std::vector<std::pair<int, int64_t>>& configurable, int64_t totalNodes)
{
    std::unordered_map<int, int64_t> configurableById;
    for (const auto& [id, count] : configurable)
        configurableById[id] += count;

    beginResetModel();
    m_rows.clear();
    m_rows.reserve(histogram.size());
    for (const auto& [id, count] : histogram) {
        const auto it = configurableById.find(id);
        m_rows.push_back({ id, QString::fromStdString(tgraph::opcodeName(id)), count,
            it == configurableById.end() ? 0 : it->second });
    }
    m_totalNodes = totalNodes;
    endResetModel();
}

int OpcodeTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int OpcodeTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OpcodeTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[size_t(index.row())];
    const double share = m_totalNodes > 0 ? double(row.count) / double(m_totalNodes) : 0.0;

    if (role == SortRole) {
        switch (index.column()) {
        case IdColumn:
            return row.id;
        case NameColumn:
            return row.name;
        case CountColumn:
            return qlonglong(row.count);
        case ShareColumn:
            return share;
        case ConfigurableColumn:
            return qlonglong(row.configurable);
        }
    } else if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case IdColumn:
            return Formatting::id(row.id);
        case NameColumn:
            return row.name;
        case CountColumn:
            return Formatting::count(row.count);
        case ShareColumn:
            return Formatting::percent(share, 1);
        case ConfigurableColumn:
            return row.configurable ? Formatting::count(row.configurable) : QString();
        }
    } else if (role == Qt::TextAlignmentRole) {
        return int(index.column() == NameColumn ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::ToolTipRole && index.column() == ConfigurableColumn && row.configurable) {
        return tr("%1 of the %2 %3 nodes have layout configs")
            .arg(Formatting::count(row.configurable), Formatting::count(row.count), row.name);
    }
    return {};
}

QVariant OpcodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case IdColumn:
            return tr("Id");
        case NameColumn:
            return tr("Opcode");
        case CountColumn:
            return tr("Nodes");
        case ShareColumn:
            return tr("Share");
        case ConfigurableColumn:
            return tr("Configurable");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case IdColumn:
            return tr("HLO opcode id of the TpuGraphs featurizer (0 = unknown)");
        case CountColumn:
            return tr("Number of nodes with this opcode");
        case ShareColumn:
            return tr("Share of all nodes");
        case ConfigurableColumn:
            return tr("Nodes of this opcode whose layout is configurable");
        }
    }
    return {};
}

} // namespace tgraph::widgets
