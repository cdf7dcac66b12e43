// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/project.h"

#include <QString>
#include <QWidget>

#include <vector>

class QChart;
class QChartView;
class QLineSeries;

// One metric history of one run, as the curves chart draws it.
struct RunCurve
{
    QString run; // legend name
    std::string runId;
    tgraph::MetricSeries series;
    int64_t startMs = 0; // the run's start (relative time axis)
};

// Metric curves of the selected runs (TensorBoard-style): the smoothed line over the raw series
// drawn faintly behind it, x = step, relative time or wall time, optional log-y, the best value of
// each run marked (lowest for loss-like keys, highest for tau / OPA). Updates keep the axes and
// series objects when the run set is unchanged, so a refresh while a run writes does not flicker.
class RunCurvesView : public QWidget
{
    Q_OBJECT
public:
    enum class XAxis { Step, RelativeTime, WallTime };

    explicit RunCurvesView(QWidget* parent = nullptr);

    void setCurves(std::vector<RunCurve> curves);
    void setSmoothing(double weight); // 0..0.999, TensorBoard's default 0.6
    void setXAxis(XAxis axis);
    void setLogY(bool on);

    double smoothing() const { return m_smoothing; }
    const std::vector<RunCurve>& curves() const { return m_curves; }
    QChart* chart() const;
    // Higher is better for this metric key (tau, opa, tile_score); lower otherwise.
    static bool higherIsBetter(const std::string& key);
    // The best point of a curve (index into its points), -1 when it has no finite value.
    static int64_t bestIndex(const RunCurve& curve);

private:
    void rebuild();

    std::vector<RunCurve> m_curves;
    double m_smoothing = 0.6;
    XAxis m_xAxis = XAxis::Step;
    bool m_logY = false;
    QChartView* m_view = nullptr;
};
