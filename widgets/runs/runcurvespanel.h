// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;

namespace tgraph::widgets {

class RunCurvesView;

// The curves chart with TensorBoard's controls above it: the metric ("context/key"), the x axis
// (step, relative, wall time), the smoothing weight (default 0.6), log-y and ignore outliers.
class RunCurvesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit RunCurvesPanel(QWidget* parent = nullptr);

    RunCurvesView* view() const { return m_view; }
    QString metric() const;
    // Chooses the metric (added to the list when it is not there yet).
    void setMetric(const QString& contextKey);
    // Metrics the runs logged besides the well-known ones; the list only grows.
    void addMetrics(const QStringList& contextKeys);
    QStringList metrics() const;
    // A readable name: "validation τ" for "valid/tau"; the key itself when unknown.
    static QString metricLabel(const QString& contextKey);

Q_SIGNALS:
    void metricChanged(const QString& contextKey);

private:
    QComboBox* m_metric = nullptr;
    QComboBox* m_xAxis = nullptr;
    QSlider* m_smoothing = nullptr;
    QLabel* m_smoothingLabel = nullptr;
    QCheckBox* m_logY = nullptr;
    QCheckBox* m_outliers = nullptr;
    RunCurvesView* m_view = nullptr;
};

} // namespace tgraph::widgets
