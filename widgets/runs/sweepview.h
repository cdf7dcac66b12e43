// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/sweepsummary.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QCheckBox;
class QLabel;
class QStandardItemModel;
class QTableView;

namespace tgraph::widgets {

class ParallelCoordinatesView;
class SweepCurvesView;

// What the Sweep view shows, read from the project in one go (off the GUI thread: readSweepView).
struct SweepViewData
{
    tgraph::SweepSummary summary;
    std::vector<tgraph::ParameterImportance> importance;
    std::vector<tgraph::SweepCurve> curves;
    QString metric; // context/key of the curves, e.g. valid/tau
};

// Reads sweep `sweepKey` (id, id prefix or name) of a project: the summary, the importance of its
// parameters and the curves of `metric` (context/key). Throws tgraph::InputError as Project does.
SweepViewData readSweepView(const QString& projectPath, const QString& sweepKey, const QString& metric);

// The Sweep view (docs/studio.md §2.8): the runs of a sweep grouped by configuration. A
// parallel-coordinates plot of the finished runs (brushing filters the table), the curves of each
// configuration as mean with a spread band, the per-configuration table (runs finished, mean ±
// std of tau, OPA, top-5 slowdown; the best marked) and the parameters' importance (|Pearson r|
// and the share of variance explained, see tgraph::parameterImportance). Double-clicking a
// configuration asks for its runs (runsRequested), clicking a line of the plot for its run.
class SweepView : public QWidget
{
    Q_OBJECT

public:
    explicit SweepView(QWidget* parent = nullptr);

    void setData(const SweepViewData& data);
    const SweepViewData& data() const { return m_data; }

    ParallelCoordinatesView* parallelCoordinates() const { return m_parallel; }
    SweepCurvesView* curves() const { return m_curves; }
    QTableView* configTable() const { return m_configTable; }
    QTableView* importanceTable() const { return m_importanceTable; }
    QCheckBox* minMaxBand() const { return m_minMax; } // the curves' band: min..max instead of ± std
    // Rows of the configuration table shown (brushing hides the others).
    int visibleConfigurations() const;

Q_SIGNALS:
    void runsRequested(const QStringList& runIds);

private:
    void fillTables();
    void filterByRuns(const QStringList& runIds);

    SweepViewData m_data;
    QLabel* m_title = nullptr;
    QCheckBox* m_minMax = nullptr;
    ParallelCoordinatesView* m_parallel = nullptr;
    SweepCurvesView* m_curves = nullptr;
    QTableView* m_configTable = nullptr;
    QTableView* m_importanceTable = nullptr;
    QStandardItemModel* m_configModel = nullptr;
    QStandardItemModel* m_importanceModel = nullptr;
};

} // namespace tgraph::widgets
