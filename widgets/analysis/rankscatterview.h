// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/analysis/rankscatterdata.h"

#include <QStringList>
#include <QWidget>

#include <utility>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QScatterSeries;
class QTabWidget;

namespace tgraph::widgets {

// The rank scatter of one graph (docs/studio.md §5): tab "Rank" draws x = true rank (0 =
// fastest) against y = predicted rank with the y = x diagonal at equal aspect, the true top-5 and
// the predicted top-5 highlighted and the metrics in the title; tab "Runtime vs score" draws
// the runtime against the raw score (on a log axis when the runtimes span a decade or more).
// Linear axes follow AxisPolicy (widgets/common/axispolicy.h): ranks at whole numbers within
// [0, C - 1]. Small translucent markers from 1,000 points on; above
// maxDrawnPoints() a uniform subset is drawn (the top-5s always). Hover shows a config's index,
// runtime and score; a click selects it (configSelected).
class RankScatterView : public QWidget
{
    Q_OBJECT
public:
    explicit RankScatterView(QWidget* parent = nullptr);

    void setData(RankScatterData data);
    const RankScatterData& data() const { return m_data; }
    // Marks `config` (a config id) as selected without emitting configSelected; -1 clears.
    void selectConfig(int64_t config);
    int64_t selectedConfig() const { return m_selected; }

    QTabWidget* tabs() const { return m_tabs; }
    QChart* rankChart() const;
    QChart* scoreChart() const;
    // Rows drawn in each chart (after subsampling).
    int64_t drawnPoints() const { return int64_t(m_drawnRows.size()); }
    static constexpr int64_t maxDrawnPoints() { return 20000; }
    // The tooltip text of a row, as hover shows it.
    QString describeRow(int64_t row) const;

Q_SIGNALS:
    void configSelected(qint64 config);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyTitles();
    void rebuild();
    void fillRankChart();
    void fillScoreChart();
    void connectPoints(QScatterSeries* series, bool rankChart);
    int64_t rowAt(const QPointF& point, bool rankChart) const;
    double scoreChartY(int64_t row) const;
    void updateSelectionMarkers();

    RankScatterData m_data;
    std::vector<int64_t> m_drawnRows;
    int64_t m_selected = -1;
    QTabWidget* m_tabs = nullptr;
    QChartView* m_rankView = nullptr;
    QChartView* m_scoreView = nullptr;
    QScatterSeries* m_rankSelection = nullptr;
    QScatterSeries* m_scoreSelection = nullptr;
    QStringList m_runtimeText; // per row: Formatting::durations of the runtimes
    std::pair<QString, QString> m_rankTitle; // the graph, and its metrics (plain text)
    std::pair<QString, QString> m_scoreTitle;
    double m_scoreUnit = 1; // ns per unit of the score chart's runtime axis
    bool m_scoreLog = false; // the score chart's runtime axis is logarithmic
};

} // namespace tgraph::widgets
