// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QTableView;

namespace tgraph::widgets {

class RunParamsModel;

// The parameters of the selected runs (RunParamsModel) with "Only parameters that differ"; when
// the table would be empty it says why instead ("No differences: ...", RunParamsModel::emptyText),
// so an empty comparison is never a blank table (docs/studio.md §2.3).
class RunParamsView : public QWidget
{
    Q_OBJECT
public:
    explicit RunParamsView(RunParamsModel* model, QWidget* parent = nullptr);

    RunParamsModel* model() const { return m_model; }
    QCheckBox* onlyDifferences() const { return m_onlyDifferences; }
    QTableView* table() const { return m_table; }
    QLabel* note() const { return m_note; } // shown instead of an empty table

private:
    void update();

    RunParamsModel* m_model = nullptr;
    QCheckBox* m_onlyDifferences = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_note = nullptr;
};

} // namespace tgraph::widgets
