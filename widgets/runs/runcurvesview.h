// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/runs/runcurvedata.h"

#include <QString>
#include <QWidget>

#include <string>
#include <vector>

class QAbstractAxis;
class QChart;
class QChartView;
class QLineSeries;
class QScatterSeries;

namespace tgraph::widgets {

// Metric curves of the selected runs, TensorBoard-style: per run the smoothed line (debiased EMA,
// widgets/runs/smoothing.h) over its raw series drawn faintly behind, a star on its best value (the
// lowest loss, the highest tau / OPA), x = step, seconds since the run started or wall time,
// optional log-y and "ignore outliers" (5th..95th percentile y range).
// A refresh with the same runs and metric only replaces the points of the existing series and
// the axis ranges, so polling a run that is being written does not flicker.
class RunCurvesView : public QWidget
{
    Q_OBJECT
public:
    using XAxis = CurveXAxis;

    explicit RunCurvesView(QWidget* parent = nullptr);
    ~RunCurvesView() override;

    void setCurves(std::vector<RunCurve> curves);
    void setSmoothing(double weight); // 0..0.999
    void setXAxis(XAxis axis);
    void setLogY(bool on);
    void setIgnoreOutliers(bool on);

    const std::vector<RunCurve>& curves() const { return m_curves; }
    double smoothing() const { return m_smoothing; }
    XAxis xAxis() const { return m_xAxis; }
    bool logY() const { return m_logY; }
    bool ignoreOutliers() const { return m_ignoreOutliers; }
    QChart* chart() const;
    QChartView* chartView() const { return m_view; }

    // What is drawn for curve i (nullptr when out of range).
    QLineSeries* rawSeries(size_t i) const;
    QLineSeries* smoothedSeries(size_t i) const;
    QScatterSeries* bestSeries(size_t i) const; // one point, or none when the curve has no finite value
    // How often the series were created anew (a changed run set, metric or axis kind); refreshes
    // of the same curves do not count.
    int rebuildCount() const { return m_rebuilds; }

private:
    struct Drawn
    {
        std::string identity;
        QLineSeries* raw = nullptr;
        QLineSeries* smoothed = nullptr;
        QScatterSeries* best = nullptr;
    };

    void refresh();
    bool needsRebuild() const;
    void rebuild();
    void showPointTip(const RunCurve& curve, const QPointF& point, bool smoothed);

    std::vector<RunCurve> m_curves;
    std::vector<Drawn> m_drawn;
    double m_smoothing;
    XAxis m_xAxis = XAxis::Step;
    bool m_logY = false;
    bool m_ignoreOutliers = false;
    QChartView* m_view = nullptr;
    QAbstractAxis* m_x = nullptr;
    QAbstractAxis* m_y = nullptr;
    XAxis m_drawnXAxis = XAxis::Step;
    bool m_drawnLogY = false;
    int m_rebuilds = 0;
};

} // namespace tgraph::widgets
