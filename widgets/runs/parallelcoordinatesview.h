// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/sweepsummary.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <optional>
#include <vector>

namespace tgraph::widgets {

// A sweep's runs as a parallel-coordinates plot (docs/studio.md §2.8): one vertical axis per
// swept parameter and one for the metric (the run's last valid tau), one line per finished run
// coloured by the metric (viridis). Numeric parameters are placed by value (log10 when positive
// and spanning a factor of 10 or more), others as evenly spaced categories. Dragging along an axis
// brushes a range; runs outside any brush are drawn grey, and selectionChanged() gives the runs
// inside all brushes. A click on an axis without dragging clears its brush; a click on a line
// emits runActivated().
class ParallelCoordinatesView : public QWidget
{
    Q_OBJECT

public:
    explicit ParallelCoordinatesView(QWidget* parent = nullptr);

    void setSweep(const tgraph::SweepSummary& summary);
    int axisCount() const { return int(m_axes.size()); }
    QString axisName(int axis) const;
    // The labels along `axis` as painted, bottom to top.
    QStringList axisLabels(int axis) const;
    int lineCount() const { return int(m_lines.size()); }
    // A brush on `axis` between two positions along it (0 = bottom, 1 = top); as a drag makes one.
    void setBrush(int axis, double from, double to);
    void clearBrushes();
    // The runs inside every brush (all drawn runs without brushes), in queue order.
    QStringList selectedRuns() const;

    QSize sizeHint() const override { return { 900, 420 }; }
    QSize minimumSizeHint() const override { return { 360, 220 }; }

Q_SIGNALS:
    void selectionChanged(const QStringList& runIds);
    void runActivated(const QString& runId);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    struct Axis
    {
        QString name;
        bool numeric = false;
        bool log = false;
        double min = 0, max = 0; // numeric: the range (log10 when log)
        QStringList categories; // not numeric: bottom to top
    };
    struct Line
    {
        QString runId;
        std::vector<double> positions; // per axis, 0 (bottom) .. 1 (top)
        double metric = 0;
    };

    QRectF plotRect() const;
    double axisX(int axis) const;
    double positionY(double position) const;
    double positionAt(double y) const;
    int axisNear(double x) const;
    bool inside(const Line& line) const;
    QStringList tickLabels(int axis, std::vector<double>* positions) const;
    void emitSelection();

    std::vector<Axis> m_axes;
    std::vector<Line> m_lines;
    double m_metricMin = 0, m_metricMax = 1;
    std::map<int, std::pair<double, double>> m_brushes; // axis -> (low, high) positions
    int m_dragAxis = -1;
    double m_dragFrom = 0;
    bool m_dragged = false;
};

} // namespace tgraph::widgets
