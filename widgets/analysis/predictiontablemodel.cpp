// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/predictiontablemodel.h"

#include "widgets/common/formatting.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace tgraph::widgets {

PredictionTableModel::PredictionTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void PredictionTableModel::setResult(const RankScatterData& data)
{
    beginResetModel();
    m_data = data;
    // One column of runtimes: the digits that tell its rows apart (docs/studio.md §8.3).
    m_runtimeText = m_data.hasRuntimes() ? Formatting::durations(m_data.runtimes) : QStringList {};
    m_extraNames.clear();
    m_extra.clear();
    endResetModel();
}

void PredictionTableModel::setExtraColumns(const QStringList& names, std::vector<float> values)
{
    beginResetModel();
    m_extraNames = names;
    m_extra = std::move(values);
    if (m_extra.size() != size_t(m_data.size()) * size_t(names.size())) {
        m_extraNames.clear();
        m_extra.clear();
    }
    endResetModel();
}

int64_t PredictionTableModel::configAt(int row) const
{
    return row >= 0 && row < m_data.size() ? m_data.configIds[size_t(m_data.predictedOrder[size_t(row)])] : -1;
}

int PredictionTableModel::rowOfConfig(int64_t config) const
{
    const int64_t row = m_data.rowOfConfig(config);
    return row < 0 ? -1 : int(m_data.predictedRank[size_t(row)]);
}

int PredictionTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_data.size());
}

int PredictionTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : FirstExtra + int(m_extraNames.size());
}

QVariant PredictionTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_data.size())
        return {};
    const auto r = size_t(m_data.predictedOrder[size_t(index.row())]);
    const int column = index.column();
    const bool measured = m_data.hasRuntimes();
    if (role == Qt::UserRole) {
        switch (column) {
        case PredictedRank:
            return qlonglong(index.row());
        case Config:
            return qlonglong(m_data.configIds[r]);
        case Score:
            return m_data.scores[r];
        case Runtime:
            return measured ? QVariant(m_data.runtimes[r]) : QVariant();
        case TrueRank:
            return measured ? QVariant(qlonglong(m_data.trueRank[r])) : QVariant();
        default:
            return double(m_extra[r * size_t(m_extraNames.size()) + size_t(column - FirstExtra)]);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case PredictedRank:
            return Formatting::count(index.row() + 1);
        case Config:
            return Formatting::id(m_data.configIds[r]);
        case Score:
            return Formatting::significant(m_data.scores[r], 6);
        case Runtime:
            return measured ? m_runtimeText[qsizetype(r)] : Formatting::missing();
        case TrueRank:
            return measured ? Formatting::count(m_data.trueRank[r] + 1) : Formatting::missing();
        default:
            return Formatting::significant(
                double(m_extra[r * size_t(m_extraNames.size()) + size_t(column - FirstExtra)]), 4);
        }
    }
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole && column == TrueRank && m_data.isTrueTop(int64_t(r)))
        return QBrush(QColor(255, 127, 14, 60));
    if (role == Qt::ToolTipRole && column == TrueRank && m_data.isTrueTop(int64_t(r)))
        return tr("one of the 5 truly fastest configs");
    return {};
}

QVariant PredictionTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case PredictedRank:
        return tr("Pred. rank");
    case Config:
        return tr("Config");
    case Score:
        return tr("Score");
    case Runtime:
        return m_data.simulated ? tr("Runtime (simulated)") : tr("Runtime (measured)");
    case TrueRank:
        return tr("True rank");
    default:
        return section - FirstExtra < m_extraNames.size() ? m_extraNames[section - FirstExtra] : QVariant();
    }
}

} // namespace tgraph::widgets
