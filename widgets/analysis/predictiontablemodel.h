// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/analysis/rankscatterdata.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace tgraph::widgets {

// The inference result table: one row per config in predicted order (row 0 = predicted fastest)
// with its predicted rank, config index, score, true runtime and true rank when measured, and
// optional extra columns per config (the 18 layout values of a selected node, or the 24 tile
// values). Qt::UserRole holds numbers for sorting through a QSortFilterProxyModel.
class PredictionTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { PredictedRank, Config, Score, Runtime, TrueRank, FirstExtra };

    explicit PredictionTableModel(QObject* parent = nullptr);

    void setResult(const RankScatterData& data);
    // Extra columns: `values` holds names.size() values per config in the data's row (file subset)
    // order. Empty names remove them.
    void setExtraColumns(const QStringList& names, std::vector<float> values);
    const RankScatterData& result() const { return m_data; }

    // The config id shown in `row`, -1 when out of range; the row showing `config`, -1 when none.
    int64_t configAt(int row) const;
    int rowOfConfig(int64_t config) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    RankScatterData m_data;
    QStringList m_extraNames;
    std::vector<float> m_extra;
    QStringList m_runtimeText; // per row of m_data, Formatting::durations of the runtimes
};

} // namespace tgraph::widgets
