// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/runcomparison.h"

#include <QWidget>

#include <vector>

class QChart;
class QChartView;
class QLabel;
class QTableWidget;

namespace tgraph::widgets {

// Training runs side by side (core/store/runcomparison.h), the studio's Compare view: the metrics table
// (model, loss, tau, OPA, top-1/5 slowdown, APE, parameters, time per step, inference time per
// 128 configs, peak memory), a strip chart of every run's Kendall tau per graph (graphs ordered
// by their mean tau over the runs, one marker series per run in the curves' colours; a click on a
// marker emits graphActivated) and the pairwise table: on how many graphs each run of a pair
// ranks better (the graphs themselves in the tooltip).
class RunComparisonView : public QWidget
{
    Q_OBJECT
public:
    explicit RunComparisonView(QWidget* parent = nullptr);

    void setComparison(tgraph::RunComparison comparison);
    const tgraph::RunComparison& comparison() const { return m_comparison; }
    // The graphs along the strip chart's x axis, left to right.
    const std::vector<std::string>& graphOrder() const { return m_graphOrder; }

    QTableWidget* metricsTable() const { return m_metrics; }
    QTableWidget* pairsTable() const { return m_pairs; }
    QChart* chart() const;

Q_SIGNALS:
    void graphActivated(const QString& graph);

private:
    void fillMetrics();
    void fillChart();
    void fillPairs();

    tgraph::RunComparison m_comparison;
    std::vector<std::string> m_graphOrder;
    QLabel* m_note = nullptr;
    QTableWidget* m_metrics = nullptr;
    QChartView* m_chartView = nullptr;
    QTableWidget* m_pairs = nullptr;
};

} // namespace tgraph::widgets
