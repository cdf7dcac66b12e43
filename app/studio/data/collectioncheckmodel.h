// SPDX-License-Identifier: Apache-2.0
#pragma once

// The summary table of a checked collection tree (core/data/treecheck.h), one row per collection,
// the columns of `tgraph data verify` (docs/formats.md §16.4).

#include "core/data/treecheck.h"

#include <QAbstractTableModel>

namespace tgraph::studio {

class CollectionCheckModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Collection,
        Train,
        Valid,
        Test,
        NodesMin,
        NodesMedian,
        NodesMax,
        Configs,
        Duplicates,
        Errors,
        Warnings,
        ColumnCount
    };

    explicit CollectionCheckModel(QObject* parent = nullptr);

    void setCheck(tgraph::TreeCheck check);
    const tgraph::TreeCheck& check() const { return m_check; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    tgraph::TreeCheck m_check;
};

} // namespace tgraph::studio
