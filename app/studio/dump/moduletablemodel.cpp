// SPDX-License-Identifier: Apache-2.0
#include "app/studio/dump/moduletablemodel.h"

#include "widgets/common/formatting.h"

#include "core/util/terminaltext.h"

namespace tgraph::studio {

using namespace tgraph::widgets;

ModuleTableModel::ModuleTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

QString ModuleTableModel::moduleKey(const tgraph::DumpModule& module)
{
    return QString::number(module.id) + QLatin1Char('\n') + QString::fromStdString(tgraph::terminalText(module.name))
        + QLatin1Char('\n') + (module.timestamp ? QString::number(*module.timestamp) : QString());
}

QString ModuleTableModel::displayName(const tgraph::DumpModule& module)
{
    return module.name.empty() ? tr("(no name)") : QString::fromStdString(tgraph::terminalText(module.name));
}

void ModuleTableModel::setIndex(const DumpIndexPtr& index)
{
    QStringList keys;
    if (index)
        for (const tgraph::DumpModule& m : index->modules)
            keys << moduleKey(m);
    if (keys == m_keys) {
        m_index = index;
        if (!m_keys.isEmpty())
            Q_EMIT dataChanged(this->index(0, 0), this->index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_index = index;
    m_keys = keys;
    endResetModel();
}

int ModuleTableModel::rowOfKey(const QString& key) const { return int(m_keys.indexOf(key)); }

int ModuleTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_keys.size()); }

int ModuleTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ModuleTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_index || index.row() >= int(m_index->modules.size()))
        return {};
    const tgraph::DumpModule& m = m_index->modules[size_t(index.row())];
    switch (role) {
    case KeyRole:
        return m_keys[index.row()];
    case SortRole:
        switch (index.column()) {
        case IdColumn:
            return qlonglong(m.id);
        case NameColumn:
            return displayName(m);
        case BackendColumn:
            return QString::fromStdString(m.backend);
        case StagesColumn:
            return qlonglong(m.stages.size());
        }
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case IdColumn:
            return Formatting::id(m.id);
        case NameColumn:
            return displayName(m);
        case BackendColumn:
            return m.backend.empty() ? Formatting::missing() : QString::fromStdString(tgraph::terminalText(m.backend));
        case StagesColumn:
            return Formatting::count(int64_t(m.stages.size()));
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == NameColumn) {
            QString tip = displayName(m);
            if (m.timestamp)
                tip += QLatin1Char('\n') + tr("timestamp %1").arg(Formatting::id(int64_t(*m.timestamp)));
            return tip;
        }
        return {};
    case Qt::TextAlignmentRole:
        return (index.column() == IdColumn || index.column() == StagesColumn)
            ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant();
    default:
        return {};
    }
}

QVariant ModuleTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn:
        return tr("Id");
    case NameColumn:
        return tr("Module");
    case BackendColumn:
        return tr("Backend");
    case StagesColumn:
        return tr("Stages");
    }
    return {};
}

} // namespace tgraph::studio
