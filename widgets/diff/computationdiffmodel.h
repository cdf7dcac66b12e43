// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/diff/diffresult.h"

#include <QAbstractTableModel>

namespace tgraph::widgets {

// One row per pair of computations (tgraph::HloDiff::computations): A's and B's computation,
// their sizes, unchanged / changed / removed / added / moved instructions, and the simulator's
// cost of each side and its delta.
class ComputationDiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        AColumn,
        BColumn,
        UnchangedColumn,
        ChangedColumn,
        RemovedColumn,
        AddedColumn,
        MovedColumn,
        CostAColumn,
        CostBColumn,
        DeltaColumn,
        ColumnCount
    };

    explicit ComputationDiffModel(QObject* parent = nullptr);
    void setResult(DiffResultPtr result);
    const tgraph::HloComputationDiff& row(int r) const { return m_result->diff.computations[size_t(r)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    DiffResultPtr m_result;
};

} // namespace tgraph::widgets
