// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/diff/diffresult.h"

#include <QWidget>

#include <map>

class QAction;
class QLabel;
class QSplitter;
class QTabWidget;
class QTableView;
class QToolButton;

namespace tgraph::widgets {

class ChangeListModel;
class ComputationDiffModel;
class DiffLegend;
class ElidedLabel;
class GraphPane;

// Two HLO modules side by side as graphs, kept in sync through the diff's matching (docs/studio.md
// §10): selecting an instruction on one side selects and centres its match on the other (or says
// that it has none: removed, added); instructions coloured by what happened to them (a legend
// names the colours; a collapsed group takes its changes' colour); below, the list of changes with
// filters by kind and next / previous (F8, Shift+F8), and one row per pair of computations, each
// with the simulator's cost delta.
class DiffView : public QWidget
{
    Q_OBJECT
public:
    enum class Side { A, B };

    explicit DiffView(QWidget* parent = nullptr);

    void setResult(DiffResultPtr result);
    const DiffResultPtr& result() const { return m_result; }

    GraphPane* pane(Side side) const { return side == Side::A ? m_paneA : m_paneB; }
    QTableView* changeTable() const { return m_changes; }
    QTableView* computationTable() const { return m_computations; }
    ChangeListModel* changeModel() const { return m_changeModel; }
    ComputationDiffModel* computationModel() const { return m_computationModel; }
    QTabWidget* tabs() const { return m_tabs; }
    QSplitter* splitter() const { return m_vertical; }
    // The filter's toggle of a ChangeListModel bit (a change kind, removed, added).
    QToolButton* filterButton(uint32_t bit) const;
    QAction* nextAction() const { return m_next; }
    QAction* previousAction() const { return m_previous; }

    // Selects instruction `node` of one side and its match on the other, as a click does.
    void selectInstruction(Side side, int64_t node);
    // Selects row `row` of the change list (both sides' instructions).
    void selectChange(int row);
    int currentChange() const;
    void nextChange();
    void previousChange();
    // Shows the rows with any of `bits` (ChangeListModel filter bits).
    void setFilter(uint32_t bits);
    // What the sync line says about the selection ("no match: removed (only in A)").
    QString syncText() const;
    QString summaryText() const;

Q_SIGNALS:
    void message(const QString& text);

private:
    void onPaneSelected(Side side, qint64 node);
    void onChangeRowChanged();
    void onComputationActivated(int row);
    void updateFilterButtons();
    void setSyncText(const QString& text);
    QString describe(Side side, int64_t node) const;
    QWidget* createChangesTab();
    QWidget* createComputationsTab();

    DiffResultPtr m_result;
    GraphPane* m_paneA = nullptr;
    GraphPane* m_paneB = nullptr;
    ElidedLabel* m_titleA = nullptr;
    ElidedLabel* m_titleB = nullptr;
    ElidedLabel* m_summary = nullptr;
    ElidedLabel* m_sync = nullptr;
    DiffLegend* m_legend = nullptr;
    QSplitter* m_vertical = nullptr;
    QSplitter* m_sides = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableView* m_changes = nullptr;
    QTableView* m_computations = nullptr;
    ChangeListModel* m_changeModel = nullptr;
    ComputationDiffModel* m_computationModel = nullptr;
    std::map<uint32_t, QToolButton*> m_filterButtons;
    QAction* m_next = nullptr;
    QAction* m_previous = nullptr;
    bool m_syncing = false;
};

} // namespace tgraph::widgets
