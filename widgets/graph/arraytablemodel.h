// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/graph/graph.h"

#include <QAbstractTableModel>

#include <string>
#include <utility>
#include <vector>

namespace tgraph::widgets {

// The arrays of a graph file as stored: name, dtype, shape, element count and uncompressed size.
// Rows keep archive order; SortRole gives raw values for a QSortFilterProxyModel.
class ArrayTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, DTypeColumn, ShapeColumn, ElementsColumn, BytesColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit ArrayTableModel(QObject* parent = nullptr);

    void setArrays(const std::vector<std::pair<std::string, tgraph::ArrayStorage>>& arrays);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        int order = 0;
        QString name;
        QString dtype;
        QString dtypeDescr;
        QString shape;
        int64_t elements = -1; // -1 when the shape overflows int64
        int64_t bytes = -1;
    };
    std::vector<Row> m_rows;
};

} // namespace tgraph::widgets
