// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/dump/dumpfollower.h"

#include <QAbstractTableModel>

namespace tgraph::studio {

// The modules of a dump folder (docs/studio.md §10): id, name (escaped as `tgraph dump list`
// prints odd names), backend and number of HLO stages. SortRole gives the values to sort by,
// KeyRole a key that stays the same while the folder grows, to keep the selection.
class ModuleTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { IdColumn, NameColumn, BackendColumn, StagesColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, KeyRole };

    explicit ModuleTableModel(QObject* parent = nullptr);

    // Takes the modules of `index`; resets only when the set of modules changed.
    void setIndex(const DumpIndexPtr& index);
    const DumpIndexPtr& dumpIndex() const { return m_index; }

    // The key of module `module` of an index (id, name and timestamp).
    static QString moduleKey(const tgraph::DumpModule& module);
    // The row of the module with that key, -1 when none.
    int rowOfKey(const QString& key) const;
    // The module name as shown: escaped, "(no name)" when the files leave it out.
    static QString displayName(const tgraph::DumpModule& module);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    DumpIndexPtr m_index;
    QStringList m_keys;
};

} // namespace tgraph::studio
