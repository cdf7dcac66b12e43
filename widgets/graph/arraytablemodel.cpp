// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/arraytablemodel.h"

#include "widgets/common/formatting.h"

#include "core/io/ndarray.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tgraph::widgets {

ArrayTableModel::ArrayTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void ArrayTableModel::setArrays(const std::vector<std::pair<std::string, tgraph::ArrayStorage>>& arrays)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(arrays.size());
    for (const auto& [name, storage] : arrays) {
        Row row;
        row.order = int(m_rows.size());
        row.name = QString::fromStdString(name);
        row.dtype = QString::fromStdString(storage.dtype.name());
        row.dtypeDescr = QString::fromStdString(storage.dtype.descr());
        row.shape = Formatting::shape(storage.shape);
        try {
            row.elements = tgraph::shapeElementCount(storage.shape);
            const auto itemSize = int64_t(storage.dtype.itemSize());
            if (row.elements <= std::numeric_limits<int64_t>::max() / std::max<int64_t>(itemSize, 1))
                row.bytes = row.elements * itemSize;
        } catch (const std::overflow_error&) {
            row.elements = -1;
        }
        m_rows.push_back(std::move(row));
    }
    endResetModel();
}

int ArrayTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ArrayTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ArrayTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[size_t(index.row())];

    if (role == SortRole) {
        switch (index.column()) {
        case NameColumn:
            return row.order; // archive order
        case DTypeColumn:
            return row.dtype;
        case ShapeColumn:
        case ElementsColumn:
            return qlonglong(row.elements);
        case BytesColumn:
            return qlonglong(row.bytes);
        }
    } else if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn:
            return row.name;
        case DTypeColumn:
            return row.dtype;
        case ShapeColumn:
            return row.shape;
        case ElementsColumn:
            return row.elements < 0 ? tr("overflow") : Formatting::count(row.elements);
        case BytesColumn:
            return row.bytes < 0 ? tr("overflow") : Formatting::bytes(uint64_t(row.bytes));
        }
    } else if (role == Qt::TextAlignmentRole) {
        const bool number = index.column() == ElementsColumn || index.column() == BytesColumn;
        return int((number ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    } else if (role == Qt::ToolTipRole && index.column() == DTypeColumn) {
        return tr("numpy descr %1").arg(row.dtypeDescr);
    }
    return {};
}

QVariant ArrayTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return tr("Array");
        case DTypeColumn:
            return tr("DType");
        case ShapeColumn:
            return tr("Shape");
        case ElementsColumn:
            return tr("Elements");
        case BytesColumn:
            return tr("Size");
        }
    } else if (role == Qt::ToolTipRole && section == BytesColumn) {
        return tr("Uncompressed size in memory (elements × item size)");
    }
    return {};
}

} // namespace tgraph::widgets
