// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/sweepsummary.h"

#include <QChartView>

#include <vector>

class QAreaSeries;
class QLineSeries;

namespace tgraph::widgets {

// A sweep's curves, one per configuration (docs/studio.md §2.8): the mean over its runs at each
// step as a line and the spread as a band of the same colour, mean ± std (or min..max with
// setBand(MinMax)); a step logged by one run only has no std, so the band shrinks to the line there.
class SweepCurvesView : public QChartView
{
    Q_OBJECT

public:
    enum class Band { StdDev, MinMax };

    explicit SweepCurvesView(QWidget* parent = nullptr);

    void setCurves(const std::vector<tgraph::SweepCurve>& curves, const QString& metricName);
    void setBand(Band band);
    Band band() const { return m_band; }
    int meanSeriesCount() const { return int(m_means.size()); }
    QLineSeries* meanSeries(int i) const { return m_means.at(size_t(i)); }
    QAreaSeries* bandSeries(int i) const { return m_bands.at(size_t(i)); }

private:
    void rebuild();

    std::vector<tgraph::SweepCurve> m_curves;
    QString m_metric;
    Band m_band = Band::StdDev;
    std::vector<QLineSeries*> m_means;
    std::vector<QAreaSeries*> m_bands;
};

} // namespace tgraph::widgets
