// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/dump/dumpfollower.h"
#include "app/studio/dump/stagefigures.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <optional>
#include <string>
#include <vector>

namespace tgraph::studio {

// The pass timeline of one module (docs/studio.md §10): one row per HLO stage in pass order, with
// what the pass changed against the stage before (added, removed, changed instructions), the
// module's sizes, and the simulator's estimate with its change against the stage before. The
// figures arrive one stage at a time (TimelineFiller); a row without them shows "…".
class PassTimelineModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        IndexColumn,
        PipelineColumn,
        PassColumn,
        ChangesColumn, // the bars (ChangeBarDelegate)
        AddedColumn,
        RemovedColumn,
        ChangedColumn,
        InstructionsColumn,
        ComputationsColumn,
        FusionsColumn,
        EstimateColumn,
        EstimateDeltaColumn,
        ColumnCount
    };
    enum Role {
        AddedRole = Qt::UserRole + 1, // qulonglong, invalid while unknown
        RemovedRole,
        ChangedRole,
        DidSomethingRole, // bool, invalid while unknown
    };

    struct Row
    {
        tgraph::DumpStage stage;
        std::string key; // stageFileKey
        std::string previousKey; // of the stage before, "" for the first
        std::optional<StageFigures> figures;
    };

    explicit PassTimelineModel(QObject* parent = nullptr);

    // Shows module `module` of `index` (SIZE_MAX: none). When the rows so far are the first rows of
    // the new ones (a folder that grows), the new rows are inserted and the selection stays.
    void setModule(const DumpIndexPtr& index, size_t module);
    const DumpIndexPtr& dumpIndex() const { return m_index; }
    size_t module() const { return m_module; }
    const std::vector<Row>& rows() const { return m_rows; }
    const Row* row(int row) const;
    // The absolute path of the stage's HLO file (its main file), "" when none.
    QString stagePath(int row) const;
    // The row of the stage whose main file is `path`, -1 when none.
    int rowOfPath(const QString& path) const;
    // "0012 fusion / after_x" or "before_optimizations": the stage as a person names it.
    QString stageLabel(int row) const;

    // Figures for the rows whose stage (and stage before) have these keys; true when a row took them.
    bool setFigures(const std::string& key, const std::string& previousKey, const StageFigures& figures);
    // The largest added + removed + changed of a row: the bars' scale.
    size_t maxChanges() const { return m_maxChanges; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void updateScale();
    QVariant display(int row, int column) const;
    QVariant toolTip(int row, int column) const;

    DumpIndexPtr m_index;
    size_t m_module = SIZE_MAX;
    std::vector<Row> m_rows;
    QStringList m_estimates; // the estimate column's texts, in one unit
    size_t m_maxChanges = 0;
};

// The timeline with the passes that changed nothing hidden, when asked ("Hide passes that
// changed nothing"); rows whose figures are not known yet stay.
class PassTimelineFilter : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit PassTimelineFilter(QObject* parent = nullptr);
    void setHideUnchanged(bool hide);
    bool hideUnchanged() const { return m_hide; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_hide = false;
};

} // namespace tgraph::studio
