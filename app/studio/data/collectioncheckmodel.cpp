// SPDX-License-Identifier: Apache-2.0
#include "collectioncheckmodel.h"

#include <QBrush>
#include <QColor>

namespace tgraph::studio {

CollectionCheckModel::CollectionCheckModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void CollectionCheckModel::setCheck(tgraph::TreeCheck check)
{
    beginResetModel();
    m_check = std::move(check);
    endResetModel();
}

int CollectionCheckModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_check.collections.size());
}

int CollectionCheckModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CollectionCheckModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const tgraph::CollectionCheck& c = m_check.collections[size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == Collection ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == Errors && c.errors() > 0)
        return QBrush(QColor(0xc0, 0x20, 0x20));
    if (role == Qt::ToolTipRole && index.column() == Collection)
        return QString::fromStdString(c.folder);
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    switch (index.column()) {
    case Collection:
        return QString::fromStdString(c.id);
    case Train:
        return c.graphs[0];
    case Valid:
        return c.graphs[1];
    case Test:
        return c.graphs[2];
    case NodesMin:
        return qlonglong(c.nodesMin());
    case NodesMedian:
        return qlonglong(c.nodesMedian());
    case NodesMax:
        return qlonglong(c.nodesMax());
    case Configs:
        return qlonglong(c.configs);
    case Duplicates:
        return qlonglong(c.duplicateConfigs);
    case Errors:
        return c.errors();
    case Warnings:
        return c.warnings();
    default:
        return {};
    }
}

QVariant CollectionCheckModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[ColumnCount] = { QT_TR_NOOP("Collection"), QT_TR_NOOP("Train"), QT_TR_NOOP("Valid"),
        QT_TR_NOOP("Test"), QT_TR_NOOP("Nodes min"), QT_TR_NOOP("Median"), QT_TR_NOOP("Max"), QT_TR_NOOP("Configs"),
        QT_TR_NOOP("Dup. configs"), QT_TR_NOOP("Errors"), QT_TR_NOOP("Warnings") };
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace tgraph::studio
