// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QWidget>

#include <map>
#include <vector>

class QChart;
class QChartView;

namespace tgraph::widgets {

// One graph's result in a collection-wide evaluation.
struct GraphTau
{
    QString graph; // display name
    QString path; // the graph file
    QString collection; // e.g. "layout:xla:default"; empty = "other"
    double kendallTau = 0; // NaN when undefined (then the graph is listed but not drawn)
};

// Per-graph Kendall τ across graphs (docs/studio.md §5): one bar per graph sorted by τ,
// coloured by collection, each collection's mean as a horizontal line; a click on a bar emits
// graphActivated with the index of that graph in the entries given to setEntries().
class TauStripView : public QWidget
{
    Q_OBJECT
public:
    explicit TauStripView(QWidget* parent = nullptr);

    void setEntries(std::vector<GraphTau> entries);
    const std::vector<GraphTau>& entries() const { return m_entries; }
    // Entry indices in drawing order (ascending τ; graphs without τ left out).
    const std::vector<size_t>& drawOrder() const { return m_order; }
    // Mean τ per collection over the graphs with a τ.
    std::map<QString, double> collectionMeans() const;
    QChart* chart() const;

Q_SIGNALS:
    void graphActivated(int entry);

private:
    void rebuild();

    std::vector<GraphTau> m_entries;
    std::vector<size_t> m_order;
    QChartView* m_view = nullptr;
};

} // namespace tgraph::widgets
