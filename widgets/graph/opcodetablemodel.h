// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <utility>
#include <vector>

namespace tgraph::widgets {

// The opcode histogram of a graph: one row per opcode present, with its share of the nodes and
// how many of its nodes are configurable. Numbers are displayed formatted; SortRole gives the
// raw values for a QSortFilterProxyModel.
class OpcodeTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { IdColumn, NameColumn, CountColumn, ShareColumn, ConfigurableColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit OpcodeTableModel(QObject* parent = nullptr);

    // `histogram` and `configurable` are (opcode id, count) pairs; `totalNodes` scales the share.
    void setHistogram(const std::vector<std::pair<int, int64_t>>& histogram,
        const std::vector<std::pair<int, int64_t>>& configurable, int64_t totalNodes);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        int id = 0;
        QString name;
        int64_t count = 0;
        int64_t configurable = 0;
    };
    std::vector<Row> m_rows;
    int64_t m_totalNodes = 0;
};

} // namespace tgraph::widgets
