// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/inspect/summary.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace tgraph::widgets {

class ArrayTableModel;
class OpcodeTableModel;
class ElidedLabel;

// The facts about one graph file (tgraph::GraphSummary): counts, runtimes, duplicates, the
// arrays as stored and a sortable, filterable opcode histogram.
class GraphSummaryView : public QWidget
{
    Q_OBJECT
public:
    // The facts shown as label/value pairs, top to bottom.
    enum class Field {
        Kind,
        Nodes,
        Edges,
        ConfigurableNodes,
        Configs,
        Runtimes,
        RuntimeRange,
        DuplicateConfigs,
        NodeSplits,
        ConfigStorage,
        Source, // npz, or the HLO input format, module and its size
        TuningRuns, // HLO inputs: how the tuning runs were used
    };

    explicit GraphSummaryView(QWidget* parent = nullptr);

    void setSummary(const tgraph::GraphSummary& summary);
    const tgraph::GraphSummary& summary() const { return m_summary; }

    // The text shown for a field (what the user reads).
    QString fieldText(Field field) const;
    QString title() const;

    OpcodeTableModel* opcodeModel() const { return m_opcodeModel; }
    ArrayTableModel* arrayModel() const { return m_arrayModel; }
    QSortFilterProxyModel* opcodeProxy() const { return m_opcodeProxy; }
    QTableView* opcodeTable() const { return m_opcodeTable; }
    QTableView* arrayTable() const { return m_arrayTable; }
    QLineEdit* opcodeFilter() const { return m_opcodeFilter; }

private:
    ElidedLabel* valueLabel(Field field) const;
    void setField(Field field, const QString& text, const QString& toolTip = {});

    tgraph::GraphSummary m_summary;
    ElidedLabel* m_title = nullptr;
    ElidedLabel* m_subtitle = nullptr;
    QList<ElidedLabel*> m_values; // indexed by Field
    OpcodeTableModel* m_opcodeModel = nullptr;
    QSortFilterProxyModel* m_opcodeProxy = nullptr;
    QTableView* m_opcodeTable = nullptr;
    QLineEdit* m_opcodeFilter = nullptr;
    ArrayTableModel* m_arrayModel = nullptr;
    QSortFilterProxyModel* m_arrayProxy = nullptr;
    QTableView* m_arrayTable = nullptr;
    QLabel* m_opcodeCount = nullptr;
};

} // namespace tgraph::widgets
